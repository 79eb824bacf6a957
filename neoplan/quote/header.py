"""Step 1 and 2 of reading a table: find its header row, then give its columns roles.

A header is the best row (one row, or two when a PDF export splits the names, e.g. ``Part`` / ``Number``) among
the first :data:`HEADER_SCAN_ROWS` (a full header — description or part, quantity, price, four roles — may sit
lower, under a cover letter, up to :data:`DEEP_HEADER_SCAN_ROWS`). Each cell is read by the vocabulary of
``data/quote_headers.csv`` (any language it lists), else by the header words of ``data/quote_vocabulary.csv``
(``Qty per GPU node`` is a per-server quantity, ``含税单价`` a unit price); each role and each column is used
once, best score first. :func:`assign_columns` then reads the table below the header for what the names leave
open: the decimal mark, whether the discount column holds percents, which price columns hold amounts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from .cells import (
    DEEP_HEADER_SCAN_ROWS,
    HEADER_SCAN_ROWS,
    MAX_COLUMNS,
    Cell,
    _text,
    number_style,
    parse_money,
    parse_percent,
    parse_quantity,
)
from .matrix import Matrix, find_matrix
from .tiers import Tier, find_tiers, without_tiers
from .vocab import HEADER_ROLES, fold, header_key, header_names, pattern

ROLES = HEADER_ROLES
PRICE_ROLES = ("unit", "list", "extended", "ext_list")
QUANTITY_ROLES = ("quantity", "qty_per_server", "qty_total", "qty_per_rack")


@lru_cache(maxsize=16_384)  # keyed on a reduced header name, a pure function of it and the vocabulary
def candidates(name: str) -> tuple[tuple[str, int], ...]:
    """(role, score) pairs a reduced header name suits: its vocabulary entry, else a partial reading (1–2)."""
    if not name:
        return ()
    known = header_names().get(name)
    if known:
        return known
    return _partial(name)


def _partial(name: str) -> tuple[tuple[str, int], ...]:
    """A header name read by its words: ``qty per gpu node`` → per server, ``total net value`` → extended."""
    total = pattern("header_total").search(name) is not None
    if pattern("header_qty").search(name):
        if pattern("header_rack").search(name) and not total:
            return (("qty_per_rack", 2),)
        if pattern("header_per").search(name) and not total:
            return (("qty_per_server", 2),)
        return (("qty_total", 2),) if total else (("quantity", 1),)
    for role in ("discount", "nodes", "racks"):
        if pattern(f"header_{role}").search(name):
            return ((role, 1),)
    net = 1 + (pattern("header_net").search(name) is not None)
    listy = pattern("header_list").search(name) is not None
    if pattern("header_ext").search(name):
        return (("ext_list" if listy else "extended", net),)
    if pattern("header_unit").search(name) or listy:
        return (("list" if listy else "unit", net),)
    for role in ("part", "description", "manufacturer"):
        if pattern(f"header_{role}").search(name):
            return ((role, 1),)
    return ()


def header_name(cell: Cell) -> str:
    """A header cell as the words it is read by ("" for numbers and long texts)."""
    if not isinstance(cell, str) or len(cell) > 60:
        return ""
    return header_key(cell)


def assign(row: Sequence[Cell]) -> tuple[dict[str, int], int]:
    """(role → column, score) of a header row: each role and each column used once, best score first."""
    scored: list[tuple[int, int, int, str]] = []  # (-score, column, role order, role)
    for col, cell in enumerate(row[:MAX_COLUMNS]):
        for role, score in candidates(header_name(cell)):
            scored.append((-score, col, ROLES.index(role), role))
    roles: dict[str, int] = {}
    total = 0
    for neg, col, _order, role in sorted(scored):
        if role not in roles and col not in roles.values():
            roles[role] = col
            total -= neg
    return roles, total


def header_roles(row: Sequence[Cell]) -> dict[str, int]:
    """Column index of each role found in ``row`` (see :data:`ROLES`)."""
    return assign(row)[0]


def is_header(roles: Mapping[str, int]) -> bool:
    """Enough roles for a table: a description or part, and a quantity or price."""
    has_amount = any(r in roles for r in (*PRICE_ROLES, *QUANTITY_ROLES))
    return len(roles) >= 2 and ("description" in roles or "part" in roles) and has_amount


def is_full_header(roles: Mapping[str, int]) -> bool:
    """A header that cannot be a title line: four roles with a description or part, a quantity and a price."""
    return (
        len(roles) >= 4
        and any(r in roles for r in QUANTITY_ROLES)
        and any(r in roles for r in PRICE_ROLES)
        and ("description" in roles or "part" in roles)
    )


def _header_score(roles: Mapping[str, int], score: int | None = None) -> int:
    base = len(roles) if score is None else score
    return base + (2 if any(r in roles for r in PRICE_ROLES) else 0)


@dataclass(frozen=True)
class Header:
    """A table's header: its first row index, how many rows it spans (1 or 2) and its column roles."""

    row: int
    span: int
    roles: Mapping[str, int]
    cells: tuple[str, ...]


def _names_only(row: Sequence[Cell]) -> bool:
    """True when a row could be the second line of a header: text names only, no numbers or amounts."""
    texts = [c for c in row if not (isinstance(c, str) and not c.strip())]
    if not texts or any(not isinstance(c, str) for c in texts):
        return False
    return all(len(c) <= 60 and parse_quantity(c) is None and parse_money(c) is None for c in texts)  # type: ignore[arg-type]


def _options(scan: Sequence[Sequence[Cell]], i: int) -> list[tuple[Sequence[Cell], int]]:
    """The row at ``i`` as a header, and merged with the row below when both hold names only."""
    row = scan[i]
    options: list[tuple[Sequence[Cell], int]] = [(row, 1)]
    if i + 1 < len(scan) and _names_only(scan[i + 1]) and _names_only(row):
        below = scan[i + 1]
        width = max(len(row), len(below))
        merged: list[Cell] = [
            " ".join(t for r in (row, below) if (t := _text(r[c]) if c < len(r) else "")) for c in range(width)
        ]
        options.append((merged, 2))
    return options


def find_table_header(rows: Sequence[Sequence[Cell]]) -> Header | None:
    """The header of a sheet's first table, or None.

    Among the first HEADER_SCAN_ROWS rows any header counts, below them (under a cover letter, up to
    DEEP_HEADER_SCAN_ROWS) only a full one. The best-scoring header wins, unless a full header comes before it
    (the sheet's first table; the later one is read as the header of another table). A 2-row header wins when
    its merged names say more.
    """
    best: tuple[tuple[int, int], Header] | None = None
    first_full: tuple[tuple[int, int], Header] | None = None
    scan = rows[: DEEP_HEADER_SCAN_ROWS + 1]
    for i, row in enumerate(scan[:DEEP_HEADER_SCAN_ROWS]):
        if not any(isinstance(c, str) and c.strip() for c in row):
            continue
        here: tuple[tuple[int, int], Header] | None = None
        for cells, span in _options(scan, i):
            roles, score = assign(cells)
            if not is_header(roles) or (i >= HEADER_SCAN_ROWS and not is_full_header(roles)):
                continue
            key = (_header_score(roles, score), -span)
            if here is None or key > here[0]:
                here = (key, Header(i, span, roles, tuple(_text(c) for c in cells)))
        if here is None:
            continue
        if best is None or here[0] > best[0]:
            best = here
        if first_full is None and is_full_header(header_roles(row)):
            first_full = here
    if first_full is not None and best is not None and first_full[1].row < best[1].row:
        return first_full[1]
    return None if best is None else best[1]


def header_quality(rows: Sequence[Sequence[Cell]]) -> int:
    """How well the best header of ``rows`` names a quote table (-1 when there is none)."""
    header = find_table_header(rows)
    return -1 if header is None else _header_score(header.roles, assign(header.cells)[1])


def find_header(rows: Sequence[Sequence[Cell]]) -> tuple[int, dict[str, int]] | None:
    """(row index, roles) of the best header, or None."""
    header = find_table_header(rows)
    return None if header is None else (header.row, dict(header.roles))


# --- column roles, read with the table --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Columns:
    """What a table's header and its first rows say about its columns.

    ``qty_col`` holds the quantity a line is read by (per server when there is a Qty/Server column, per rack
    with a Qty/Rack column), ``total_col`` the order's quantity when the table also has one; ``per_server_only``:
    a Qty/Server column and no total or node count (the table prices one server); ``explicit``: the columns say
    what each quantity counts, so no row is a configuration sub-item.
    """

    roles: Mapping[str, int]
    decimal: str
    scale: float
    qty_col: int | None
    total_col: int | None
    has_per_server: bool
    per_rack: bool
    per_server_only: bool
    explicit: bool
    header_texts: tuple[tuple[str, ...], ...]
    money_scale: float = 1.0
    """What one written amount is worth [units of the currency]: 10,000 under 单价（万元）, 1,000 under '$000'."""
    matrix: Matrix | None = None
    """A rack matrix (a quantity per rack in one column per rack type, :mod:`neoplan.quote.matrix`), else None."""
    tiers: tuple[Tier, ...] = ()
    """Volume price breaks (a unit price per quantity tier, :mod:`neoplan.quote.tiers`), else ()."""

    @cached_property
    def header_firsts(self) -> frozenset[str]:
        """First cells of the header rows (a quick test for a repeated header)."""
        return frozenset(h[0] if h else "" for h in self.header_texts)

    def is_repeated_header(self, texts: Sequence[str]) -> bool:
        """True when a row repeats the header (a PDF export's next page)."""
        return texts[0] in self.header_firsts and any(
            list(texts) == list(h[: len(texts)]) + [""] * (len(texts) - len(h)) for h in self.header_texts
        )


_SCALES = (("scale_million", 1e6), ("scale_ten_thousand", 1e4), ("scale_thousand", 1e3))


def money_scale(text: str) -> float:
    """The unit a text writes amounts in: 1e6 (百万円, in millions), 1e4 (万元), 1e3 (千円, $000), else 1."""
    folded = fold(text)
    return next((factor for name, factor in _SCALES if pattern(name).search(folded)), 1.0)


def assign_columns(rows: Sequence[Sequence[Cell]], header: Header, statements: Sequence[str] = ()) -> Columns:
    """The column roles of the table under ``header``, checked against the rows below it; ``statements`` (the
    text above the table) may say the unit amounts are written in ("单位：万元", "amounts in thousands")."""
    start = header.row + header.span
    roles = _text_columns(rows, start, header, _money_columns(rows, start, header.roles))
    tiers = find_tiers(rows, start, header.cells, roles)
    roles = without_tiers(roles, tiers) if tiers else roles
    has_per_server = "qty_per_server" in roles
    per_rack = "qty_per_rack" in roles
    if has_per_server:
        qty_col = roles.get("qty_per_server")
    elif per_rack:
        qty_col = roles.get("qty_per_rack")
    else:
        qty_col = roles.get("quantity")
    total_col = roles.get("qty_total", roles.get("quantity") if has_per_server or per_rack else None)
    decimal = decimal_mark(rows, start, roles)
    matrix = None if has_per_server else find_matrix(rows, start, header.cells, roles, decimal)
    if matrix is not None:
        qty_col, total_col, per_rack = None, None, False
    return Columns(
        roles=roles,
        decimal=decimal,
        scale=percent_scale(rows, start, roles),
        qty_col=qty_col,
        total_col=total_col,
        has_per_server=has_per_server,
        per_rack=per_rack and not has_per_server,
        per_server_only=has_per_server and total_col is None and "nodes" not in roles,
        explicit=has_per_server or per_rack or "nodes" in roles or matrix is not None,
        header_texts=tuple(tuple(_text(c) for c in r) for r in rows[header.row : start]),
        money_scale=_scale_of(header, roles, statements),
        matrix=matrix,
        tiers=tiers,
    )


def _scale_of(header: Header, roles: Mapping[str, int], statements: Sequence[str]) -> float:
    """The money scale the price headers name, else a statement that names a unit ("金額単位：千円")."""
    names = " ".join(header.cells[roles[r]] for r in PRICE_ROLES if r in roles and roles[r] < len(header.cells))
    scale = money_scale(names)
    if scale == 1.0:
        said = [s for s in statements if pattern("scale_statement").search(fold(s))]
        scale = next((k for s in said if (k := money_scale(s)) != 1.0), 1.0)
    return scale


def _text_columns(
    rows: Sequence[Sequence[Cell]], start: int, header: Header, roles: Mapping[str, int]
) -> dict[str, int]:
    """``roles`` with the description in the header's wordiest description-named column, when several columns are
    named like one (Korean 품목 and 설명, "Item" and "Description"); a spare one of codes becomes the part column."""
    out = dict(roles)
    named = [
        col
        for col, cell in enumerate(header.cells[:MAX_COLUMNS])
        if any(role == "description" for role, _ in candidates(header_name(cell)))
        and all(c != col or r in ("description", "part") for r, c in out.items())
    ]
    if len(named) < 2:
        return out
    texts = {col: [_text(row[col]) for row in rows[start : start + 200] if col < len(row)] for col in named}
    words = {
        col: sum(len(t.split()) for t in cells) / max(1, sum(1 for t in cells if t)) for col, cells in texts.items()
    }
    wordiest = max(named, key=lambda col: (words[col], -col))
    out["description"] = wordiest
    if out.get("part") == wordiest:
        del out["part"]
    spare = min((col for col in named if col != wordiest), key=lambda col: (words[col], col))
    if "part" not in out and words[spare] <= 1.5:
        out["part"] = spare
    return out


def _money_columns(rows: Sequence[Sequence[Cell]], start: int, roles: Mapping[str, int]) -> dict[str, int]:
    """``roles`` without price columns that hold no amount but words (a "Unit" column of ``pcs``, ``ea``)."""
    out = dict(roles)
    for role in PRICE_ROLES:
        col = roles.get(role)
        if col is None:
            continue
        cells = [row[col] for row in rows[start : start + 200] if col < len(row) and _text(row[col])]
        if cells and not any(isinstance(c, float) or parse_money(c) is not None for c in cells):
            del out[role]
    return out


def decimal_mark(rows: Sequence[Sequence[Cell]], start: int, roles: Mapping[str, int]) -> str:
    """``","`` when the table's amounts are written with a decimal comma (1.234,56), else ``"."``."""
    cols = [roles[r] for r in (*PRICE_ROLES, *QUANTITY_ROLES, "nodes", "racks") if r in roles]
    votes: Counter[str] = Counter()
    for row in rows[start : start + 2_000]:
        for c in cols:
            cell = row[c] if c < len(row) else 0.0
            if isinstance(cell, str):
                style = number_style(cell)
                if style:
                    votes[style] += 1
    return "," if votes[","] > votes["."] else "."


def percent_scale(rows: Sequence[Sequence[Cell]], start: int, roles: Mapping[str, int]) -> float:
    """Divisor of the discount column: 100 when it holds percents (57, 57%), 1 when fractions (0.57)."""
    col = roles.get("discount")
    if col is None:
        return 1.0
    values = [parse_percent(row[col]) for row in rows[start:] if col < len(row)]
    return 100.0 if any(v is not None and (v[1] or v[0] > 1) for v in values) else 1.0
