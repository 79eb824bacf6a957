"""What reading a quote file yields: its lines as quoted, its stated totals, its options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .currency import StatedRate

if TYPE_CHECKING:
    from .ratecard import RateCard


@dataclass(frozen=True)
class RawLine:
    """One item row as read from the file; quantities and prices as quoted [units, the quote's currency].

    ``quantity_basis`` says what ``quantity`` counts: ``"total"`` (the whole order), ``"per_server"`` (a
    Qty/Server column or a quote that prices one server), ``"per_rack"`` (a Qty/Rack column without a rack
    count on the line: multiplied by the racks the quote states) or ``"per_parent"`` (a configuration sub-item
    under the priced system line at ``parent_row``, Dell style). ``unit_price`` is the net price where the quote
    has list / discount / net columns (``list_price`` [currency], ``discount`` [fraction] as quoted);
    ``extended`` is as the file states it (for ``total_quantity`` where the quote has such a column). ``row`` is
    the file's own 1-based row (CSV line) number. ``indent`` counts leading spaces or bullet characters of the
    description, ``category`` is the quote's own category column (ODM BoMs), ``quantity_unit`` the unit the
    quantity cell names ("lot" for ``1 lot``, "set", "system"; "" for plain counts). ``option`` is the
    alternative the line belongs to ("" = common to every option, or the quote has none); ``per_rack`` the
    quantity per rack of a rack BoM whose ``quantity`` was multiplied out by its rack count.
    """

    sheet: str
    row: int
    section: str
    part_number: str
    description: str
    quantity: float
    unit_price: float | None
    extended: float | None
    quantity_assumed: bool = False
    quantity_basis: str = "total"
    parent_row: int | None = None
    total_quantity: float | None = None
    list_price: float | None = None
    discount: float | None = None
    indent: int = 0
    category: str = ""
    quantity_unit: str = ""
    option: str = ""
    per_rack: float | None = None
    optional: bool = False
    """In a section of optional items ("Optional items – not included in total"): not counted unless the user says."""
    currency: str = ""
    """The currency the line's own price cells (or a currency column) name; "" = the quote's."""
    tier: str = ""
    """The volume price break whose unit price the line takes (``10–49``), "" when the quote has none."""
    pool: str = ""
    """``spares`` for a part of a spares pool or an advance-replacement kit (its section or its words say so): counted
    in the total, kept out of the cluster's size and the per-server figures."""

    @property
    def unit_price_usd(self) -> float | None:
        """Deprecated alias of ``unit_price`` (in the quote's currency, USD only for a USD quote)."""
        return self.unit_price

    @property
    def extended_usd(self) -> float | None:
        """Deprecated alias of ``extended`` (in the quote's currency, USD only for a USD quote)."""
        return self.extended


@dataclass(frozen=True)
class StatedTotal:
    """A subtotal or total row as the file states it [the quote's currency].

    ``lines`` are the (sheet, row) of the item lines it was checked against (its section, or all lines above it);
    ``computed`` their sum; ``off`` is True when the stated amount differs from every sum it could be by more
    than rounding explains but is close to one of them (a typo or a line left out, not another kind of total).
    """

    sheet: str
    row: int
    label: str
    amount: float
    option: str = ""
    computed: float | None = None
    off: bool = False
    lines: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class ParsedQuote:
    """The lines of a quote file, with what was skipped and why.

    ``currency`` is the ISO 4217 code of the quote's prices ("USD" when nothing says otherwise);
    ``servers_stated`` the server count the quote states ("Configuration quantity: 16 nodes"), else None;
    ``racks_stated`` the rack count it states ("8 racks", a No. of Racks column); ``per_server`` is True when the
    quote prices one server ("all prices per node", Qty/Server columns only); ``notes`` are the texts around the
    tables (title blocks, notes, section titles), for context; ``options`` the labels of the alternatives the quote
    offers (Option A / Option B sheets or sections), in file order (empty when it offers one configuration);
    ``totals`` the subtotal and total rows it states.
    """

    name: str
    lines: tuple[RawLine, ...]
    skipped: Mapping[str, int]
    warnings: tuple[str, ...]
    sheets: tuple[str, ...]
    currency: str = "USD"
    servers_stated: int | None = None
    per_server: bool = False
    notes: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    totals: tuple[StatedTotal, ...] = field(default=())
    racks_stated: int | None = None
    currency_from: str = ""
    """Where the currency was read (price cells, headers, totals, a sentence, or ``you (--currency)``); "" when
    nothing names it (read as USD)."""
    currencies: tuple[str, ...] = ()
    """The currencies of the lines when they use several (each line's in ``RawLine.currency``), else ()."""
    currencies_seen: tuple[str, ...] = ()
    """Every currency the document writes (price cells, headers, totals, text), whatever was taken."""
    rates: tuple[StatedRate, ...] = ()
    """Exchange rates the quote states (``1 USD = 3.75 SAR``), with their rows."""
    date: str | None = None
    """The quote's date as ``YYYY-MM-DD`` (or ``YYYY-MM``), None when it states none."""
    date_from: str = ""
    """The text the date was read from."""
    rate_card: RateCard | None = None
    """The rental rates of a rate card ($/GPU-hour, $/month): the file is no hardware quote (``lines`` is empty)."""
