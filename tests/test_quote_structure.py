"""The named steps of reading a quote table, each on its own (issue 22): header, column roles, rows, sub-items,
sections and options; then the quote's statements, currency and encodings."""

from __future__ import annotations

import csv
import io
from collections import Counter
from typing import Any

import pytest

from neoplan.quote import QuoteError, read_quote
from neoplan.quote.cells import parse_money, parse_quantity
from neoplan.quote.groups import Item, group_sub_items, is_system_text
from neoplan.quote.header import assign_columns, candidates, find_table_header, header_name
from neoplan.quote.raw import RawLine, StatedTotal
from neoplan.quote.rows import TableState, read_cells, row_kind
from neoplan.quote.sections import option_label, options_by_section, says_select_one, sections_with_totals
from neoplan.quote.statements import racks_stated, resolve_yen, servers_stated
from neoplan.quote.vocab import fold, header_key

ROLES5 = ["part", "description", "quantity", "unit", "extended"]


def csv_bytes(rows: list[list[Any]], encoding: str = "utf-8") -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode(encoding)


# --- step 1: the header ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cells", "roles"),
    [
        (["序号", "型号", "描述", "数量", "单价", "金额"], ["line", *ROLES5]),
        (["品番", "品名・仕様", "数量", "単価", "金額"], ["part", "description", "quantity", "unit", "extended"]),
        (["번호", "품번", "품명", "수량", "단가", "금액"], ["line", *ROLES5]),
        (["Pos.", "Artikelnummer", "Bezeichnung", "Menge", "Einzelpreis", "Gesamtpreis"],
         ["line", "part", "description", "quantity", "unit", "extended"]),
        (["Référence", "Désignation", "Qté", "Prix unitaire HT", "Montant HT"],
         ["part", "description", "quantity", "unit", "extended"]),
        (["Referencia", "Descripción", "Cantidad", "Precio unitario", "Importe"],
         ["part", "description", "quantity", "unit", "extended"]),
        (["Part", "Spec", "Qty / Rack", "No. of Racks", "Unit Price", "Ext. Price"],
         ["part", "description", "qty_per_rack", "racks", "unit", "extended"]),
        (["型号", "描述（规格）", "数量（台）", "含税单价（元）", "金额（元）"],
         ["part", "description", "quantity", "unit", "extended"]),
        (["品番", "品名", "数量", "提供単価(税抜)", "金額(税抜)"], ROLES5),
    ],
)  # fmt: skip
def test_header_names_in_many_languages(cells: list[str], roles: list[str]) -> None:
    header = find_table_header([["Quotation"], cells, ["X1", "a server", 1, 100, 100]])
    assert header is not None and header.row == 1
    by_col = {col: role for role, col in header.roles.items()}
    assert [by_col.get(i) for i in range(len(cells))] == roles


def test_header_names_fold_width_accents_and_currency() -> None:
    assert header_key("Unit Price (US$)") == "unit price"
    assert header_key("単価（円）") == "単価"
    assert header_key("Quantité") == "quantite"
    assert fold("ＳＹＳ－８２１ＧＥ") == "sys-821ge"
    assert candidates(header_name("Qty per GPU node")) == (("qty_per_server", 2),)
    assert candidates(header_name("Menge je Rack")) == (("qty_per_rack", 2),)


# --- step 2: column roles --------------------------------------------------------------------------------------------


def test_columns_read_per_rack_bom_and_decimal_commas() -> None:
    rows = [["Spec", "Qty / Rack", "No. of Racks", "Preis"], ["CPU", "8", "4", "1.234,50"]]
    header = find_table_header(rows)
    assert header is not None
    cols = assign_columns(rows, header)
    assert cols.per_rack and cols.explicit and cols.decimal == ","
    assert cols.qty_col == 1 and cols.roles["racks"] == 2


@pytest.mark.parametrize(
    "names",
    [
        ["번호", "품목", "설명", "수량", "단가", "금액"],  # Korean: 품목 (item) and 설명 (description) both name a text
        ["No.", "설명", "품목", "수량", "단가", "금액"],  # the same columns the other way round
    ],
)
def test_the_wordiest_of_two_description_columns_is_the_description(names: list[str]) -> None:
    code, text = names.index("품목"), names.index("설명")
    row = ["1", "", "", "16", "312000", "4992000"]
    row[code], row[text] = "AS-8125GS-TNHR", "Supermicro 8U HGX B200 8-GPU server"
    rows = [names, row, ["2", "", "", "128", "1650", "211200"]]
    rows[2][code], rows[2][text] = "MCX75310AAS-NEAT", "ConnectX-7 400G OSFP single-port NIC"
    header = find_table_header(rows)
    assert header is not None
    cols = assign_columns(rows, header)
    assert cols.roles["description"] == text and cols.roles["part"] == code


# --- step 3: rows ----------------------------------------------------------------------------------------------------


def _kinds(raw: list[list[Any]]) -> list[str]:
    rows = [[str(c) for c in r] for r in raw]
    header = find_table_header(rows)
    assert header is not None
    state = TableState(assign_columns(rows, header))
    out = []
    for i in range(header.row + 1, len(rows)):
        c = read_cells(rows[i], i, state.cols)
        kind = row_kind(c, rows[i], state)
        out.append(kind)
        state.previous_description = c.description if kind == "item" else None
    return out


def test_row_kinds() -> None:
    rows: list[list[Any]] = [
        ["Part", "Description", "Qty", "Unit price", "Amount"],
        ["X1", "GPU server, HGX H100 8-GPU,", 2, 100, 200],
        ["", "2x Xeon Gold 6530", "", "", ""],
        [],
        ["", "Networking", "", "", ""],
        ["", "# internal comment", "", "", ""],
        ["Part", "Description", "Qty", "Unit price", "Amount"],
        ["", "合计", "", "", 200],
        ["", "增值税 13%", "", "", 26],
        ["", "", "", "", 5],
    ]
    assert _kinds(rows) == [
        "item",
        "continued description",
        "blank",
        "section title or note",
        "comment",
        "repeated header",
        "subtotal or total",
        "tax",
        "unlabelled amount",
    ]


def test_read_cells_net_from_list_and_units_after_prices() -> None:
    rows = [["Part", "Description", "Qty", "List", "Disc %", "Net"], ["X", "switch", "2 ea", "$1,000.00 ea", "40", ""]]
    header = find_table_header(rows)
    assert header is not None
    c = read_cells(rows[1], 1, assign_columns(rows, header))
    assert (c.qty, c.list_price, c.discount, c.unit) == (2, 1000, 0.4, 600)


@pytest.mark.parametrize(
    ("text", "value"),
    [("USD 289,500.00 ea", 289500), ("$1,200/ea", 1200), ("$12.00 each", 12), ("10,000 lot", 10000),
     ("1,200.00 pcs", 1200), ("1,000円/台", 1000), ("￥1,234,000", 1234000), ("N/C", 0), ("no charge", 0),
     ("Included", 0), ("無償", 0), ("８，０００", 8000)],
)  # fmt: skip
def test_prices_with_units_and_free_words(text: str, value: float) -> None:
    assert parse_money(text) == pytest.approx(value)


@pytest.mark.parametrize(("text", "value"), [("8台", 8), ("1式", 1), ("一式", 1), ("2 個", 2), ("4 racks", 4)])
def test_quantities_with_counters(text: str, value: float) -> None:
    assert parse_quantity(text) == value


# --- step 4: sub-items -----------------------------------------------------------------------------------------------


def _item(row: int, desc: str, unit: float | None, *, indent: int = 0, brk: bool = False, number: str = "") -> Item:
    line = RawLine("", row, "", "", desc, 1.0, unit, unit, indent=indent)
    return Item(line, unit is None, not unit, unit is not None, bool(unit), number, False, brk)


def test_group_sub_items() -> None:
    items = [
        _item(2, "PowerEdge XE9680 rack server", 300_000),
        _item(3, "HGX H100 board", None),
        _item(4, "64GB RDIMM", None),
        _item(5, "Power cords", None, brk=True),
        _item(6, "QM9700 switch", 36_000),
        _item(7, "Rail kit", 0, indent=3),
        _item(8, "ThinkSystem SR680a V3 - 3yr Warranty", 290_000, number="1"),
        _item(9, "CPU", 0, number="1.1"),
    ]
    got = [(ln.row, ln.quantity_basis, ln.parent_row) for ln in group_sub_items(items)]
    assert got == [
        (2, "total", None),
        (3, "per_parent", 2),
        (4, "per_parent", 2),
        (5, "total", None),
        (6, "total", None),
        (7, "per_parent", 6),
        (8, "total", None),
        (9, "per_parent", 8),
    ]


@pytest.mark.parametrize(
    ("part", "desc", "system"),
    [("", "ThinkSystem SR680a V3 - 3yr Warranty", True), ("", "ProDeploy for PowerEdge XE9680", False),
     ("SVC-NVL72-L11", "NVL72 rack-level validation", False), ("", "GB200 NVL72 rack", True),
     ("", "3-year warranty, per server", False)],
)  # fmt: skip
def test_a_server_line_is_told_from_its_services(part: str, desc: str, system: bool) -> None:
    assert is_system_text(part, desc) is system


# --- step 5: sections and options ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "label"),
    [("Option A: 16x XE9680 H100", "Option A"), ("OPTION 2 - H200", "OPTION 2"), ("方案一：H100 集群", "方案一"),
     ("オプションB", "オプションB"), ("HPE options", None), ("Options & services", None), ("Networking", None)],
)  # fmt: skip
def test_option_titles(title: str, label: str | None) -> None:
    assert option_label(title) == label


def test_options_by_section_stop_at_their_total() -> None:
    lines = [
        RawLine("", 3, "Option A - H100", "", "server", 1, 1, 1),
        RawLine("", 4, "Networking", "", "switch", 1, 1, 1),
        RawLine("", 7, "Option B - H200", "", "server", 1, 1, 1),
        RawLine("", 10, "Services", "", "install", 1, 1, 1),
    ]
    totals = [StatedTotal("", 5, "Total Option A", 2.0), StatedTotal("", 8, "Total Option B", 1.0)]
    assert [ln.option for ln in options_by_section(lines, totals)] == ["Option A", "Option A", "Option B", ""]
    assert sections_with_totals(lines, totals) == ["Networking", "Option B - H200"]


def test_select_one_words() -> None:
    assert says_select_one(["Please select one of the following options"])
    assert says_select_one(["以下两种方案二选一"])
    assert not says_select_one(["All prices in USD"])


# --- the quote's statements ------------------------------------------------------------------------------------------


def test_stated_servers_and_racks() -> None:
    assert servers_stated(["GPU服务器 16台"], Counter(), Counter()) == 16
    assert servers_stated(["Configuration quantity: 32 nodes"], Counter(), Counter()) == 32
    assert racks_stated(["8 NVL72 racks, liquid cooled"], Counter()) == 8
    assert racks_stated(["42U rack, 8 kW"], Counter()) is None


def test_yen_is_decided_by_the_document() -> None:
    assert resolve_yen("q", ["币种：人民币（CNY）"], []) == "CNY"
    assert resolve_yen("q", ["金額単位：円"], []) == "JPY"
    assert resolve_yen("q", [], ["GPUサーバー 8台", "合計"]) == "JPY"
    assert resolve_yen("q", [], ["服务器", "增值税"]) == "CNY"
    with pytest.raises(QuoteError, match="yuan"):
        resolve_yen("q", [], ["GPU server"])


ZH = [["报价单"], ["币种：人民币（CNY）"], ["序号", "型号", "描述", "数量", "单价", "金额"],
      [1, "SYS-821GE-TNHR", "GPU服务器 HGX H100 8-GPU", 2, "¥2,000,000.00", "¥4,000,000.00"],
      ["", "", "合计", "", "", "¥4,000,000.00"]]  # fmt: skip
JA = [["御見積書"], ["金額単位：円"], ["品番", "品名・仕様", "数量", "単価", "金額"],
      ["SYS-821GE-TNHR", "GPUサーバー HGX H100 8-GPU", "2台", "40,000,000", "80,000,000"],
      ["", "合計", "", "", "80,000,000"]]  # fmt: skip


@pytest.mark.parametrize(
    ("rows", "encoding", "currency"),
    [(ZH, "gb18030", "CNY"), (ZH, "utf-8", "CNY"), (ZH, "utf-16", "CNY"), (JA, "cp932", "JPY"), (JA, "utf-8", "JPY")],
)
def test_encodings_and_currencies(rows: list[list[Any]], encoding: str, currency: str) -> None:
    quote = read_quote(csv_bytes(rows, encoding), "q.csv")
    assert quote.currency == currency
    (line,) = quote.lines
    assert (line.part_number, line.quantity, line.extended) == ("SYS-821GE-TNHR", 2, 2 * (line.unit_price or 0))
    assert not quote.warnings, quote.warnings


def test_western_csv_is_not_read_as_shift_jis() -> None:
    rows: list[list[Any]] = [
        ["Désignation", "Qté", "Prix unitaire HT", "Montant HT"],
        ["Serveur GPU été", 2, "356 000,00 €", "712 000,00 €"],
    ]
    quote = read_quote(csv_bytes(rows, "cp1252"), "q.csv")
    assert quote.lines[0].description == "Serveur GPU été" and quote.currency == "EUR"


def test_a_stated_total_off_its_lines_is_marked() -> None:
    rows: list[list[Any]] = [
        ["Part", "Description", "Qty", "Unit", "Amount"],
        ["A", "x", 2, 100, 200],
        ["B", "y", 1, 50, 50],
        ["", "Total", "", "", 1050],
    ]
    (total,) = read_quote(csv_bytes(rows), "q.csv").totals
    assert not total.off  # 4x off: another kind of total, warned only
    rows[-1][-1] = 258
    (total,) = read_quote(csv_bytes(rows), "q.csv").totals
    assert total.off and total.computed == 250 and total.lines == (("", 2), ("", 3))
    rows[-1][-1] = 250.004
    assert not read_quote(csv_bytes(rows), "q.csv").totals[0].off


@pytest.mark.parametrize(
    ("above", "header", "price", "value"),
    [
        ([], ["型号", "描述", "数量", "单价（万元）", "金额（万元）"], "200.5", 2_005_000),
        (["金額単位：千円"], ["品番", "品名", "数量", "単価", "金額"], "41,000", 41_000_000),
        (["All amounts in thousands of USD"], ["Part", "Description", "Qty", "Unit", "Amount"], "250.0", 250_000),
        (["千葉県千葉市"], ["品番", "品名", "数量", "単価", "金額"], "41,000", 41_000),
    ],
)
def test_amounts_written_in_thousands_or_ten_thousands(above: list[str], header: list[str], price: str,
                                                       value: float) -> None:  # fmt: skip
    rows: list[list[Any]] = [[t] for t in above] + [header, ["X", "GPU server HGX H100 8-GPU", 1, price, price]]
    (line,) = read_quote(csv_bytes(rows), "q.csv", currency="USD").lines
    assert line.unit_price == pytest.approx(value) and line.extended == pytest.approx(value)


def test_quote_review_is_written_in_named_stages() -> None:
    """No function of ``neoplan/quote/`` is above cyclomatic complexity 25 (radon): the review reads as named stages,
    each small enough to follow and test on its own."""
    from pathlib import Path

    from radon.complexity import cc_visit

    package = Path(__file__).resolve().parent.parent / "neoplan" / "quote"
    worst = [
        (block.complexity, f"{path.name}:{block.lineno} {block.name}")
        for path in sorted(package.glob("*.py"))
        for block in cc_visit(path.read_text(encoding="utf-8"))
        if block.complexity > 25
    ]
    assert not worst, sorted(worst, reverse=True)


@pytest.mark.parametrize(
    ("above", "cells", "total", "code"),
    [
        ([["(단위: 원)"]], ["1,200,000", "2,400,000"], "₩ 2,400,000", "KRW"),  # units line and total
        ([["견적금액: ₩ 9,000,000 (VAT 포함)"]], ["1,200,000", "2,400,000"], "2,400,000", "KRW"),  # title block
        ([["Quotation"]], ["1,200,000", "2,400,000"], "2,400,000 원", "KRW"),  # the total's figure only
        ([["Quotation"]], ["ر.س 3,750.00", "ر.س 7,500.00"], "", "SAR"),  # Arabic sign in the price cells
        ([["All amounts in Saudi riyals"]], ["3,750.00", "7,500.00"], "", "SAR"),  # named in words
        ([["金額単位：円"]], ["120,000", "240,000"], "", "JPY"),
        ([["Quotation"]], ["1,200.00", "2,400.00"], "", "USD"),  # nothing says it: USD, and the evidence is ""
    ],
)
def test_the_currency_is_read_wherever_the_document_writes_it(
    above: list[list[Any]], cells: list[str], total: str, code: str
) -> None:
    rows = [*above, ["Part", "Description", "Qty", "Unit Price", "Amount"], ["X", "Xeon Gold 6530", 2, *cells]]
    if total:
        rows.append(["", "Total", "", "", total])
    quote = read_quote(csv_bytes(rows), "q.csv")
    assert quote.currency == code
    assert bool(quote.currency_from) == (code != "USD")


@pytest.mark.parametrize(
    ("text", "base", "other", "units"),
    [
        ("Exchange rate: 1 USD = 3.75 SAR", "USD", "SAR", 3.75),
        ("USD 1 = SAR 3.75", "USD", "SAR", 3.75),
        ("FX applied: USD/AED 3.6725", "USD", "AED", 3.6725),
        ("3.75 SAR per USD", "USD", "SAR", 3.75),
        ("환율: 1 USD = 1,380 KRW", "USD", "KRW", 1380.0),
        ("1달러 = 1,380원", "USD", "KRW", 1380.0),
        ("Umrechnungskurs 1 EUR = 1,08 USD", "EUR", "USD", 1.08),
    ],
)
def test_stated_rates_are_read_with_their_row(text: str, base: str, other: str, units: float) -> None:
    from neoplan.quote.currency import stated_rates

    (rate,) = stated_rates(text, "Quote", 5)
    assert (rate.base, rate.quote, rate.units) == (base, other, pytest.approx(units))
    assert rate.source.startswith("Quote!5 (")
    assert stated_rates("400G/800G optics, 8x per server", "", 1) == []


@pytest.mark.parametrize(
    ("statement", "date"),
    [
        ("Date: 2024-11-04 Valid until: 2024-12-04", "2024-11-04"),
        ("Quote date: 04.11.2024", "2024-11-04"),
        ("Angebotsdatum: 15.06.2026", "2026-06-15"),
        ("견적일자: 2026. 3. 2.", "2026-03-02"),
        ("日期：2026年3月2日", "2026-03-02"),
        ("Dated Nov 4, 2024", "2024-11-04"),
        ("Date: 45600", "2024-11-04"),  # a date cell read as its Excel serial
        ("Valid until: 2024-12-04", None),  # a validity date is no quote date
    ],
)
def test_the_quote_date_is_read_from_its_title_block(statement: str, date: str | None) -> None:
    from neoplan.quote.statements import quote_date

    assert quote_date([statement])[0] == date
