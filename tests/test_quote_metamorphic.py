"""Metamorphic tests of quote review: the same quote written differently gives the same review (issue 11).

Each transformation rewrites a corpus quote (tests/quote_corpus/) the way the same vendor or a user could have
written it: item blocks shuffled (a Dell system line keeps its configuration rows, a wrapped description keeps
its continuation rows), header synonyms, CSV opened and saved as XLSX, XLSX saved as CSV, several sheets merged
into one, one sheet split over pages, per-server quantities multiplied out to totals and back. The findings (set
of codes), GPUs, servers and GPU model must not change; the findings' savings agree within 1 %. Transformed
files are written to ``tmp_path`` only.
"""

from __future__ import annotations

import csv
import io
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from openpyxl.styles import Alignment, Font
from test_quote_corpus import BY_FILE, CORPUS, FILES, corpus_money, csv_text, parse_rows, reviewed

SAVING_TOLERANCE = 0.01


@dataclass(frozen=True)
class C:
    """A cell with what a spreadsheet shows of it."""

    value: Any
    indent: float = 0.0
    bold: bool = False
    fmt: str = "General"


Rows = list[list[C]]
Book = list[tuple[str, Rows]]


@dataclass(frozen=True)
class Variant:
    """A transformed quote: its bytes, file name and the servers the user types."""

    data: bytes
    name: str
    servers_quoted: int | None


# ---------------------------------------------------------------- reading and writing


def read_book(name: str) -> Book:
    entry = BY_FILE[name]
    data = (CORPUS / name).read_bytes()
    if name.endswith(".csv"):
        text = csv_text(name)
        rows = [[C(v) for v in r] for r in csv.reader(io.StringIO(text), delimiter=entry["delimiter"])]
        return [("", _pad(rows))]
    wb = openpyxl.load_workbook(io.BytesIO(data), data_only=True)  # formulas as their cached values
    book: Book = []
    for ws in wb.worksheets:
        rows = [
            [C(c.value, float(c.alignment.indent or 0), bool(c.font.bold), c.number_format) for c in r]
            for r in ws.iter_rows()
        ]
        book.append((ws.title, _pad(rows)))
    return book


def _pad(rows: Rows) -> Rows:
    width = max((len(r) for r in rows), default=0)
    return [r + [C(None)] * (width - len(r)) for r in rows]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.2f}"
    return str(value)


def write_csv(book: Book, delimiter: str = ",", bom: bool = False, encoding: str = "utf-8") -> bytes:
    """All sheets into one CSV, a blank row between sheets."""
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter, lineterminator="\r\n")
    for i, (_sheet, rows) in enumerate(book):
        if i:
            w.writerow([])
        for r in rows:
            w.writerow([_text(c.value) for c in r])
    return (("\ufeff" if bom else "") + buf.getvalue()).encode(encoding)


def hidden_sheets(name: str) -> set[str]:
    """Names of the sheets a corpus workbook hides from its reader."""
    if not name.endswith(".xlsx"):
        return set()
    wb = openpyxl.load_workbook(CORPUS / name, read_only=True)
    try:
        return {ws.title for ws in wb.worksheets if ws.sheet_state != "visible"}
    finally:
        wb.close()


def write_xlsx(book: Book, hidden: set[str] | frozenset[str] = frozenset()) -> bytes:
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for sheet, rows in book:
        ws = wb.create_sheet(sheet or "Sheet1")
        if sheet in hidden:
            ws.sheet_state = "hidden"
        for r, row in enumerate(rows, start=1):
            for c, cell in enumerate(row, start=1):
                if cell.value is None or cell.value == "":
                    continue
                out = ws.cell(row=r, column=c, value=cell.value)
                out.number_format = cell.fmt
                if cell.bold:
                    out.font = Font(bold=True)
                if cell.indent:
                    out.alignment = Alignment(indent=cell.indent)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def save(book: Book, name: str, servers_quoted: int | None, tmp_path: Path, *, as_csv: bool | None = None) -> Variant:
    entry = BY_FILE[name]
    csv_out = name.endswith(".csv") if as_csv is None else as_csv
    stem = Path(name).stem + "_variant"
    if csv_out:
        out_name = stem + ".csv"
        bom = (CORPUS / name).read_bytes().startswith(b"\xef\xbb\xbf")
        data = write_csv(book, entry["delimiter"] or ",", bom=bom, encoding=entry["encoding"] or "utf-8")
    else:
        out_name = stem + ".xlsx"
        data = write_xlsx(book, hidden_sheets(name))
    (tmp_path / out_name).write_bytes(data)
    return Variant((tmp_path / out_name).read_bytes(), out_name, servers_quoted)


# ---------------------------------------------------------------- the quote's structure (from expected.yaml)


def blocks(name: str, sheet: str) -> list[list[int]]:
    """Item blocks of a sheet (1-based rows): a priced row and the unpriced ("", "incl.") or indented rows below it."""
    lay = BY_FILE[name]["layout"][sheet]
    rows = dict(read_book(name))[sheet]
    out: list[list[int]] = []
    for r in parse_rows(lay["item_rows"]):
        price = rows[r - 1][lay["price_col"]].value
        indented = any(c.indent or str(c.value or "").startswith("  ") for c in rows[r - 1])
        unpriced = not re.search(r"\d", str(price if price is not None else ""))  # blank, "incl.", "Included"
        if out and r == out[-1][-1] + 1 and (unpriced or indented):
            out[-1].append(r)
        else:
            out.append([r])
    return out


def runs(bl: list[list[int]]) -> list[list[list[int]]]:
    """Blocks grouped into runs of adjacent rows (section headings and subtotals end a run)."""
    out: list[list[list[int]]] = []
    for b in bl:
        if out and b[0] == out[-1][-1][-1] + 1:
            out[-1].append(b)
        else:
            out.append([b])
    return out


# ---------------------------------------------------------------- transformations


def shuffle_blocks(name: str, seed: int) -> Book:
    rng = random.Random(seed)
    book = read_book(name)
    out: Book = []
    moved = False
    for sheet, rows in book:
        rows = list(rows)
        if sheet in BY_FILE[name]["layout"]:
            for run in runs(blocks(name, sheet)):
                if len(run) < 2:
                    continue
                order = list(run)
                while order == run:
                    rng.shuffle(order)
                start = run[0][0]
                new = [rows[r - 1] for b in order for r in b]
                rows[start - 1 : start - 1 + len(new)] = new
                moved = True
        out.append((sheet, rows))
    assert moved, f"{name}: nothing to shuffle"
    return out


SYNONYMS = {
    "qty": "Quantity",
    "quantity": "Qty",
    "unit price": "Price Each",
    "price each": "Unit Price",
    "description": "Item Description",
    "product description": "Description",
    "ext. price": "Extended Price",
    "extended price": "Ext. Price",
    "part number": "Part #",
    "part no.": "Part Number",
    "mfr part no": "Manufacturer Part Number",
    "manufacturer part #": "Mfr. Part No.",
    "sell": "Unit Price",
    "ext sell": "Extended Price",
    "subtotal": "Extended Price",
    "sku": "Part Number",
    "product #": "Part Number",
    "line total": "Total Price",
    "total price": "Line Total",
    "unit price (usd)": "Price Each (USD)",
    "extended (usd)": "Ext. Price (USD)",
    "line": "Ln",
    "item": "Line #",
}


def replace_headers(name: str, names: dict[str, str], minimum: int) -> Book:
    """The corpus file with the header cells found in ``names`` (lower case, single spaces) replaced."""
    out: Book = []
    changed = 0
    for sheet, rows in read_book(name):
        rows = [list(r) for r in rows]
        lay = BY_FILE[name]["layout"].get(sheet)
        if lay:
            header = rows[lay["header_row"] - 1]
            for i, cell in enumerate(header):
                new = names.get(" ".join(str(cell.value or "").lower().split()))
                if new:
                    header[i] = replace(cell, value=new)
                    changed += 1
        out.append((sheet, rows))
    assert changed >= minimum, f"{name}: fewer than {minimum} header names to replace"
    return out


def rename_headers(name: str) -> Book:
    return replace_headers(name, SYNONYMS, 2)


MONEY_TEXT = re.compile(r"^\(?-?\$\s?[\d,]+\.\d{2}\)?$")


def excel_opened(name: str) -> Book:
    """A CSV opened in Excel and saved as XLSX: whole numbers and US-dollar amounts become numbers."""
    ((_, rows),) = read_book(name)
    out: Rows = []
    for r in rows:
        new = []
        for c in r:
            text = str(c.value or "").strip()
            if re.fullmatch(r"\d+", text):
                new.append(C(int(text)))
            elif MONEY_TEXT.match(text):
                new.append(C(corpus_money(text), fmt='"$"#,##0.00_);("$"#,##0.00)'))
            else:
                new.append(C(text or None))
        out.append(new)
    return [("Quote", out)]


def as_text_sheet(name: str) -> Book:
    """A CSV imported into a workbook as text (every cell a string)."""
    ((_, rows),) = read_book(name)
    return [("Imported", rows)]


def merge_sheets(name: str) -> Book:
    """Several sheets pasted into the first, under its header: item regions in order, the last totals at the end.

    Sheets without a table of items (terms, a summary of section totals) are left out, as one would when pasting.
    """
    book = read_book(name)
    layout = BY_FILE[name]["layout"]
    tables = [(s, rows) for s, rows in book if s in layout]
    assert len(tables) >= 2
    merged: Rows = []
    for i, (sheet, rows) in enumerate(tables):
        lay = layout[sheet]
        last = max(parse_rows(lay["item_rows"]))
        start = 0 if i == 0 else lay["header_row"]
        end = len(rows) if i == len(tables) - 1 else last
        merged.extend(rows[start:end])
    return [(tables[0][0], _pad(merged))]


def split_sheet(name: str) -> Book:
    """One sheet split over two pages in the middle of its items; the second page repeats title and header."""
    book = read_book(name)
    ((sheet, rows),) = [(s, rows) for s, rows in book if s in BY_FILE[name]["layout"]]
    lay = BY_FILE[name]["layout"][sheet]
    bl = blocks(name, sheet)
    assert len(bl) >= 4
    cut = bl[len(bl) // 2][0]
    first = rows[: cut - 1]
    second = rows[: lay["header_row"]] + rows[cut - 1 :]
    return [("Page 1", first), ("Page 2", second), *((s, r) for s, r in book if s != sheet)]


def _same_style(original: Any, value: float) -> Any:
    """``value`` written the way ``original`` was (number, $1.00, $ 1.00, ($1.00), 1.000,00 €, £1.00, 1,000.00)."""
    if not isinstance(original, str):
        return value
    text = original.strip()
    if "€" in text:
        s = ("-" if value < 0 else "") + f"{abs(value):,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")
        return "€ " + s if text.startswith("€") else s + " €"
    if text.startswith("£") or text.startswith("-£"):
        return f"-£{-value:,.2f}" if value < 0 else f"£{value:,.2f}"
    if "$ " in text:
        return f"-$ {-value:,.2f}" if value < 0 else f"$ {value:,.2f}"
    if "$" in text:
        return f"(${-value:,.2f})" if value < 0 else f"${value:,.2f}"
    return f"{value:,.2f}"


def scale_items(rows: Rows, lay: dict[str, Any], factor: int) -> Rows:
    rows = [list(r) for r in rows]
    for r in parse_rows(lay["item_rows"]):
        row = rows[r - 1]
        qty = row[lay["qty_col"]].value
        if qty not in (None, "") and re.fullmatch(r"\d+(\.0+)?", str(qty).strip()):
            q = int(float(qty)) * factor
            row[lay["qty_col"]] = replace(row[lay["qty_col"]], value=q if not isinstance(qty, str) else str(q))
        ext = row[lay["ext_col"]].value
        amount = corpus_money(ext)
        if amount is not None:
            row[lay["ext_col"]] = replace(row[lay["ext_col"]], value=_same_style(ext, amount * factor))
    return rows


PER_COPY = re.compile(r"per (node|server)|configuration quantity|total for \d+ nodes", re.I)


def per_server_to_total(name: str) -> tuple[Book, int]:
    """A per-server quote with its quantities and extended prices multiplied out to the whole cluster.

    Title lines that say the quote is per server go ("quantities below are for the whole cluster" instead); a
    "Total per node" row becomes "Total" of the cluster; a "Total for N nodes" row goes.
    """
    entry = BY_FILE[name]
    n = entry["per_server_copies"]
    ((sheet, rows),) = read_book(name)
    lay = entry["layout"][sheet]
    items = set(parse_rows(lay["item_rows"]))
    rows = scale_items(rows, lay, n)
    for i, r in enumerate(rows, start=1):
        text = " ".join(str(c.value) for c in r if c.value not in (None, ""))
        if i in items or not PER_COPY.search(text):
            continue
        width = len(r)
        if i == lay["header_row"]:
            rows[i - 1] = [
                replace(c, value=re.sub(r"\s*per (node|server)", "", str(c.value), flags=re.I))
                if isinstance(c.value, str)
                else c
                for c in r
            ]
        elif i < lay["header_row"]:
            rows[i - 1] = [C("Quantities below are for the whole cluster")] + [C(None)] * (width - 1)
        elif re.search(r"total for", text, re.I):
            rows[i - 1] = [C(None)] * width
        else:
            new = []
            for c in r:
                amount = corpus_money(c.value) if not re.search(r"[a-z]", str(c.value or ""), re.I) else None
                if amount is not None:
                    new.append(replace(c, value=_same_style(c.value, amount * n)))
                elif c.value not in (None, ""):
                    new.append(replace(c, value="Total"))
                else:
                    new.append(c)
            rows[i - 1] = new
    return [(sheet, rows)], n


def columns_to_total(name: str) -> Book:
    """Qty/Node and Nodes columns (ODM) or Qty/Server and Total Qty (Lenovo) become one total quantity column."""
    entry = BY_FILE[name]
    ((sheet, rows),) = read_book(name)
    lay = entry["layout"][sheet]
    header = [str(c.value or "").strip().lower() for c in rows[lay["header_row"] - 1]]
    items = set(parse_rows(lay["item_rows"]))
    if "nodes" in header:
        per, nodes = header.index("qty/node"), header.index("nodes")
        out = []
        for i, r in enumerate(rows, start=1):
            r = list(r)
            if i == lay["header_row"]:
                r[per] = replace(r[per], value="Qty")
            elif i in items and str(r[per].value or "").strip():
                r[per] = replace(r[per], value=int(float(r[per].value)) * int(float(r[nodes].value)))
            del r[nodes]
            out.append(r)
        return [(sheet, out)]
    assert "total qty" in header
    per = header.index("qty/server")
    return [(sheet, [[c for i, c in enumerate(r) if i != per] for r in rows])]


def total_to_per_node(name: str) -> Book:
    """Lenovo Qty/Server + Total Qty → per-node quantities and prices with 'Configuration quantity: N nodes'."""
    entry = BY_FILE[name]
    ((sheet, rows),) = read_book(name)
    lay = entry["layout"][sheet]
    header = [str(c.value or "").strip().lower() for c in rows[lay["header_row"] - 1]]
    per, total = header.index("qty/server"), header.index("total qty")
    unit, ext = lay["price_col"], lay["ext_col"]
    items = set(parse_rows(lay["item_rows"]))
    servers = entry["expect"]["servers"]
    out: Rows = [[C(f"Configuration quantity: {servers} nodes")], [C("All prices per node, USD")]]
    for i, r in enumerate(rows, start=1):
        r = list(r)
        if i in items:
            q = r[per].value
            price = corpus_money(r[unit].value)
            if price is not None and q not in (None, ""):
                r[ext] = replace(r[ext], value=round(price * float(q), 2))
        elif i > lay["header_row"]:
            r = [C(None)] * len(r)
        del r[total]
        out.append(r)
    return [(sheet, _pad(out))]


# ---------------------------------------------------------------- comparing reviews


def summary(review: Any) -> dict[str, Any]:
    savings: dict[str, float] = {}
    for f in review.findings:
        savings[f.code] = savings.get(f.code, 0.0) + f.saving_usd
    return {
        "codes": {f.code for f in review.findings},
        "gpus": review.gpus,
        "servers": review.servers,
        "gpu_model": review.gpu_model,
        "savings": savings,
    }


def assert_same_review(name: str, variant: Variant) -> None:
    from neoplan.quote import read_quote, review_quote

    entry = BY_FILE[name]
    want = summary(reviewed(name))
    got_review = review_quote(
        read_quote(variant.data, variant.name), variant.servers_quoted, usd_per_unit=entry["usd_per_unit"]
    )
    got = summary(got_review)
    for key in ("codes", "gpus", "servers", "gpu_model"):
        assert got[key] == want[key], f"{variant.name}: {key} {got[key]!r} != {want[key]!r}"
    for code, saving in want["savings"].items():
        other = got["savings"][code]
        assert abs(other - saving) <= SAVING_TOLERANCE * max(abs(saving), abs(other)) + 1.0, (
            f"{variant.name}: {code} saves {other:,.0f} instead of {saving:,.0f}"
        )


# ---------------------------------------------------------------- the tests

CSV_FILES = [f for f in FILES if f.endswith(".csv")]
XLSX_FILES = [f for f in FILES if f.endswith(".xlsx")]
MULTI_SHEET = [f for f in XLSX_FILES if len(BY_FILE[f]["layout"]) >= 2 and not BY_FILE[f]["expect"].get("options")]
# (sheets that are alternatives are not pasted into one: test_options_* below write them as sections instead)
SINGLE_SHEET = [f for f in FILES if len(BY_FILE[f]["layout"]) == 1]
PER_SERVER = [f for f in FILES if BY_FILE[f]["per_server_copies"] > 1]
USD_CSV = [f for f in CSV_FILES if BY_FILE[f]["expect"]["currency"] == "USD"]


def _has_synonyms(name: str) -> bool:
    try:
        rename_headers(name)
    except AssertionError:
        return False
    return True


def _shuffles(name: str) -> bool:
    """Whether some run of adjacent item blocks has two blocks or more to reorder."""
    return any(len(run) >= 2 for sheet in BY_FILE[name]["layout"] for run in runs(blocks(name, sheet)))


SHUFFLED = [f for f in FILES if _shuffles(f)]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", SHUFFLED)
def test_shuffled_item_blocks(name: str, seed: int, tmp_path: Path) -> None:
    assert_same_review(name, save(shuffle_blocks(name, seed), name, BY_FILE[name]["servers_quoted"], tmp_path))


@pytest.mark.parametrize("name", [f for f in FILES if _has_synonyms(f)])
def test_renamed_headers(name: str, tmp_path: Path) -> None:
    assert_same_review(name, save(rename_headers(name), name, BY_FILE[name]["servers_quoted"], tmp_path))


@pytest.mark.parametrize("name", CSV_FILES)
def test_csv_imported_as_text_into_xlsx(name: str, tmp_path: Path) -> None:
    variant = save(as_text_sheet(name), name, BY_FILE[name]["servers_quoted"], tmp_path, as_csv=False)
    assert_same_review(name, variant)


@pytest.mark.parametrize("name", USD_CSV)
def test_csv_opened_and_saved_by_excel(name: str, tmp_path: Path) -> None:
    variant = save(excel_opened(name), name, BY_FILE[name]["servers_quoted"], tmp_path, as_csv=False)
    assert_same_review(name, variant)


@pytest.mark.parametrize("name", [f for f in XLSX_FILES if len(BY_FILE[f]["layout"]) < 2])
def test_xlsx_saved_as_csv(name: str, tmp_path: Path) -> None:
    book = [(s, rows) for s, rows in read_book(name) if s in BY_FILE[name]["layout"]]
    variant = save(book, name, BY_FILE[name]["servers_quoted"], tmp_path, as_csv=True)
    assert_same_review(name, variant)


@pytest.mark.parametrize("as_csv", [False, True])
@pytest.mark.parametrize("name", MULTI_SHEET)
def test_several_sheets_merged_into_one(name: str, as_csv: bool, tmp_path: Path) -> None:
    variant = save(merge_sheets(name), name, BY_FILE[name]["servers_quoted"], tmp_path, as_csv=as_csv)
    assert_same_review(name, variant)


@pytest.mark.parametrize("name", [f for f in SINGLE_SHEET if len(blocks(f, next(iter(BY_FILE[f]["layout"])))) >= 4])
def test_one_sheet_split_over_two(name: str, tmp_path: Path) -> None:
    variant = save(split_sheet(name), name, BY_FILE[name]["servers_quoted"], tmp_path, as_csv=False)
    assert_same_review(name, variant)


@pytest.mark.parametrize("name", PER_SERVER)
def test_per_server_quantities_multiplied_out(name: str, tmp_path: Path) -> None:
    book, _n = per_server_to_total(name)
    assert_same_review(name, save(book, name, None, tmp_path))


@pytest.mark.parametrize("name", ["odm_bom_h200_128.csv", "odm_bom_b200_256.xlsx", "lenovo_sr680a_h200_16.xlsx"])
def test_per_node_columns_as_one_total_column(name: str, tmp_path: Path) -> None:
    assert_same_review(name, save(columns_to_total(name), name, BY_FILE[name]["servers_quoted"], tmp_path))


def test_total_quantities_as_per_node(tmp_path: Path) -> None:
    name = "lenovo_sr680a_h200_16.xlsx"
    assert_same_review(name, save(total_to_per_node(name), name, None, tmp_path))


# ---------------------------------------------------------------- options and languages (issue 22)

OPTION_FILES = [f for f in FILES if BY_FILE[f]["expect"].get("options")]
OPTION_SHEETS = [f for f in OPTION_FILES if len(BY_FILE[f]["layout"]) >= 2]


def review_of(variant: Variant, entry: dict[str, Any], option: int | None = None) -> Any:
    from neoplan.quote import read_quote, review_quote

    parsed_variant = read_quote(variant.data, variant.name)
    return review_quote(parsed_variant, variant.servers_quoted, usd_per_unit=entry["usd_per_unit"], option=option)


def assert_same(a: Any, b: Any, what: str) -> None:
    x, y = summary(a), summary(b)
    for key in ("codes", "gpus", "servers", "gpu_model"):
        assert x[key] == y[key], f"{what}: {key} {x[key]!r} != {y[key]!r}"
    for code, saving in x["savings"].items():
        assert abs(y["savings"][code] - saving) <= SAVING_TOLERANCE * abs(saving) + 1.0, (what, code)


def options_as_sections(name: str) -> Book:
    """Option sheets pasted into one sheet under the first's header: each option's title row, then its rows."""
    book = read_book(name)
    layout = BY_FILE[name]["layout"]
    tables = [(s, rows) for s, rows in book if s in layout]
    merged: Rows = []
    for i, (sheet, rows) in enumerate(tables):
        lay = layout[sheet]
        merged += rows[: lay["header_row"]] if i == 0 else [[C(None), C(None), C(rows[0][0].value)]]
        merged += [*rows[lay["header_row"] :], [C(None)]]
    cover = [(s, rows) for s, rows in book if s not in layout]
    return [*cover, ("Quote", _pad(merged))]


def option_alone(name: str, sheet: str) -> Book:
    """One option sheet as a quote of its own."""
    return [(s, rows) for s, rows in read_book(name) if s == sheet]


@pytest.mark.parametrize("name", OPTION_SHEETS)
def test_options_as_sheets_sections_or_quotes_of_their_own(name: str, tmp_path: Path) -> None:
    """Two option sheets ↔ two sections of one sheet ↔ each option alone: the same findings per option."""
    entry = BY_FILE[name]
    sheets = [s for s in entry["layout"]]
    as_sections = review_of(save(options_as_sections(name), name, None, tmp_path, as_csv=False), entry)
    assert len(as_sections.options) == len(sheets)
    for k, sheet in enumerate(sheets, start=1):
        original = review_of(Variant((CORPUS / name).read_bytes(), name, None), entry, k)
        alone = review_of(save(option_alone(name, sheet), name, None, tmp_path, as_csv=True), entry)
        sections = review_of(save(options_as_sections(name), name, None, tmp_path, as_csv=False), entry, k)
        assert alone.options == () and original.option == sheet
        assert_same(original, alone, f"{sheet} alone")
        assert_same(original, sections, f"{sheet} as a section")


@pytest.mark.parametrize("name", [f for f in OPTION_FILES if f not in OPTION_SHEETS])
def test_option_sections_each_alone(name: str, tmp_path: Path) -> None:
    """Two sections that are alternatives ↔ each section as a quote of its own."""
    entry = BY_FILE[name]
    ((sheet, rows),) = read_book(name)
    lay = entry["layout"][sheet]
    header = rows[: lay["header_row"]]
    titles = [i for i, r in enumerate(rows) if any(str(c.value or "") in entry["expect"]["options"] for c in r)]
    for k, start in enumerate(titles, start=1):
        end = titles[k] if k < len(titles) else len(rows)
        alone = review_of(save([(sheet, header + rows[start + 1 : end])], name, None, tmp_path), entry)
        original = review_of(Variant((CORPUS / name).read_bytes(), name, None), entry, k)
        assert_same(original, alone, f"option {k} alone")


TRANSLATIONS = {
    "zh": {"line": "序号", "part number": "型号", "part #": "型号", "description": "描述",
           "qty": "数量", "quantity": "数量", "unit price": "单价", "ext. price": "金额", "extended price": "金额",
           "total price": "金额", "amount": "金额", "price": "单价"},
    "ja": {"line": "番号", "part number": "品番", "part #": "品番", "description": "品名・仕様",
           "qty": "数量", "quantity": "数量", "unit price": "単価", "ext. price": "金額", "extended price": "金額",
           "total price": "金額", "amount": "金額", "price": "単価"},
}  # fmt: skip


def translate_headers(name: str, language: str) -> Book:
    return replace_headers(name, TRANSLATIONS[language], 3)


def _translatable(name: str) -> bool:
    try:
        translate_headers(name, "zh")
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("language", ["zh", "ja"])
@pytest.mark.parametrize("name", [f for f in FILES if _translatable(f)])
def test_headers_in_chinese_or_japanese(name: str, language: str, tmp_path: Path) -> None:
    """English ↔ Chinese or Japanese column headers: the same review."""
    book = translate_headers(name, language)
    assert_same_review(name, save(book, name, BY_FILE[name]["servers_quoted"], tmp_path, as_csv=False))


# ---------------------------------------------------------------- the transformations themselves


@pytest.mark.parametrize("name", SHUFFLED)
def test_shuffle_keeps_every_row(name: str) -> None:
    """The shuffle moves rows, never loses or edits one, and keeps sub-items under their parent."""
    before = read_book(name)
    after = shuffle_blocks(name, 1)
    for (s1, r1), (s2, r2) in zip(before, after, strict=True):
        assert s1 == s2
        key = lambda r: tuple(str(c.value) for c in r)  # noqa: E731
        assert sorted(map(key, r1)) == sorted(map(key, r2))
        if s1 in BY_FILE[name]["layout"]:
            for block in blocks(name, s1):
                first = key(r1[block[0] - 1])
                pos = [key(r) for r in r2].index(first)
                assert [key(r) for r in r2[pos : pos + len(block)]] == [key(r1[i - 1]) for i in block]


@pytest.mark.parametrize("name", PER_SERVER)
def test_multiplied_out_totals_match(name: str) -> None:
    """The per-server → total rewrite keeps the cluster's money: sum of extended × copies."""
    entry = BY_FILE[name]
    book, n = per_server_to_total(name)
    ((sheet, rows),) = book
    lay = entry["layout"][sheet]
    total = sum(corpus_money(rows[r - 1][lay["ext_col"]].value) or 0.0 for r in parse_rows(lay["item_rows"]))
    assert total == pytest.approx(entry["quote_total"] * n, abs=0.05)
