"""The plausibility guard: no headline, saving or comparison from a reading of a quote that breaks a band.

After the findings are priced, the reading is checked against the bands of :mod:`.bands`: the priced lines against
the book (a median far off the book is another currency), a whole-server line's price per GPU, the quote's total per
GPU (off by far: the cluster's size is misread), and what one server holds (RAM, CPUs, NICs, drives: far too much or
too little is a quantity read per server that is a total, or the reverse). A figure outside its band is a
:class:`Breach`: one sentence says what looks wrong and why, names the likely cause (``currency``, ``size``,
``quantity_basis``, ``classification``) and the fix (the option to set, the line to correct), and says that no saving
is claimed on it. :func:`withhold` then withholds every finding that rests on it (all of them when the breach concerns
the whole quote: currency, size, a server's price); the review shows no headline and no comparison.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..formats import usd
from ..inputs.pricebook import PriceBook, default_platforms
from .bands import Band, count_band, quote_band, ratio_band, server_band
from .currency import Conversion
from .findings import Finding
from .guard import Withheld
from .layout import rows_text
from .lines import QuoteLine
from .size import Reading

CAUSES = ("currency", "size", "classification", "quantity_basis")
_WHOLE_QUOTE = frozenset({"book_ratio", "quote_usd_per_gpu", "server_usd_per_gpu", "extended_ratio"})
_EXTENDED = Band(
    "extended_ratio", 1 / 1.1, 1.1, "× quantity × unit price", "an extended price is its quantity times its unit price"
)
_COUNTS = (
    ("ram_gb_per_server", "RAM per server", ("ram",), "GB"),
    ("cpus_per_server", "CPUs per server", ("cpu",), ""),
    ("nics_per_server", "NICs per server", ("backend_nic", "frontend_nic", "nic"), ""),
    ("drives_per_server", "drives per server", ("local_nvme", "boot_drive"), ""),
)


@dataclass(frozen=True)
class Breach:
    """A figure of the reading outside its band, the likely cause, the fix, and the one sentence that says so."""

    figure: str
    value: float
    band: Band
    cause: str
    lines: tuple[int, ...]
    sentence: str

    @property
    def whole_quote(self) -> bool:
        """True when the breach concerns the whole quote (its currency, its size, a server's price)."""
        return self.figure in _WHOLE_QUOTE

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record."""
        return {
            "figure": self.figure,
            "value": self.value if math.isfinite(self.value) else None,
            "low": self.band.low,
            "high": self.band.high,
            "unit": self.band.unit,
            "band_from": self.band.basis,
            "cause": self.cause,
            "lines": list(self.lines),
            "sentence": self.sentence,
        }


@dataclass(frozen=True)
class GuardInput:
    """What the guard reads: the review's lines, the GPU servers' parts, its size, book and conversion."""

    lines: Sequence[QuoteLine]
    parts: Sequence[QuoteLine]
    servers: int | None
    gpus: int | None
    gpu_model: str | None
    book: PriceBook
    node_usd: float | None
    money: Conversion
    readings: Sequence[Reading] = ()
    seen: Sequence[str] = ()
    """Every currency the document writes (a sign the user overrode, a total in won)."""


def _compared(lines: Sequence[QuoteLine]) -> list[QuoteLine]:
    """Priced lines the book prices like for like (the base of the median price against the book)."""
    return [
        ln
        for ln in lines
        if ln.classified
        and not ln.derived
        and ln.category != "discount"
        and (_unit(ln) or 0) > 0
        and (ln.book_unit_price_usd or 0) > 0
    ]


def _unit(line: QuoteLine) -> float | None:
    """The line's unit price as written [USD] (its extended over its quantity when it writes none): a misread
    quantity moves the extended's share, never the unit price."""
    return line.unit_price_usd if (line.unit_price_usd or 0) > 0 else line.effective_unit_usd


def _median_ratio(lines: Sequence[QuoteLine]) -> float | None:
    """The median of the lines' unit prices over the book's [ratio]; None for fewer than three lines unless every
    line is off the book the same way (a currency moves every price, a padded line only its own)."""
    ratios = sorted((_unit(ln) or 0) / (ln.book_unit_price_usd or 1) for ln in lines)
    if not ratios:
        return None
    band = ratio_band()
    if len(ratios) < 3 and not (all(x > band.high for x in ratios) or all(x < band.low for x in ratios)):
        return None
    return math.exp(statistics.median(math.log(x) for x in ratios))


def _other_currencies(r: GuardInput) -> list[str]:
    """Currencies the quote writes, other than the one its prices were read in."""
    return sorted({c for c in r.seen if c != r.money.currency and len(c) == 3})


def _currency_fix(r: GuardInput, ratio: float) -> str:
    money = r.money
    implied = money.usd_per_unit / ratio
    guess = f"{implied:.2g}"
    other = _other_currencies(r)
    if money.currency not in ("USD", "unstated") or money.sources.get(money.currency, "").startswith("you"):
        source = money.sources.get(money.currency, "")
        return (
            f"the rate of {money.usd_per_unit:g} USD per {money.currency} ({source}) looks off: the book suggests "
            f"about {guess}; check it and give it with --usd-per-unit (on the page: the USD rate)"
        )
    name = other[0] if other else "its currency"
    code = other[0] if other else "XXX"
    return (
        f"give {name} and its rate (--currency {code} --usd-per-unit ≈{guess}; on the page: Currency and the USD rate)"
    )


def _times(ratio: float) -> str:
    """``1,400×``, ``4.2×``, ``0.0012×``."""
    return f"{ratio:,.0f}×" if ratio >= 10 else f"{ratio:.2g}×"


def _currency_breach(r: GuardInput) -> Breach | None:
    compared = _compared(r.lines)
    ratio = _median_ratio(compared)
    band = ratio_band()
    if ratio is None or band.holds(ratio):
        return None
    other = _other_currencies(r)
    hint = f", and the quote also writes {' and '.join(other)}" if other else ""
    example = max(compared, key=lambda ln: ln.total_usd)
    sentence = (
        f"The {len(compared)} lines priced against the {r.book.as_of} book cost a median {_times(ratio)} its "
        f"like-for-like items (e.g. {example.source}: {usd(_unit(example))} for an item the book prices "
        f"at {usd(example.book_unit_price_usd)}), outside the ⅓–3× band: the prices are probably not in "
        f"{'USD' if r.money.currency in ('USD', 'unstated') else r.money.currency} at this rate{hint}; "
        f"{_currency_fix(r, ratio)}; no saving is claimed on this reading."
    )
    return Breach("book_ratio", ratio, band, "currency", tuple(ln.id for ln in compared), sentence)


def _quantity_breach(r: GuardInput) -> Breach | None:
    """The extended prices a median far from the quantities read times their unit prices: the quantities are
    misread (a matrix or per-rack columns read as one quantity), whatever each line's own mismatch says."""
    lines = [
        ln
        for ln in r.lines
        if not ln.derived and ln.category != "discount" and ln.quantity > 0
        and (ln.unit_price_usd or 0) > 0 and (ln.extended_usd or 0) > 0
    ]  # fmt: skip
    if len(lines) < 2:
        return None
    ratios = [(ln.extended_usd or 0) / (ln.quantity * (ln.unit_price_usd or 1)) for ln in lines]
    ratio = math.exp(statistics.median(math.log(x) for x in ratios))
    if _EXTENDED.holds(ratio):
        return None
    off = [ln for ln, x in zip(lines, ratios, strict=True) if not _EXTENDED.holds(x)]
    ex = max(off, key=lambda ln: ln.extended_usd or 0)
    sentence = (
        f"The extended prices are a median {_times(ratio)} the quantities read times their unit prices ({len(off)} "
        f"of {len(lines)} lines, e.g. {ex.source}: {ex.quantity:,g} × {usd(ex.unit_price_usd)} but "
        f"{usd(ex.extended_usd)}), outside the 0.9–1.1× band: the quantities are probably misread, so the cluster's "
        "size is too (a quantity matrix, per-rack or per-server columns read as one quantity); check the table's "
        "quantity columns or set the servers bought (--servers N; 'Servers quoted' on the page); no saving is "
        "claimed on this reading."
    )
    return Breach("extended_ratio", ratio, _EXTENDED, "size", tuple(ln.id for ln in off), sentence)


def _gpus_per_unit(line: QuoteLine) -> float:
    platform = default_platforms().get(line.gpu_model or "")
    per = (line.system.gpus if line.system is not None else None) or (platform.gpus_per_node if platform else 8)
    return per * (line.system.servers_per_unit if line.system is not None else 1)


def _server_breach(r: GuardInput, band: Band) -> Breach | None:
    systems = [ln for ln in _compared(r.lines) if ln.component == "system"]
    off = [ln for ln in systems if not band.holds((_unit(ln) or 0) / _gpus_per_unit(ln))]
    if not off:
        return None
    line = max(off, key=lambda ln: ln.total_usd)
    value = (_unit(line) or 0) / _gpus_per_unit(line)
    sentence = (
        f"The server line ({line.source}: {line.label[:50]}) costs {usd(value)} per GPU, outside the "
        f"{band.text(True)} band ({band.basis}): the line probably prices a lot, a rack or a single GPU rather than "
        f"one server, or its quantity is per rack; correct its quantity or class in the Lines table ({line.source}); "
        "no saving is claimed on this reading."
    )
    return Breach("server_usd_per_gpu", value, band, "classification", tuple(ln.id for ln in off), sentence)


def _size_fix(r: GuardInput, band: Band, total: float) -> str:
    for other in r.readings:
        if other.gpus and other.gpus != r.gpus and band.holds(total / other.gpus):
            return (
                f"{other.label} give {other.gpus:,} GPUs ({usd(total / other.gpus)} per GPU): pick that reading "
                f"(--size-from {other.key}; 'Size from' on the page) or set the servers bought (--servers N)"
            )
    return "set the servers bought (--servers N; 'Servers quoted' on the page) or correct the quantities of the lines"


def _size_breach(r: GuardInput, server: Band) -> Breach | None:
    if not r.gpus:
        return None
    band = quote_band(server)
    total = sum(ln.total_usd for ln in r.lines)
    value = total / r.gpus
    if total <= 0 or band.holds(value):
        return None
    taken = next((x for x in r.readings if x.gpus == r.gpus), None)
    sentence = (
        f"The quote's {usd(total)} for {r.gpus:,} GPUs ({taken.label if taken else 'as read'}) is {usd(value)} per "
        f"GPU, outside the {band.text(True)} band ({band.basis}): the cluster's size is probably misread (a quantity "
        f"matrix, per-rack columns, or a server count the lines do not show); {_size_fix(r, band, total)}; no saving "
        "is claimed on this reading."
    )
    return Breach("quote_usd_per_gpu", value, band, "size", (), sentence)


def _count_breach(r: GuardInput, figure: str, label: str, components: Sequence[str], unit: str) -> Breach | None:
    band = count_band(figure)
    servers = r.servers or 0
    parts = [p for p in r.parts if p.component in components]
    if band is None or servers < 1 or not parts:
        return None
    amount = sum(p.ram_gb for p in parts) if figure == "ram_gb_per_server" else sum(p.cluster_quantity for p in parts)
    value = amount / servers
    if amount <= 0 or band.holds(value):
        return None
    own = [p for p in parts if not p.derived] or parts
    where = rows_text(own)
    if servers > 1 and value > band.high and band.holds(value / servers):
        cause, why = "quantity_basis", f"the quantities look like totals for the {servers:,} servers read per server"
        fix = f"untick 'Per server' on {where} in the Lines table (a correction with quantity_basis: total)"
    elif servers > 1 and value < band.low and band.holds(value * servers):
        cause, why = "quantity_basis", "the quantities look per server read as totals for the order"
        fix = f"tick 'Per server' on {where} in the Lines table (or set the servers bought, --servers N)"
    else:
        cause, why = "classification", "the lines are probably misclassified or their quantities misread"
        fix = f"check {where} in the Lines table"
    shown = f"{value:,.4g}{' ' + unit if unit else ''}"
    sentence = (
        f"The quote reads {shown} {label} ({where}), outside the {band.text(False)} band ({band.basis}): {why}; "
        f"{fix}; no saving is claimed on this reading."
    )
    return Breach(figure, value, band, cause, tuple(dict.fromkeys(p.id for p in parts)), sentence)


def check_reading(r: GuardInput) -> list[Breach]:
    """Every figure of the reading outside its band, the whole quote's first (currency, then the quantities read,
    a server's price, the total per GPU), then what one server holds."""
    out: list[Breach] = []
    currency = _currency_breach(r)
    server = server_band(r.gpu_model, r.book, r.node_usd) if r.gpus else None
    whole = currency or _quantity_breach(r)
    if whole is not None:
        out.append(whole)
    elif server is not None:
        out += [b for b in (_server_breach(r, server), _size_breach(r, server)) if b is not None]
    out += [b for figure, label, kinds, unit in _COUNTS if (b := _count_breach(r, figure, label, kinds, unit))]
    return out


def withhold(
    breaches: Sequence[Breach], findings: Sequence[Finding], withheld: Sequence[Withheld]
) -> tuple[list[Finding], list[Withheld]]:
    """(findings kept, withheld): a finding that rests on a breach (every finding, for a breach of the whole quote)
    is withheld with the breach's sentence as the reason."""
    if not breaches:
        return list(findings), list(withheld)
    whole = next((b for b in breaches if b.whole_quote), None)
    by_line: Mapping[int, Breach] = {i: b for b in breaches for i in b.lines}
    kept: list[Finding] = []
    out = list(withheld)
    for f in findings:
        reason = whole or next((by_line[i] for i in f.lines if i in by_line), None)
        if reason is None:
            kept.append(f)
        else:
            out.append(Withheld(f, reason.sentence))
    return kept, out
