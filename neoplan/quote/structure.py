"""Structure of a quote: its sheets' tables read into lines, in named steps.

1. :func:`neoplan.quote.header.find_table_header` — the header row (one row or two) in any language of
   ``data/quote_headers.csv``;
2. :func:`neoplan.quote.header.assign_columns` — column roles (part number, description, quantity, quantity per
   server or per rack, total quantity, nodes, racks, list, discount, net, extended, category, currency), the
   decimal mark, percent or fraction discounts;
3. :func:`neoplan.quote.rows.read_cells` and :func:`neoplan.quote.rows.row_kind` — each row read and told apart:
   item, wrapped description, section title, note, subtotal / total, tax, another table's header;
4. :func:`neoplan.quote.groups.group_sub_items` — configuration sub-items under their priced system line;
5. :mod:`neoplan.quote.sections` — options (alternatives reviewed one at a time, never summed);

then the quote's own statements (:mod:`neoplan.quote.statements`): the servers or racks it says it buys, a
per-server price basis, the currency; and every stated total checked against the lines it sums.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .cells import HEADER_SCAN_ROWS, MAX_CELL_CHARS, Cell, QuoteError, _text, currency_of, quantity_unit
from .currency import StatedRate, money_currencies, stated_rates
from .groups import Item, group_sub_items
from .header import (
    PRICE_ROLES,
    QUANTITY_ROLES,
    Columns,
    Header,
    assign_columns,
    find_header,
    find_table_header,
    header_quality,
    header_roles,
)
from .ratecard import RateCard, read_rate_card
from .raw import ParsedQuote, RawLine, StatedTotal
from .rows import (
    BREAKS,
    RowCells,
    TableState,
    is_grand_total,
    is_gross_total,
    new_header,
    note_line,
    read_cells,
    row_kind,
    row_text,
)
from .sections import (
    GPU_WORDS,
    MAX_OPTIONS,
    distinct,
    is_spares,
    option_label,
    optional_section,
    options_by_section,
    says_select_one,
    sections_with_totals,
)
from .statements import (
    AMBIGUOUS_YEN,
    CurrencyReading,
    currency,
    quote_date,
    racks_stated,
    resolve_yen,
    says_per_server,
    servers_stated,
)

__all__ = [
    "Header",
    "ParsedQuote",
    "RawLine",
    "StatedTotal",
    "find_header",
    "find_table_header",
    "header_quality",
    "header_roles",
    "parse_sheets",
    "read_table",
]

_MAX_DESCRIPTION_CHARS = 4 * MAX_CELL_CHARS  # a description wrapped over several rows
_TITLE_ROWS = 6  # rows above a sheet's table read for an option title
_NEAR_TOTAL = 0.05  # a stated total this close to a sum of its lines is that sum, misstated [fraction]


@dataclass
class SheetResult:
    """What one sheet's table yields, before the quote-level steps."""

    sheet: str = ""
    lines: list[RawLine] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    totals: list[StatedTotal] = field(default_factory=list)
    charges: list[tuple[int, float]] = field(default_factory=list)
    """(row, amount) of tax lines, freight and other amounts that are no item: a total may include them."""
    cell_currencies: Counter[str] = field(default_factory=Counter)
    header_currencies: Counter[str] = field(default_factory=Counter)
    total_currencies: Counter[str] = field(default_factory=Counter)
    """Currencies written on the amounts of totals and tax rows."""
    rates: list[StatedRate] = field(default_factory=list)
    """Exchange rates the sheet's text states, with their rows."""
    nodes: Counter[int] = field(default_factory=Counter)
    racks: Counter[int] = field(default_factory=Counter)
    ratios: Counter[float] = field(default_factory=Counter)
    per_server_columns: bool = False
    has_quantity: bool = True
    headers: list[str] = field(default_factory=list)


# --- one table --------------------------------------------------------------------------------------------------------


def _rates_in(rows: Sequence[Sequence[Cell]], indexes: Iterable[int], sheet: str, out: SheetResult) -> None:
    """Exchange rates stated on the rows at ``indexes`` (``1 USD = 3.75 SAR``), kept with their rows."""
    for i in indexes:
        out.rates += stated_rates(row_text(rows[i]), sheet, i + 1)


def read_table(rows: Sequence[Sequence[Cell]], header: Header, sheet: str, where: str) -> SheetResult:
    """The lines of the table under ``header`` (steps 2–4), with what was skipped and what the text says."""
    out = SheetResult(sheet=sheet, has_quantity=any(r in header.roles for r in QUANTITY_ROLES))
    out.titles = [t for t in map(row_text, rows[: header.row]) if t][:_TITLE_ROWS]
    out.statements += [t for t in map(row_text, rows[: header.row]) if t]
    _rates_in(rows, range(header.row), sheet, out)
    if sheet:
        out.statements.append(sheet)
    _header_currencies(header, out)
    state = TableState(assign_columns(rows, header, out.statements))
    items: list[Item] = []
    section, after_break, per_server_only = "", True, 0
    if state.cols.matrix is not None:
        out.warnings.append(
            f"{where}: quantities are per rack of each type ({state.cols.matrix.text}): a part's quantity is their sum"
        )
    for i in range(header.row + header.span, len(rows)):
        if state.cols.matrix is not None and i == state.cols.matrix.row:
            out.skipped["racks row"] += 1
            continue
        cells = read_cells(rows[i], i, state.cols)
        kind = row_kind(cells, rows[i], state)
        if kind == "item":
            items.append(_item(cells, state.cols, sheet, section, where, out, after_break))
            state.previous_description, after_break = items[-1].line.description, False
            per_server_only += state.cols.per_server_only
            continue
        out.skipped[kind] += 1
        if kind == "continued description":
            items[-1] = _continued(items[-1], cells.label)
            state.previous_description = items[-1].line.description
            continue
        if kind in BREAKS:
            after_break, state.previous_description = True, None
        section = _other_row(kind, cells, rows, sheet, state, out, section)
    out.lines = group_sub_items(items)
    out.per_server_columns = bool(out.lines) and per_server_only == len(out.lines)
    return out


def _other_row(
    kind: str, cells: RowCells, rows: Sequence[Sequence[Cell]], sheet: str, state: TableState, out: SheetResult,
    section: str,
) -> str:  # fmt: skip
    """A row that is no item read for what it says (a total, a charge, another table's header, a section title or
    a note); the section the next items are in."""
    i = cells.index
    if kind == "subtotal or total":
        _total(cells, sheet, state, out)
    elif kind in ("tax", "unlabelled amount", "below the total") and cells.amounts:
        out.charges.append((i + 1, next(v for v in (cells.ext, cells.unit, *cells.amounts) if v is not None)))
        _amount_currencies(cells, out)
    elif kind == "header of another table":
        other = new_header(rows[i], i, state.cols.roles)
        assert other is not None  # row_kind found it
        state.cols, state.closed = assign_columns(rows, other, out.statements), False
        _header_currencies(other, out)
    elif kind == "section title or note":
        out.statements.append(row_text(rows[i]))
        _rates_in(rows, (i,), sheet, out)
        if not note_line(cells.label) and len(cells.label.split()) <= 12:
            return cells.label[:120]
    return section


def _continued(item: Item, text: str) -> Item:
    """``item`` with ``text`` added to its description (a description wrapped onto the next row)."""
    line = item.line
    return replace(item, line=replace(line, description=f"{line.description} {text}"[:_MAX_DESCRIPTION_CHARS]))


def _amount_currencies(cells: RowCells, out: SheetResult) -> None:
    """The currencies written on a total's or a charge's amounts (``₩ 3,970,328,000``)."""
    for raw in cells.price_cells:
        code = currency_of(raw) if isinstance(raw, str) and any(ch.isdigit() for ch in raw) else None
        if code:
            out.total_currencies[code] += 1


def _total(cells: RowCells, sheet: str, state: TableState, out: SheetResult) -> None:
    state.closed = state.closed or is_grand_total(cells.label)
    out.statements.append(cells.label)
    _amount_currencies(cells, out)
    amount = next((v for v in (cells.ext, cells.unit, cells.ext_list, cells.list_price) if v is not None), None)
    if amount is not None and not is_gross_total(cells.label):
        out.totals.append(StatedTotal(sheet, cells.index + 1, cells.label[:120], amount))


def _header_currencies(header: Header, out: SheetResult) -> None:
    out.headers += [c for c in header.cells if c]
    for role in PRICE_ROLES:
        col = header.roles.get(role)
        code = currency_of(header.cells[col]) if col is not None and col < len(header.cells) else None
        if code:
            out.header_currencies[code] += 1


def _item(
    c: RowCells, cols: Columns, sheet: str, section: str, where: str, out: SheetResult, after_break: bool
) -> Item:
    """An item row as a line, with its grouping hints; its warnings, currencies and node counts noted in ``out``."""
    line_no = c.index + 1
    for value, raw in zip((c.unit, c.ext, c.list_price), c.price_cells[:3], strict=False):
        if value is None and isinstance(raw, str) and raw.strip() not in ("", "-", "–", "—", "--"):
            out.warnings.append(f"{where} row {line_no}: price {_text(raw)[:20]!r} is not an amount; left blank")
    own = ""
    for value, raw in ((c.unit, c.price_cells[0]), (c.ext, c.price_cells[1]), (c.list_price, c.price_cells[2]),
                       (1.0, c.currency_cell)):  # fmt: skip
        code = currency_of(raw) if isinstance(raw, str) and value is not None else None
        if code:
            out.cell_currencies[code] += 1
            own = own or code
    assumed = c.qty is None and c.total_qty is None
    if assumed and _text(c.qty_cell) and _text(c.qty_cell) != c.label:
        out.warnings.append(f"{where} row {line_no}: quantity {_text(c.qty_cell)[:20]!r} is not a number; taken as 1")
    basis, total, quantity, ext, per_rack = _quantities(c, cols, out)
    line = RawLine(
        sheet,
        line_no,
        section,
        c.part,
        c.description,
        quantity,
        c.unit,
        ext,
        quantity_assumed=assumed,
        quantity_basis=basis,
        total_quantity=total,
        list_price=c.list_price,
        discount=c.discount,
        indent=c.indent,
        category=c.category,
        quantity_unit=quantity_unit(c.qty_cell),
        per_rack=per_rack,
        currency=own,
        tier=c.tier,
        optional=optional_section(section),
        pool="spares" if is_spares(section) else "",
    )
    return Item(
        line=line,
        prices_blank=c.prices_blank,
        zero=c.zero,
        has_amounts=bool(c.amounts),
        priced=any(v > 0 for v in c.amounts),
        number=c.line_number,
        explicit=cols.explicit,
        after_break=after_break,
    )


def _per_rack(c: RowCells, qty: float, out: SheetResult) -> tuple[str, float, float | None, float]:
    """(basis, quantity, extended, quantity per rack) of a row of a per-rack BoM: multiplied out by the row's racks
    (its extended too, when it is per rack), else left per rack for the racks the quote states."""
    total_qty, racks, ext = c.total_qty, c.racks, c.ext
    if racks is not None and racks.is_integer() and racks >= 1:
        out.racks[int(racks)] += 1
    if total_qty is not None:
        return "total", total_qty, ext, qty
    if racks is None or racks <= 0:
        return "per_rack", qty, ext, qty
    if ext is not None and c.unit is not None and abs(ext - c.unit * qty) < abs(ext - c.unit * qty * racks):
        ext = ext * racks  # the extended is per rack
    return "total", qty * racks, ext, qty


def _quantities(
    c: RowCells, cols: Columns, out: SheetResult
) -> tuple[str, float | None, float, float | None, float | None]:
    """(basis, total quantity, quantity, extended, quantity per rack) of an item row.

    Per-server columns keep the per-server quantity with the order's total beside it; a per-rack BoM is
    multiplied out to the order (its extended too, when it is per rack) when the row gives its racks.
    """
    qty, total_qty, nodes, ext = c.qty, c.total_qty, c.nodes, c.ext
    basis, total, per_rack = "total", None, None
    if cols.has_per_server and qty is not None:
        basis = "per_server"
        total = total_qty if total_qty is not None else (qty * nodes if nodes is not None else None)
        if total_qty is not None and qty > 0:
            out.ratios[round(total_qty / qty, 6)] += 1
    elif "nodes" in cols.roles and qty is not None and nodes is not None:
        basis, total = "per_server", qty * nodes
    elif cols.per_rack and qty is not None:
        basis, qty, ext, per_rack = _per_rack(c, qty, out)
    if nodes is not None and nodes.is_integer() and nodes >= 1 and basis == "per_server":
        out.nodes[int(nodes)] += 1
    quantity = qty if qty is not None else (total_qty if total_qty is not None else 1.0)
    return basis, total, quantity, ext, per_rack


# --- the quote --------------------------------------------------------------------------------------------------------


def _tables(
    sheets: Sequence[tuple[str, list[list[Cell]]]], label: str, skipped: Counter[str], statements: list[str],
    rates: list[StatedRate],
) -> list[tuple[str, SheetResult]]:  # fmt: skip
    """Step 1–4 on every sheet: the tables read (where, result); the text of sheets without a table goes to
    ``statements`` (the rates it states to ``rates``). QuoteError when no sheet holds a priced table."""
    results: list[tuple[str, SheetResult]] = []
    no_price: list[str] = []
    for sheet, rows in sheets:
        header = find_table_header(rows)
        where = f"{label}, sheet {sheet!r}" if sheet else label
        if header is None:
            skipped["sheet without a quote table"] += 1 if sheet else 0
            statements += [t for t in map(row_text, rows[:200]) if t]
            rates += [r for i, row in enumerate(rows[:200]) for r in stated_rates(row_text(row), sheet, i + 1)]
            continue
        if not any(r in header.roles for r in PRICE_ROLES):
            no_price.append(where)
            continue
        results.append((where, read_table(rows, header, sheet, where)))
    if not results:
        if no_price:
            raise QuoteError(f"{no_price[0]}: no price column (unit price or extended price) in the header row")
        raise QuoteError(
            f"{label}: no header row (description or part number, quantity, price) in the first "
            f"{HEADER_SCAN_ROWS} rows{' of any sheet' if len(sheets) > 1 else ''}"
        )
    return results


def _counted(results: Sequence[tuple[str, SheetResult]], name: str) -> Counter[Any]:
    """The sheets' counters of ``name`` (nodes, racks, ratios, cell or header currencies) added up."""
    out: Counter[Any] = Counter()
    for _, r in results:
        out.update(getattr(r, name))
    return out


def parse_sheets(
    sheets: Sequence[tuple[str, list[list[Cell]]]],
    label: str,
    notes: Sequence[str] = (),
    currency_code: str | None = None,
) -> ParsedQuote:
    """Every sheet's table read into lines (steps 1–5); the quote's currency (``currency_code`` when the user gives
    it), stated counts, options and totals."""
    warnings: list[str] = list(notes)
    skipped: Counter[str] = Counter()
    global_statements: list[str] = []
    rates: list[StatedRate] = []
    card = read_rate_card(sheets)
    if card is not None:
        return _rate_card_quote(label, sheets, card, currency_code, warnings)
    results = _tables(sheets, label, skipped, global_statements, rates)
    global_statements += _drop_summaries(results, skipped)
    for _where, result in results:
        skipped.update(result.skipped)
        warnings += result.warnings
    all_statements = global_statements + [s for _, r in results for s in r.statements]
    options = find_options(results, all_statements)
    servers = servers_stated(all_statements, _counted(results, "nodes"), _counted(results, "ratios"))
    lines, totals, per_server = _per_server_and_totals(results, global_statements, servers, warnings)
    if not any(ln.unit_price is not None or ln.extended is not None for ln in lines):
        raise QuoteError(f"{label}: the quote table has no priced lines")
    texts = all_statements + [h for _, r in results for h in r.headers] + [ln.description for ln in lines[:400]]
    reading = _quote_currency(label, results, all_statements, texts, warnings, currency_code)
    lines = _line_currencies(lines, reading, currency_code, label, all_statements, texts)
    date, date_from = quote_date(all_statements)
    return ParsedQuote(
        name=label,
        lines=tuple(lines),
        skipped=dict(skipped),
        warnings=tuple(warnings),
        sheets=tuple(r.sheet for _, r in results),
        currency=reading.code,
        currency_from=reading.evidence,
        currencies=reading.currencies,
        currencies_seen=reading.seen,
        rates=tuple(rates + [r for _, res in results for r in res.rates]),
        date=date,
        date_from=date_from,
        servers_stated=servers,
        per_server=per_server,
        notes=tuple(s[:200] for s in all_statements[:100]),
        options=options,
        totals=tuple(totals),
        racks_stated=racks_stated(all_statements, _counted(results, "racks")),
    )


_parse_sheets = parse_sheets  # the name read.py used


def _rate_card_quote(
    label: str, sheets: Sequence[tuple[str, list[list[Cell]]]], card: RateCard, user: str | None,
    warnings: list[str],
) -> ParsedQuote:  # fmt: skip
    """A rate card as a parsed quote without lines: its rates, its currency (the user's when given), its date."""
    statements = [t for _, rows in sheets for t in map(row_text, rows[:HEADER_SCAN_ROWS]) if t]
    date, date_from = quote_date(statements)
    return ParsedQuote(
        name=label,
        lines=(),
        skipped={},
        warnings=tuple(warnings),
        sheets=tuple(dict.fromkeys(r.sheet for r in card.rates)),
        currency=user or card.currency,
        currency_from="you (--currency)" if user else "the rate card",
        notes=tuple(s[:200] for s in statements[:100]),
        date=date,
        date_from=date_from,
        rate_card=card,
    )


def _quote_currency(
    label: str, results: Sequence[tuple[str, SheetResult]], statements: Sequence[str], texts: Sequence[str],
    warnings: list[str], user: str | None,
) -> CurrencyReading:  # fmt: skip
    """The quote's currency: the user's (lines marked in the currency the document uses most become the user's),
    else as the document says it (:func:`neoplan.quote.statements.currency`)."""
    cells, headers = _counted(results, "cell_currencies"), _counted(results, "header_currencies")
    if user is not None:
        main = cells.most_common(1)[0][0] if cells else user
        several = tuple(sorted({user, *(c for c in cells if c != main)})) if len(cells) > 1 else ()
        said = {c for s in statements for c in money_currencies(s)}
        seen = {*cells, *headers, *_counted(results, "total_currencies"), *said} - {AMBIGUOUS_YEN}
        return CurrencyReading(user, "you (--currency)", several, tuple(sorted(seen)))
    return currency(label, cells, headers, statements, texts, warnings, _counted(results, "total_currencies"))


def _line_currencies(
    lines: list[RawLine], reading: CurrencyReading, user: str | None, label: str, statements: Sequence[str],
    texts: Sequence[str],
) -> list[RawLine]:  # fmt: skip
    """Each line's own currency as an ISO code ("" or the quote's code: the quote's): a ¥ resolved; with
    the user's currency, the marks of the currency the lines use most become the user's."""
    marks = Counter(ln.currency for ln in lines if ln.currency)
    main = marks.most_common(1)[0][0] if marks else ""
    if user is None and AMBIGUOUS_YEN not in marks and set(marks) <= {reading.code}:
        return lines  # one currency, the quote's: every mark already says it
    yen = reading.code if reading.code in ("CNY", "JPY") else None
    out = []
    for ln in lines:
        code = ln.currency
        if code == AMBIGUOUS_YEN:
            code = yen or resolve_yen(label, statements, texts)
        if (user is not None and ln.currency == main) or code == reading.code:
            code = ""
        out.append(ln if code == ln.currency else replace(ln, currency=code))
    return out


def _drop_summaries(results: list[tuple[str, SheetResult]], skipped: Counter[str]) -> list[str]:
    """Remove summary sheets (section totals, not items) from ``results``; their statements, for context."""
    summaries = [r for r in results if _is_summary(r[1], [o[1] for o in results if o is not r])]
    statements: list[str] = []
    for summary in summaries if len(summaries) < len(results) else []:
        results.remove(summary)
        skipped["summary sheet"] += 1
        statements += summary[1].statements
    return statements


def _is_summary(result: SheetResult, others: Sequence[SheetResult]) -> bool:
    """True for a summary sheet: no quantity column, and every line names another sheet or carries its total."""
    import re

    if result.has_quantity or not result.lines or not others:
        return False
    names = [re.compile(rf"\b{re.escape(o.sheet.lower())}\b") for o in others if o.sheet.strip()]
    totals = [t for o in others for t in (sum(map(line_total, o.lines)), *(s.amount for s in o.totals))]

    def accounted(line: RawLine) -> bool:
        text = f"{line.part_number} {line.description} {line.section}".lower()
        return any(n.search(text) for n in names) or any(_close(line_total(line), t) for t in totals if t)

    return all(map(accounted, result.lines))


def find_options(results: Sequence[tuple[str, SheetResult]], statements: Sequence[str]) -> tuple[str, ...]:
    """Mark each line with its option (step 5, see :mod:`neoplan.quote.sections`); the options' labels in order."""
    for _, r in results:
        named = option_label(r.sheet) if r.sheet else None
        titled = next((label for t in r.titles if (label := option_label(t))), None)
        by_section = options_by_section(r.lines, r.totals)
        if named or not any(ln.option for ln in by_section):
            label = named or titled
            r.lines[:] = [replace(ln, option=label) for ln in r.lines] if label else by_section
        else:  # option sections; a title above the header names the option the table starts with
            first = next(k for k, ln in enumerate(by_section) if ln.option)
            head = [replace(ln, option=titled) for ln in by_section[:first]] if titled else by_section[:first]
            r.lines[:] = head + by_section[first:]
    labels = list(dict.fromkeys(ln.option for _, r in results for ln in r.lines if ln.option))
    if len(labels) < 2 and says_select_one(statements):
        labels = _select_one(results)
    if len(labels) < 2:
        for _, r in results:
            r.lines[:] = [replace(ln, option="") if ln.option else ln for ln in r.lines]
        return ()
    return tuple(labels[:MAX_OPTIONS])


def _select_one(results: Sequence[tuple[str, SheetResult]]) -> list[str]:
    """Options of a quote that says "select one": sheets, else sections of a sheet, each with its own total."""
    priced = [r for _, r in results if r.totals and any(GPU_WORDS.search(ln.description) for ln in r.lines)]
    if len(priced) >= 2:
        labels = distinct([r.sheet or f"Table {k}" for k, r in enumerate(priced, start=1)])
        for r, name in zip(priced, labels, strict=True):
            r.lines[:] = [replace(ln, option=name) for ln in r.lines]
        return labels
    for _, r in results:
        sections = [
            s
            for s in sections_with_totals(r.lines, r.totals)
            if any(ln.section == s and GPU_WORDS.search(ln.description) for ln in r.lines)
        ]
        if len(sections) >= 2:
            names = dict(zip(sections, distinct(sections), strict=True))
            r.lines[:] = [replace(ln, option=names[ln.section]) if ln.section in names else ln for ln in r.lines]
            return list(names.values())
    return []


def _per_server_and_totals(
    results: Sequence[tuple[str, SheetResult]], global_statements: Sequence[str], servers: int | None,
    warnings: list[str],
) -> tuple[list[RawLine], list[StatedTotal], bool]:  # fmt: skip
    """All lines (per-server where the text says so), every stated total checked, and the per-server flag."""
    lines: list[RawLine] = []
    totals: list[StatedTotal] = []
    per_server = False
    global_per_server = says_per_server(global_statements)
    for where, result in results:
        sheet_per_server = global_per_server or says_per_server(result.statements)
        if sheet_per_server:
            result.lines[:] = [
                replace(ln, quantity_basis="per_server") if ln.quantity_basis == "total" else ln for ln in result.lines
            ]
        per_server = per_server or sheet_per_server or result.per_server_columns
        before = list(lines)
        lines += result.lines
        totals += check_totals(result, before, servers, where, warnings)
    return lines, totals, per_server


# --- stated totals ----------------------------------------------------------------------------------------------------


def line_total(line: RawLine) -> float:
    """What the quote charges for the line as quoted [the quote's currency]: extended, else quantity × unit."""
    if line.extended is not None:
        return line.extended
    if line.quantity_basis == "per_parent":
        return 0.0
    return line.quantity * (line.unit_price or 0.0)


_line_total = line_total


def _close(a: float, b: float, share: float = 0.005) -> bool:
    """Equal within ``share`` or a unit of currency."""
    return abs(a - b) <= max(1.0, share * abs(a))


def rounding(lines: Sequence[RawLine]) -> float:
    """How far a sum of ``lines`` may be off a stated total by rounding alone [currency]: the smallest amount the
    lines write (a cent, or a whole unit when they write no decimals: yen) per line, half of it per unit of a line
    without an extended price; at least 1."""
    amounts = [v for ln in lines for v in (ln.extended, ln.unit_price) if v is not None]
    step = 0.01 if any(not float(v).is_integer() for v in amounts) else 1.0
    return max(1.0, sum(step + (step / 2 * abs(ln.quantity) if ln.extended is None else 0.0) for ln in lines))


def _sums(
    t: StatedTotal,
    result: SheetResult,
    before: Sequence[RawLine],
    previous_row: int,
    subtotals: Sequence[float],
    factors: Sequence[int],
) -> list[tuple[float, list[RawLine]]]:
    """The sums a stated total can be, each with its lines: its section, the sheet so far, the quote so far, the
    option, the whole sheet (× the servers of a per-server quote), the subtotals above it; each with or without the
    charges (tax, freight) above it."""
    above = [ln for ln in result.lines if ln.row < t.row]
    groups = [
        [ln for ln in above if ln.row > previous_row],
        above,
        [*before, *above],
        [ln for ln in above if ln.option and ln.option == (above[-1].option if above else "")],
        list(result.lines),
    ]
    sums = [(sum(map(line_total, g)) * k, g) for g in groups if g for k in factors]
    if subtotals:
        sums.append((sum(subtotals), groups[1]))
    charges = sum(a for row, a in result.charges if row < t.row)
    if charges:
        sums += [(s + charges, g) for s, g in sums]
    return sums


def _checked(
    t: StatedTotal, sums: Sequence[tuple[float, list[RawLine]]], option: str, factors: Sequence[int], where: str,
    warnings: list[str],
) -> StatedTotal:  # fmt: skip
    """The total as checked against its possible ``sums``: equal to one, else warned and ``off`` when near one."""
    if any(abs(t.amount - s) <= rounding(g) * k for s, g in sums for k in factors):
        return replace(t, computed=t.amount, option=option)
    nearest, group = min(sums, key=lambda sg: abs(t.amount - sg[0]))
    off = abs(t.amount - nearest) <= _NEAR_TOTAL * max(abs(nearest), 1.0)
    warnings.append(
        f"{where}: the quote's total ({t.amount:,.2f}, row {t.row}) differs from the sum of its lines ({nearest:,.2f})"
    )
    lines = tuple((ln.sheet, ln.row) for ln in group) if off else ()
    return replace(t, computed=nearest, off=off, option=option, lines=lines)


def check_totals(
    result: SheetResult, before: Sequence[RawLine], servers: int | None, where: str, warnings: list[str]
) -> list[StatedTotal]:
    """The sheet's stated totals checked against the sums they can be (their section, the sheet so far, the quote
    so far, the option, the subtotals stated above them; × the servers of a per-server quote).

    A total off every sum by more than rounding is warned; it is ``off`` (a finding) when it is within
    :data:`_NEAR_TOTAL` of one of them.
    """
    out: list[StatedTotal] = []
    previous_row = 0
    subtotals: list[float] = []
    factors = (1, servers) if servers and servers > 1 else (1,)
    for t in sorted(result.totals, key=lambda t: t.row):
        sums = _sums(t, result, before, previous_row, subtotals, factors)
        previous_row = t.row
        if not sums:
            out.append(t)
            continue
        above = [ln for ln in result.lines if ln.row < t.row]
        checked = _checked(t, sums, above[-1].option if above else "", factors, where, warnings)
        subtotals.append(t.amount)
        out.append(checked)
    return out
