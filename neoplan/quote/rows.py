"""Step 3 of reading a table: each row's cells read by their column roles, and what kind of row it is.

:func:`read_cells` turns a row into numbers and texts (quantities per row, per server or per rack, prices with the
table's decimal mark, the net price from list and discount); :func:`row_kind` says what the row is: an item, a
blank, a repeated header, a comment, a subtotal or total, a tax line, the header of another table, a description
wrapped from the row above, a section title or note, an amount below the quote's total, or an amount without a
label. The words come from ``data/quote_vocabulary.csv`` (any language it lists).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .cells import Cell, _text, parse_money, parse_percent, parse_quantity
from .header import QUANTITY_ROLES, Columns, Header, assign, header_name, is_full_header
from .tiers import Tier, tier_for
from .vocab import fold, pattern

_BULLET_START = frozenset("-•·–—>*")
_BULLET = re.compile(r"^[\s\u00a0\u3000]*([-•·–—>*・]+\s+|[•·–—>・]+)?")
_CONTINUES_END = re.compile(r"([,;:/&+(\-–]|\b(with|and|or|for|incl\.?|including|w/|x|of|in|to|per|the|a))\s*$",
                            re.IGNORECASE)  # fmt: skip
_CONNECTORS = {"and", "of", "for", "per", "the", "&", "-", "–", "/", "a", "to", "in", "on"}
_NUMBER_TEXT = re.compile(r"[\s$€£¥()\-.,0-9%usdUSDEURGBP]*")

ROW_KINDS = (
    "blank",
    "repeated header",
    "comment",
    "subtotal or total",
    "tax",
    "header of another table",
    "continued description",
    "section title or note",
    "below the total",
    "unlabelled amount",
    "item",
)
BREAKS = frozenset(
    {"blank", "repeated header", "subtotal or total", "tax", "header of another table", "section title or note",
     "unlabelled amount"}
)  # fmt: skip
"""Kinds of row after which an item is no configuration sub-item of the line above them."""


@dataclass(frozen=True)
class RowCells:
    """One row read by its column roles [the quote's currency, units as quoted].

    ``qty`` is the quantity the line is read by (per server under a Qty/Server column, per rack under a
    Qty/Rack column), ``total_qty`` the order's quantity when the table has such a column too; ``unit`` and
    ``ext`` are the net unit and extended prices (from list and discount when the table has no net column).
    """

    index: int
    texts: tuple[str, ...]
    part: str
    description: str
    label: str
    indent: int
    qty_cell: Cell
    qty: float | None
    total_qty: float | None
    nodes: float | None
    racks: float | None
    unit: float | None
    ext: float | None
    list_price: float | None
    ext_list: float | None
    discount: float | None
    price_cells: tuple[Cell, ...]
    currency_cell: Cell
    line_number: str
    category: str
    amounts: tuple[float, ...]
    """The row's price cells that hold amounts."""
    tier: str = ""
    """The price break whose unit price the row takes (``10–49``), "" without price breaks."""

    @property
    def prices_blank(self) -> bool:
        """Every price cell empty or a dash: the sign of a configuration sub-item."""
        return all(blank(c) for c in self.price_cells)

    @property
    def zero(self) -> bool:
        """Every amount is 0 ("Included", 0.00)."""
        return all(v == 0 for v in self.amounts)

    @property
    def quantity(self) -> float | None:
        """The row's quantity as read (per row), else its total quantity."""
        return self.qty if self.qty is not None else self.total_qty


def cell(row: Sequence[Cell], roles: Mapping[str, int], role: str) -> Cell:
    """The cell of ``role`` in ``row`` ("" when the role or the cell is missing)."""
    col = roles.get(role)
    return row[col] if col is not None and col < len(row) else ""


def _at(texts: Sequence[str], roles: Mapping[str, int], role: str) -> str:
    col = roles.get(role)
    return texts[col] if col is not None and col < len(texts) else ""


def blank(value: Cell) -> bool:
    """An empty price cell (or a dash)."""
    return isinstance(value, str) and value.strip() in ("", "-", "–", "—", "--", "－")


def indent_of(value: Cell) -> int:
    """Leading spaces / bullet of a text cell (0 when none)."""
    if not isinstance(value, str):
        return 0
    m = _BULLET.match(value)
    return len(m.group(0)) if m else 0


def strip_bullet(text: str) -> str:
    """``text`` without a leading bullet."""
    return _BULLET.sub("", text, count=1).strip() or text


def item_number(value: Cell) -> str:
    """An item number as text without a trailing ``.0`` (``1.0`` → ``1``, ``1.2`` → ``1.2``); "" if none."""
    text = _text(value)
    if not re.fullmatch(r"\d{1,4}(\.\d{1,3}){0,3}", text):
        return ""
    return text[:-2] if text.endswith(".0") else text


def _scaled(value: float | None, scale: float) -> float | None:
    return value if value is None or scale == 1.0 else value * scale


def _prices(
    row: Sequence[Cell], cols: Columns, tier: Tier | None = None
) -> tuple[tuple[Cell, ...], float | None, float | None, float | None, float | None, float | None]:
    """(price cells, net unit, net extended, list, extended list, discount [fraction]) of a row: the net from list
    and discount when the table has no net column; the unit price of the price break ``tier`` when it has several."""
    roles = cols.roles
    price_cells = tuple(cell(row, roles, r) for r in ("unit", "extended", "list", "ext_list"))
    if tier is not None:
        price_cells = (row[tier.column] if tier.column < len(row) else "", *price_cells[1:])
    unit, ext, list_price, ext_list = (
        _scaled(parse_money(c, decimal=cols.decimal), cols.money_scale) for c in price_cells
    )
    disc_raw = parse_percent(cell(row, roles, "discount")) if "discount" in roles else None
    discount = None if disc_raw is None else (disc_raw[0] / (100.0 if disc_raw[1] else cols.scale))
    if discount is not None and 0 <= discount <= 1:
        unit = round(list_price * (1 - discount), 2) if unit is None and list_price is not None else unit
        ext = round(ext_list * (1 - discount), 2) if ext is None and ext_list is not None else ext
    else:
        unit = list_price if unit is None else unit
        ext = ext_list if ext is None else ext
    return price_cells, unit, ext, list_price, ext_list, discount


def _number_at(row: Sequence[Cell], roles: Mapping[str, int], role: str, decimal: str) -> float | None:
    return parse_quantity(cell(row, roles, role), decimal) if role in roles else None


def read_cells(row: Sequence[Cell], index: int, cols: Columns) -> RowCells:
    """The row's cells read by ``cols`` (quantities, prices with the table's decimal mark, net from list/discount)."""
    roles, decimal = cols.roles, cols.decimal
    texts = tuple(map(_text, row))
    part, desc = _at(texts, roles, "part"), _at(texts, roles, "description")
    if desc[:1] in _BULLET_START or desc[:1] == "・":
        desc = strip_bullet(desc)
    label = desc or part or next((t for t in texts if t and not _NUMBER_TEXT.fullmatch(t)), "")
    qty_cell = row[cols.qty_col] if cols.qty_col is not None and cols.qty_col < len(row) else ""
    total_cell = row[cols.total_col] if cols.total_col is not None and cols.total_col < len(row) else None
    qty = cols.matrix.quantity(row, decimal) if cols.matrix is not None else parse_quantity(qty_cell, decimal)
    total_qty = parse_quantity(total_cell, decimal) if total_cell is not None else None
    tier = tier_for(cols.tiers, total_qty if total_qty is not None else qty) if cols.tiers else None
    price_cells, unit, ext, list_price, ext_list, discount = _prices(row, cols, tier)
    return RowCells(
        index=index,
        texts=texts,
        part=part,
        description=desc,
        label=label,
        indent=max(indent_of(cell(row, roles, "description")), indent_of(cell(row, roles, "part"))),
        qty_cell=qty_cell,
        qty=qty,
        total_qty=total_qty,
        nodes=_number_at(row, roles, "nodes", decimal),
        racks=_number_at(row, roles, "racks", decimal),
        unit=unit,
        ext=ext,
        list_price=list_price,
        ext_list=ext_list,
        discount=discount,
        price_cells=price_cells,
        currency_cell=cell(row, roles, "currency"),
        line_number=item_number(cell(row, roles, "line")) if "line" in roles else "",
        category=_at(texts, roles, "category"),
        amounts=tuple(v for v in (unit, ext, list_price, ext_list) if v is not None),
        tier=tier.label if tier is not None else "",
    )


# --- kinds of row -----------------------------------------------------------------------------------------------------


@dataclass
class TableState:
    """What reading a table remembers from row to row: its columns and whether the quote's total was seen."""

    cols: Columns
    closed: bool = False
    """A grand total was seen: amounts without a quantity below it are not items."""
    previous_description: str | None = None
    """The description of the item on the row just above (None after any other row)."""


def row_kind(c: RowCells, row: Sequence[Cell], state: TableState) -> str:
    """What the row is (one of :data:`ROW_KINDS`)."""
    if not any(c.texts):
        return "blank"
    if state.cols.is_repeated_header(c.texts):
        return "repeated header"
    if c.label.startswith("#"):
        return "comment"
    if is_total(c.label, c.quantity, c.part):
        return "subtotal or total"
    if c.qty is None and tax_line(c.label):
        return "tax"
    if not c.amounts and c.qty is None and c.total_qty is None:
        if new_header(row, c.index, state.cols.roles) is not None:
            return "header of another table"
        if continues(state.previous_description, row, state.cols.roles, c.label):
            return "continued description"
        return "section title or note"
    if state.closed and c.qty is None and c.total_qty is None:
        return "below the total"
    if not (c.part or c.description):
        return "unlabelled amount"
    return "item"


@lru_cache(maxsize=1)  # keyed on nothing: derived once from the read-only data/quote_headers.csv
def _quantity_keys() -> frozenset[str]:
    """Reduced header names that name a quantity column for sure (score 3)."""
    from .vocab import header_names

    return frozenset(k for k, pairs in header_names().items() if any(r in QUANTITY_ROLES and s == 3 for r, s in pairs))


def new_header(row: Sequence[Cell], i: int, current: Mapping[str, int]) -> Header | None:
    """A full header row inside a table (a second table below the first, other columns), else None."""
    if not any(isinstance(c, str) and header_name(c) in _quantity_keys() for c in row):
        return None
    roles, _score = assign(row)
    if not is_full_header(roles) or dict(roles) == dict(current):
        return None
    return Header(i, 1, roles, tuple(_text(c) for c in row))


def is_total(label: str, qty: float | None, part: str = "") -> bool:
    """A subtotal/total row: 'Subtotal', 'Grand total', '合计' anywhere, or 'Total …' / '… total' without a
    quantity or a part number."""
    low = fold(label)
    if not pattern("total_word").search(low) or pattern("optional_title").search(low):
        return False  # "Optional items (not included in total)" is a section title
    if pattern("total_anywhere").search(low):
        return True
    return (qty is None or not part) and bool(_total_edge().search(low))


@lru_cache(maxsize=1)  # keyed on nothing: compiled once from the read-only vocabulary
def _total_edge() -> re.Pattern[str]:
    from .vocab import words

    edge = words("total_edge")
    return re.compile(
        rf"^\s*(quote\s+|net\s+|section\s+|order\s+|group\s+\d+\s+|estimated\s+|option\s+\w+\s+)?{edge}\b|"
        rf"\b{edge}\s*[:(]?\s*(\(?usd\)?|\$|€|£|eur|gbp)?\s*\)?\s*:?\s*$",
        re.IGNORECASE,
    )


def is_grand_total(label: str) -> bool:
    """The quote's own total (not a section's "Total compute"): amounts without a quantity below it are no items."""
    return bool(_grand().search(fold(label)))


@lru_cache(maxsize=1)  # keyed on nothing: compiled once from the read-only vocabulary
def _grand() -> re.Pattern[str]:
    from .vocab import words

    return re.compile(
        rf"^\s*({words('grand_total')}|total(\s*$|\s*[:(,]|\s+(usd|eur|gbp|chf|net|gross|excl?|incl?|amount|price|"
        r"value|quote|order|per|for|due|budgetary|budget|\$|€|£)))",
        re.IGNORECASE,
    )


def is_gross_total(label: str) -> bool:
    """A total including tax (its amount is not the sum of the lines)."""
    return bool(pattern("gross_total").search(fold(label)))


def tax_line(label: str) -> bool:
    """A tax line: 'VAT 20%', 'zzgl. 19 % MwSt.', '消費税 (10%)'."""
    return bool(pattern("tax", r"^\s*{}").match(fold(label)))


def note_line(label: str) -> bool:
    """A note: 'Notes:', 'Payment terms …', '备注', '納期'."""
    return bool(pattern("note", r"^\s*{}").match(fold(label)))


def row_text(row: Sequence[Cell]) -> str:
    """The row's filled cells joined by spaces."""
    return " ".join(t for t in (_text(c) for c in row) if t)


def _heading_like(text: str) -> bool:
    """A section title: a few capitalised words without digits (``Networking``, ``GPU SERVER - per node``)."""
    words = text.replace("&", " & ").split()
    if not words or len(words) > 7 or re.search(r"\d", text):
        return False
    if text.isupper() or text.rstrip().endswith(":"):
        return True
    return all(not w[0].isalpha() or w[0].isupper() or w.lower() in _CONNECTORS for w in words)


def continues(before: str | None, row: Sequence[Cell], roles: Mapping[str, int], text: str) -> bool:
    """True when a text-only row in the description column carries on the description of the line above it.

    Signs: it starts in lower case, with a digit or a joining character; the line above ends with a comma, a
    joining word or an open bracket; or it is a comma-separated list of specifications rather than a title. A
    title without those signs ("Front-end Ethernet (2x200GbE per server)") starts a section instead.
    """
    col = roles.get("description")
    if before is None or col is None:
        return False
    filled = [i for i, c in enumerate(row) if _text(c)]
    if filled != [col] or note_line(text) or tax_line(text) or pattern("option_title").search(text):
        return False
    if text[0].islower() or text[0].isdigit() or text[0] in "(,;:&+/-–":
        return True
    if _CONTINUES_END.search(before) or before.count("(") > before.count(")"):
        return True
    spec = re.search(r"\d|\b[A-Z][A-Z0-9]+\b", text)  # a model number or an acronym: NDR, P2C, Gen5
    return "," in text and bool(spec) and not _heading_like(text)
