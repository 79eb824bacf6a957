"""Bands of what a quote's reading may imply, per platform: from the price book and the market range it states.

A figure outside its band is a misreading of the quote (its currency, a quantity basis, its layout), never padding:
the plausibility guard (:mod:`.plausibility`) names the likely cause and withholds every saving that rests on it.

Bands come from ``data/quote_bands.csv`` (one row per figure and platform, ``*`` for every platform, each with why,
source, date and basis) and from the price book the review uses:

* ``server_usd_per_gpu`` — a whole-server line's price per GPU: the book's whole node (or NVL72 rack) and the market
  range the data states, widened by :data:`neoplan.quote.lines.MAX_BOOK_RATIO` (3×) either way, per GPU;
* ``quote_usd_per_gpu`` — the quote's total per GPU: from the server band's floor to ``quote_over_servers`` times its
  top;
* ``book_ratio`` — the priced lines' median price against the book's like-for-like item: within 3× either way;
* ``ram_gb_per_server``, ``cpus_per_server``, ``nics_per_server``, ``drives_per_server`` — what one 8-GPU server (or
  compute tray) physically holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import Field

from ..errors import DataError
from ..formats import usd
from ..inputs.datafile import SourcedRow, read_numbered
from ..inputs.pricebook import DATA_DIR, PriceBook, default_platforms
from .lines import MAX_BOOK_RATIO

BANDS_FILE = DATA_DIR / "quote_bands.csv"
FIGURES = (
    "server_usd",
    "rack_usd",
    "ram_gb_per_server",
    "cpus_per_server",
    "nics_per_server",
    "drives_per_server",
    "quote_over_servers",
)
"""The figures ``data/quote_bands.csv`` may give (``server_usd`` / ``rack_usd`` per platform, the rest for all)."""


class BandRow(SourcedRow):
    """A row of ``data/quote_bands.csv``: a figure's range for a platform (``*``: every platform)."""

    figure: str
    platform: str
    low: float = Field(ge=0)
    high: float = Field(gt=0)
    unit: str
    why: str = Field(min_length=10)


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/quote_bands.csv
def band_rows() -> dict[tuple[str, str], BandRow]:
    """The rows of ``data/quote_bands.csv`` by (figure, platform) (cached; treat as read-only)."""
    return read_bands()


def read_bands(path: Path = BANDS_FILE) -> dict[tuple[str, str], BandRow]:
    """The rows of a bands file by (figure, platform); DataError naming the file, row and column of a bad one."""
    out: dict[tuple[str, str], BandRow] = {}
    platforms = default_platforms()
    for line, row in read_numbered(path, BandRow):
        if row.figure not in FIGURES:
            raise DataError(BANDS_FILE.name, f"not a figure ({', '.join(FIGURES)})", row=line, column="figure")
        if row.platform != "*" and row.platform not in platforms:
            raise DataError(BANDS_FILE.name, f"unknown platform {row.platform!r}", row=line, column="platform")
        if row.low > row.high:
            raise DataError(BANDS_FILE.name, "low must not exceed high", row=line, column="low")
        if (row.figure, row.platform) in out:
            raise DataError(BANDS_FILE.name, "a second row for this figure and platform", row=line, column="figure")
        out[(row.figure, row.platform)] = row
    return out


@dataclass(frozen=True)
class Band:
    """What a figure may be [its unit], and where the band comes from (one phrase)."""

    figure: str
    low: float
    high: float
    unit: str
    basis: str

    def holds(self, value: float) -> bool:
        """True when ``value`` is inside the band (a relative 1e-9 of slack)."""
        return self.low * (1 - 1e-9) <= value <= self.high * (1 + 1e-9)

    def text(self, money: bool) -> str:
        """The band as people read it: ``$11 k–$119 k`` or ``256–8,192``."""
        if money:
            return f"{usd(self.low, compact_from=1e4)}–{usd(self.high, compact_from=1e4)}"
        return f"{self.low:,.4g}–{self.high:,.6g}"


def _row(figure: str, platform: str | None) -> BandRow | None:
    rows = band_rows()
    return rows.get((figure, platform or "")) or rows.get((figure, "*"))


def server_band(platform: str | None, book: PriceBook, node_usd: float | None) -> Band | None:
    """The price per GPU a whole-server (or NVL72 rack) line may have [USD per GPU]; None for a platform the book
    cannot price (no node price and no market range)."""
    info = default_platforms().get(platform or "")
    gpus = info.gpus_per_node if info is not None else 8
    figure = "rack_usd" if info is not None and info.rack_scale else "server_usd"
    market = _row(figure, platform) if platform else None
    if node_usd is None and info is not None and info.baseboard_price_key in book:
        node_usd = book.price(info.baseboard_price_key)  # the board alone: the node is within 3x of it
    points = [v for v in (node_usd, market.low if market else None, market.high if market else None) if v]
    if not points:
        return None
    low, high = min(points) / MAX_BOOK_RATIO / gpus, max(points) * MAX_BOOK_RATIO / gpus
    said = (
        f"the {book.as_of} book's {usd(node_usd)} per {'rack' if figure == 'rack_usd' else 'server'}"
        if node_usd
        else ""
    )
    if market is not None:
        said += f"{' and ' if said else ''}the market's {usd(market.low)}–{usd(market.high)} ({market.date})"
    return Band("server_usd_per_gpu", low, high, "USD per GPU", f"{said}, ÷/× {MAX_BOOK_RATIO:g}")


def quote_band(server: Band) -> Band:
    """The total per GPU a quote that sells GPU servers may have [USD per GPU]."""
    ratio = _row("quote_over_servers", None)
    low, high = (ratio.low, ratio.high) if ratio is not None else (1.0, 2.0)
    return Band(
        "quote_usd_per_gpu", server.low * low, server.high * high, "USD per GPU",
        f"the server band and at most {high:g}× it for everything else a quote sells",
    )  # fmt: skip


def ratio_band() -> Band:
    """The median of the priced lines' prices over the book's like-for-like items [ratio]."""
    return Band(
        "book_ratio", 1 / MAX_BOOK_RATIO, MAX_BOOK_RATIO, "× the book",
        f"within {MAX_BOOK_RATIO:g}× of the book, as a line is priced",
    )  # fmt: skip


def count_band(figure: str) -> Band | None:
    """What one server physically holds of ``figure`` (``ram_gb_per_server``, ``cpus_per_server``, …)."""
    row = _row(figure, None)
    if row is None:
        return None
    return Band(figure, row.low, row.high, row.unit, f"{row.why.split(':')[0]} ({row.date})")
