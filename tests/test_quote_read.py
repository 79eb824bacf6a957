"""Reading quotes: safe XLSX/CSV reading, number and currency formats, and the structure of a quote table."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import textwrap
import time
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neoplan.quote import MAX_QUOTE_BYTES, QuoteError, read_quote
from neoplan.quote import read as reader
from neoplan.quote.cells import (
    MAX_CELLS,
    MAX_ROWS_PER_SHEET,
    MAX_XLSX_PART_BYTES,
    currency_of,
    number_style,
    parse_money,
    parse_percent,
    parse_quantity,
)
from neoplan.quote.structure import ParsedQuote, RawLine, find_table_header

ROOT = Path(__file__).resolve().parent.parent
HEADER = ["Part Number", "Description", "Qty", "Unit Price", "Extended Price"]


# --- helpers ----------------------------------------------------------------------------------------------------------


def csv_bytes(rows: list[list[Any]], delimiter: str = ",") -> bytes:
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode("utf-8")


def xlsx_bytes(sheets: dict[str, list[list[Any]]], hidden: Iterable[str] = ()) -> bytes:
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, rows in sheets.items():
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
        if title in hidden:
            ws.sheet_state = "hidden"
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"


def raw_xlsx(sheet_xml: Iterable[bytes], shared: bytes | None = None) -> bytes:
    """A minimal workbook whose one sheet's XML is streamed from ``sheet_xml`` (for bombs and odd files)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr(
            "_rels/.rels",
            f'<Relationships xmlns="{_PKG}"><Relationship Id="rId1" Type="{_R}/officeDocument" '
            'Target="xl/workbook.xml"/></Relationships>',
        )
        zf.writestr(
            "xl/workbook.xml",
            f'<workbook {_NS} xmlns:r="{_R}"><sheets><sheet name="Quote" sheetId="1" r:id="rId1"/></sheets></workbook>',
        )
        rels = f'<Relationship Id="rId1" Type="{_R}/worksheet" Target="worksheets/sheet1.xml"/>'
        if shared is not None:
            rels += f'<Relationship Id="rId2" Type="{_R}/sharedStrings" Target="sharedStrings.xml"/>'
            zf.writestr("xl/sharedStrings.xml", shared)
        zf.writestr("xl/_rels/workbook.xml.rels", f'<Relationships xmlns="{_PKG}">{rels}</Relationships>')
        with zf.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as f:
            f.write(f"<worksheet {_NS}><sheetData>".encode())
            for chunk in sheet_xml:
                f.write(chunk)
            f.write(b"</sheetData></worksheet>")
    return buf.getvalue()


def inline(ref: str, text: str) -> str:
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'


def header_row_xml() -> bytes:
    cells = "".join(inline(f"{col}1", name) for col, name in zip("ABC", ("Description", "Qty", "Price"), strict=True))
    return f'<row r="1">{cells}</row>'.encode()


def one_row_bomb(megabytes: int) -> Iterator[bytes]:
    """One row whose cells expand to ``megabytes`` of XML (a few hundred KB on disk)."""
    yield b'<row r="1">'
    block = b"<c><v>1</v></c>" * 10_000
    for _ in range(megabytes * 1_000_000 // len(block)):
        yield block
    yield b"</row>"


def measure_in_child(path: Path, patch_declared: bool = False) -> tuple[str, float, float]:
    """(message, seconds, peak RSS MB) of read_quote on ``path`` in a fresh interpreter (its own peak: VmHWM, as
    ru_maxrss may carry the parent's size over the exec)."""
    code = textwrap.dedent(
        f"""
        import resource, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from neoplan.quote import QuoteError, read_quote
        from neoplan.quote import read as reader
        if {patch_declared!r}:
            reader._check_declared = lambda zf, label: None  # a zip whose directory lies about sizes
        data = open({str(path)!r}, "rb").read()
        start = time.perf_counter()
        try:
            read_quote(data, "bomb.xlsx")
            message = "read"
        except QuoteError as exc:
            message = str(exc)
        seconds = time.perf_counter() - start
        print(message)
        print(seconds)
        peak = [ln for ln in open("/proc/self/status") if ln.startswith("VmHWM:")]  # this process only
        print(int(peak[0].split()[1]) / 1024 if peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    message, seconds, rss = out.stdout.strip().splitlines()[-3:]
    return message, float(seconds), float(rss)


def lines_of(quote: ParsedQuote) -> list[tuple[Any, ...]]:
    return [(ln.row, ln.description, ln.quantity, ln.unit_price, ln.extended) for ln in quote.lines]


# --- safe reading -----------------------------------------------------------------------------------------------------


def test_workbook_bomb_is_refused_fast_and_small(tmp_path: Path) -> None:
    data = raw_xlsx(one_row_bomb(190))
    assert len(data) < 1_000_000  # 190 MB of XML in one row compresses to well under 1 MB
    path = tmp_path / "bomb.xlsx"
    path.write_bytes(data)
    message, seconds, rss_mb = measure_in_child(path)
    assert "expands to 190 MB" in message and f"{MAX_XLSX_PART_BYTES / 1e6:.0f} MB limit" in message
    assert seconds < 2.0 and rss_mb < 300


def test_bomb_with_a_lying_zip_directory_is_stopped_by_the_stream_cap(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xlsx"
    path.write_bytes(raw_xlsx(one_row_bomb(190)))
    message, seconds, rss_mb = measure_in_child(path, patch_declared=True)
    assert "more than 25 MB" in message or "cells" in message
    assert seconds < 2.0 and rss_mb < 300


def test_too_many_cells_are_refused_before_rows_are_built(monkeypatch: pytest.MonkeyPatch) -> None:
    data = raw_xlsx([b'<row r="1">' + b"<c><v>1</v></c>" * (MAX_CELLS + 1) + b"</row>"])
    start = time.perf_counter()
    with pytest.raises(QuoteError, match=f"more than {MAX_CELLS:,} cells"):
        read_quote(data, "wide.xlsx")
    assert time.perf_counter() - start < 2.0


def test_million_row_sheet_is_refused_fast() -> None:
    rows = (b'<row r="%d"><c r="A%d"><v>1</v></c></row>' % (r, r) for r in range(2, 1_000_002))
    data = raw_xlsx([header_row_xml(), *rows])
    start = time.perf_counter()
    with pytest.raises(QuoteError, match=r"MB|rows"):
        read_quote(data, "million.xlsx")
    assert time.perf_counter() - start < 2.0


def test_rows_past_the_limit_are_refused_at_that_row() -> None:
    body = (
        f'<row r="{r}">{inline(f"A{r}", "Xeon")}<c r="B{r}"><v>2</v></c><c r="C{r}"><v>2150</v></c></row>'.encode()
        for r in range(2, MAX_ROWS_PER_SHEET + 3)
    )
    with pytest.raises(QuoteError, match=f"more than {MAX_ROWS_PER_SHEET:,} rows .row {MAX_ROWS_PER_SHEET + 1:,}"):
        read_quote(raw_xlsx([header_row_xml(), *body]), "long.xlsx")


def test_million_line_csv_is_refused_fast() -> None:
    data = b"Description,Qty,Price\n" + b"1\n" * 1_000_000
    assert len(data) <= MAX_QUOTE_BYTES
    start = time.perf_counter()
    with pytest.raises(QuoteError, match=f"more than {MAX_ROWS_PER_SHEET:,} rows"):
        read_quote(data, "million.csv")
    assert time.perf_counter() - start < 2.0


def test_xml_entities_are_refused() -> None:
    doctype = b'<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
    data = raw_xlsx([header_row_xml()], shared=doctype + b"<sst><si><t>&b;</t></si></sst>")
    with pytest.raises(QuoteError, match="entities"):
        read_quote(data, "laughs.xlsx")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"PK\x03\x04 truncated zip", "not a readable XLSX"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, ".xls file or a password-protected"),
        (b"\x00\x01\x02binary\x00", "binary"),
        (b"", "empty"),
    ],
)
def test_bad_files_give_one_line(data: bytes, message: str) -> None:
    with pytest.raises(QuoteError, match=message) as info:
        read_quote(data, "bad.xlsx")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("member", "message"),
    [("hello.txt", "no workbook part"), ("content.xml", r"\.ods"), ("xl/workbook.bin", r"\.xlsb")],
)
def test_zip_without_a_workbook_is_refused(member: str, message: str) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(member, "not a workbook")
    with pytest.raises(QuoteError, match=message):
        read_quote(buf.getvalue(), "x.xlsx")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_fuzzed_sheet_xml_raises_only_quote_error(junk: bytes) -> None:
    try:
        read_quote(raw_xlsx([header_row_xml(), junk]), "fuzz.xlsx")
    except QuoteError as exc:
        assert "\n" not in str(exc)


# --- the XLSX reader keeps the file's own rows ------------------------------------------------------------------------


def test_xlsx_rows_are_the_spreadsheet_rows() -> None:
    cells = "".join(inline(f"{c}5", n) for c, n in zip("BCD", ("Description", "Qty", "Price"), strict=True))
    body = [
        f'<row r="5">{cells}</row>'.encode(),
        b'<row r="9"><c r="B9" t="s"><v>0</v></c><c r="C9"><v>2</v></c><c r="D9" t="str"><v>$2,150.00</v></c></row>',
        b'<row r="7"><c r="B7" t="s"><v>1</v></c><c r="C7" t="b"><v>1</v></c><c r="D7"><f>1+1</f></c></row>',
    ]
    shared = b"<sst " + _NS.encode() + b"><si><r><t>Xeon </t></r><r><t>Gold 6530</t></r><rPh><t>x</t></rPh></si>"
    shared += b"<si><t>Note_x000D_only</t></si></sst>"
    sheets, notes = reader.read_xlsx(raw_xlsx(body, shared=shared), "q.xlsx")
    ((title, rows),) = sheets
    assert title == "Quote" and notes == []
    assert rows[4] == ["", "Description", "Qty", "Price"]
    assert rows[6] == ["", "Note\ronly", "TRUE"]  # a formula without a saved value reads as empty
    assert rows[8] == ["", "Xeon Gold 6530", 2.0, "$2,150.00"]
    quote = read_quote(raw_xlsx(body, shared=shared), "q.xlsx")
    assert [(ln.sheet, ln.row, ln.description, ln.unit_price) for ln in quote.lines] == [
        ("Quote", 9, "Xeon Gold 6530", 2150.0)
    ]


def test_hidden_sheets_are_left_out_with_a_note() -> None:
    data = xlsx_bytes({"Quote": [HEADER, ["X1", "Xeon Gold 6530", 2, 2150, 4300]], "Costs": [HEADER]}, hidden=["Costs"])
    quote = read_quote(data, "q.xlsx")
    assert quote.sheets == ("Quote",)
    assert any("'Costs' is hidden" in w for w in quote.warnings)


def test_csv_row_numbers_survive_multiline_cells_and_utf16() -> None:
    text = 'Description,Qty,Price\n"Xeon Gold 6530\n(2 per server)",2,2150\n\nConnectX-7 400G,8,1650\n'
    for data in (text.encode(), text.encode("utf-16")):
        quote = read_quote(data, "q.csv")
        assert [(ln.row, ln.quantity) for ln in quote.lines] == [(2, 2.0), (5, 8.0)]


# --- numbers and currencies -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "decimal", "value"),
    [
        ("$1,234.00", None, 1234.0),
        ("1.234,56 €", None, 1234.56),
        ("262.500,00 €", None, 262500.0),
        ("-25.000,00 €", None, -25000.0),
        ("€ -1,00", None, -1.0),
        ("(USD 12.50)", None, -12.5),
        ("£ 1 234.50", None, 1234.5),
        ("1 234,56", None, 1234.56),
        ("CHF 1'234.50", None, 1234.5),
        ("12,50", None, 12.5),
        ("1.234", ",", 1234.0),
        ("1.234", None, 1.234),
        ("1,234", ",", 1.234),
        ("1,234", None, 1234.0),
        ("99,-", ",", 99.0),
        ("$ 336,500.00", None, 336500.0),
        ("ABC 123", None, None),
        ("2024-11-04", None, None),
        ("Included", None, 0.0),
    ],
)
def test_parse_money_reads_us_and_european_formats(text: str, decimal: str | None, value: float | None) -> None:
    assert parse_money(text, decimal=decimal) == value


@pytest.mark.parametrize(
    ("text", "style"),
    [("1.234,50", ","), ("12,50", ","), ("1.234.567", ","), ("1,234.50", "."), ("12.50", "."), ("1,234", None)],
)
def test_number_style(text: str, style: str | None) -> None:
    assert number_style(text) == style


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("€ 1.234,00", "EUR"),
        ("£241,500.00", "GBP"),
        ("US$ 99", "USD"),
        ("$ 99", "USD"),
        ("CHF 1'234.50", "CHF"),
        ("All prices in GBP (£) excluding VAT", "GBP"),
        ("Alle prijzen in EUR, excl. BTW", "EUR"),
        ("Prices in euros", "EUR"),
        ("A$ 1,200", "AUD"),
        ("1234", None),
    ],
)
def test_currency_of(text: str, code: str | None) -> None:
    assert currency_of(text) == code


def test_parse_quantity_and_percent() -> None:
    assert parse_quantity("1.024", ",") == 1024 and parse_quantity("2,00", ",") == 2 and parse_quantity("16 Stk") == 16
    assert parse_percent("57%") == (57.0, True) and parse_percent(0.57) == (0.57, False)


# --- structure --------------------------------------------------------------------------------------------------------


def test_item_column_is_a_line_number_when_a_description_column_exists() -> None:
    rows = [["Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price"]]
    rows += [[1, "MQM9790-NS2F", "QM9790 switch", 2, "$36,000.00", "$72,000.00"]]
    quote = read_quote(csv_bytes(rows), "q.csv")
    assert [(ln.part_number, ln.description) for ln in quote.lines] == [("MQM9790-NS2F", "QM9790 switch")]


def test_two_row_header_and_wrapped_descriptions() -> None:
    rows = [
        ["", "", "Example Systems"],
        ["Line", "Manufacturer", "Item", "Quantity", "Price", "Amount"],
        ["No.", "Part No.", "Description", "", "Each", "(USD)"],
        [1, "SYS-821GE-TNHR", "Supermicro 8U GPU SuperServer with", 16, "$ 283,900.00", "$ 4,542,400.00"],
        ["", "", "HGX H100 8-GPU SXM5 80GB", "", "", ""],
        ["", "", "2TB (32x 64GB) DDR5-4800", "", "", ""],
        [2, "MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR", 2, "$ 36,900.00", "$ 73,800.00"],
        ["", "", "InfiniBand switch, managed, P2C", "", "", ""],
        ["", "", "Networking", "", "", ""],
        [3, "MMA4Z00-NS400", "400G OSFP transceiver", 128, "$ 1,199.00", "$ 153,472.00"],
    ]
    header = find_table_header(rows)
    assert header is not None and (header.row, header.span) == (1, 2)
    assert {"line", "part", "description", "quantity", "unit", "extended"} <= set(header.roles)
    quote = read_quote(csv_bytes(rows), "q.csv")
    assert [(ln.row, ln.part_number, ln.description, ln.section) for ln in quote.lines] == [
        (
            4,
            "SYS-821GE-TNHR",
            "Supermicro 8U GPU SuperServer with HGX H100 8-GPU SXM5 80GB 2TB (32x 64GB) DDR5-4800",
            "",
        ),
        (7, "MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand switch, managed, P2C", ""),
        (10, "MMA4Z00-NS400", "400G OSFP transceiver", "Networking"),
    ]
    assert quote.skipped["continued description"] == 3


def test_section_titles_are_not_taken_for_wrapped_descriptions() -> None:
    rows = [
        ["Part", "Description", "Qty", "Price"],
        ["FG-1800F", "FortiGate firewall HA pair with 1 year support", 1, 40000],
        ["", "Racks, power distribution, installation", "", ""],
        ["AR3300", "42U rack", 4, 1500],
        ["", "Front-end Ethernet (2x200GbE per server)", "", ""],
        ["MSN4600", "SN4600 switch", 2, 34000],
    ]
    quote = read_quote(csv_bytes(rows), "q.csv")
    assert [ln.section for ln in quote.lines] == [
        "",
        "Racks, power distribution, installation",
        "Front-end Ethernet (2x200GbE per server)",
    ]
    assert quote.lines[0].description == "FortiGate firewall HA pair with 1 year support"


def test_dell_style_configuration_sub_items_are_per_system() -> None:
    rows = [
        ["Group 1: PowerEdge XE9680 (16 units)"],
        ["Description", "SKU", "Unit Price", "Quantity", "Subtotal"],
        ["PowerEdge XE9680 Rack Server", "210-BDZB", 281950, 16, 4511200],
        ["NVIDIA HGX H100 80GB 700W SXM5 GPUs", "370-AHRT", None, 1],
        ["64GB RDIMM, 4800MT/s Dual Rank", "370-AHCL", None, 32],
        ["ProDeploy Plus, per server", "800-BBQE", 2450, 16, 39200],
        ["Dual-port 100GbE NIC, spare", "540-BCOC", None, 4],
    ]
    quote = read_quote(xlsx_bytes({"Quote": rows}), "dell.xlsx")
    got = [(ln.row, ln.quantity, ln.quantity_basis, ln.parent_row) for ln in quote.lines]
    assert got == [(3, 16, "total", None), (4, 1, "per_parent", 3), (5, 32, "per_parent", 3), (6, 16, "total", None),
                   (7, 4, "total", None)]  # fmt: skip


def test_indented_zero_priced_lines_are_sub_items_and_flat_unpriced_lines_are_not() -> None:
    rows = [
        HEADER,
        ["MQM9700", "QM9700 switch", 8, 36000, 288000],
        ["", "   - Rail kit", 1, "Included", "Included"],
        ["", "Power cords C13", 16, "", ""],
    ]
    quote = read_quote(csv_bytes(rows), "q.csv")
    got = [(ln.description, ln.quantity_basis, ln.parent_row, ln.indent > 0) for ln in quote.lines]
    assert got == [("QM9700 switch", "total", None, False), ("Rail kit", "per_parent", 2, True),
                   ("Power cords C13", "total", None, False)]  # fmt: skip


def test_list_discount_net_columns_give_the_net_price() -> None:
    rows = [
        ["Product #", "Description", "Qty", "Unit List Price (USD)", "Disc %", "Unit Net Price (USD)", "Ext Net Price"],
        ["P62789-B21", "HPE Cray XD670 8U CTO Server", 64, 18953.49, 57, 8150, 521600],
        ["P62806-B21 #0D1", "HPE Cray XD670 Rail Kit", 64, "Included", "", "Included", "Included"],
    ]
    line = read_quote(xlsx_bytes({"Compute": rows}), "hpe.xlsx").lines[0]
    assert (line.unit_price, line.extended, line.list_price, line.discount) == (8150, 521600, 18953.49, 0.57)
    no_net = [
        ["Product #", "Description", "Qty", "List Price", "Discount"],
        ["R9D12A", "QM9700 switch", 2, 50000, "35%"],
    ]
    line = read_quote(csv_bytes(no_net), "q.csv").lines[0]
    assert line.unit_price == pytest.approx(32500) and line.discount == pytest.approx(0.35)


def test_per_server_and_total_quantity_columns() -> None:
    rows = [
        ["Part number", "Product Description", "Qty/Server", "Total Qty", "Unit Price", "Total Price"],
        ["C1HL", "ThinkSystem NVIDIA HGX H200 8-GPU Board", 1, 16, 249900, 3998400],
        ["BZ7H", "64GB TruDDR5 RDIMM", 32, 512, 279, 142848],
    ]
    quote = read_quote(xlsx_bytes({"DCSC": rows}), "lenovo.xlsx")
    assert [(ln.quantity, ln.quantity_basis, ln.total_quantity) for ln in quote.lines] == [
        (1, "per_server", 16),
        (32, "per_server", 512),
    ]
    assert quote.servers_stated == 16 and not quote.per_server


def test_node_column_and_key_value_title() -> None:
    rows = [
        ["ODM quotation"],
        ["Nodes:", 128, "Incoterm:", "FCA"],
        [],
        ["Category", "Part No.", "Description", "Qty/Node", "Nodes", "Unit Price (USD)", "Extended (USD)"],
        ["Memory", "HMCG94", "64GB DDR5-5600 RDIMM", 16, 128, "$262.00", "$536,576.00"],
    ]
    quote = read_quote(csv_bytes(rows), "odm.csv")
    (line,) = quote.lines
    assert (line.quantity, line.quantity_basis, line.total_quantity, line.category) == (
        16,
        "per_server",
        2048,
        "Memory",
    )
    assert quote.servers_stated == 128


@pytest.mark.parametrize(
    ("title", "servers", "per_server"),
    [
        ("Configuration quantity: 16 nodes", 16, False),
        ("All prices per node, USD", None, True),
        ("Pricing per GPU server; order quantity 32", 32, True),
        ("Budgetary quotation - price per server", None, True),
        ("H200 expansion, 64 servers planned (quantities below are per server)", 64, True),
        ("Configuration quantities under a system line are per system.", None, False),
        ("Number of servers: 1,024", 1024, False),
        ("Quote for 2 management nodes and 16 GPU servers", 16, False),
        ("L11 integration of 64 GPU servers in 16 racks (4 servers per rack)", 64, False),
        ("Includes 3 storage nodes", None, False),
    ],
)
def test_statements_above_the_table(title: str, servers: int | None, per_server: bool) -> None:
    rows = [[title], [], HEADER, ["X1", "Intel Xeon Gold 6530", 2, 2150, 4300]]
    quote = read_quote(csv_bytes(rows), "q.csv")
    assert (quote.servers_stated, quote.per_server) == (servers, per_server)
    assert quote.lines[0].quantity_basis == ("per_server" if per_server else "total")


def test_european_reseller_csv() -> None:
    text = (
        '"Offerte;OFF-1;;;;"\n"Alle prijzen in EUR, excl. BTW;;;;;"\n'
        "Pos;Part number;Description;Qty;Unit price;Total\n"
        "10;ESC-N8-E11;ASUS ESC N8-E11 HGX H100 server;16;262.500,00 €;4.200.000,00 €\n"
        "20;MFP7E10-N030;fibre MMF, 30 m;1.024;64,50 €;66.048,00 €\n"
        "80;DISC;Projectkorting;1;-25.000,00 €;-25.000,00 €\n"
        ";;Subtotaal excl. BTW;;;4.241.048,00 €\n;;BTW 21%;;;890.620,08 €\n;;Totaal incl. BTW;;;5.131.668,08 €\n"
    )
    quote = read_quote(text.encode("utf-8-sig"), "eu.csv")
    assert quote.currency == "EUR" and quote.warnings == ()
    assert lines_of(quote) == [
        (4, "ASUS ESC N8-E11 HGX H100 server", 16, 262500.0, 4200000.0),
        (5, "fibre MMF, 30 m", 1024, 64.5, 66048.0),
        (6, "Projectkorting", 1, -25000.0, -25000.0),
    ]
    assert quote.skipped == {"subtotal or total": 2, "tax": 1}


@pytest.mark.parametrize(
    "label", ["zzgl. 19 % MwSt.", "19 % MwSt.", "zuzüglich 19% Mehrwertsteuer", "TVA 20 %", "plus sales tax", "VAT 20%"]
)
def test_tax_lines_in_several_languages_are_not_items(label: str) -> None:
    text = (
        "Pos;Artikelnummer;Bezeichnung;Menge;Einzelpreis;Gesamtpreis\n"
        "1;MQM9700-NS2F;NVIDIA Quantum-2 QM9700 64x NDR;2;33.500,00 €;67.000,00 €\n"
        f";;{label};;;12.730,00 €\n"
    )
    quote = read_quote(text.encode("utf-8"), "de.csv")
    assert [ln.description for ln in quote.lines] == ["NVIDIA Quantum-2 QM9700 64x NDR"]
    assert quote.skipped.get("tax") == 1


@pytest.mark.parametrize(
    ("rows", "currency"),
    [
        ([["All prices in GBP (£) excluding VAT"], HEADER, ["A", "Xeon", 2, "£2,000.00", "£4,000.00"]], "GBP"),
        ([["Currency:", "CHF"], HEADER, ["A", "Xeon", 2, 2000, 4000]], "CHF"),
        ([["Part", "Description", "Qty", "Unit Price (EUR)"], ["A", "Xeon", 2, 2000]], "EUR"),
        ([HEADER, ["A", "Xeon", 2, 2000, 4000]], "USD"),
    ],
)
def test_currency_detection(rows: list[list[Any]], currency: str) -> None:
    assert read_quote(csv_bytes(rows), "q.csv").currency == currency


def test_mixed_currencies_without_a_rate_are_refused_naming_them() -> None:
    """Lines priced in two currencies are read, each with its own; the review needs the rate between them (the
    quote states none): refused naming both, then converted line by line at the user's rate for the one not USD."""
    from neoplan.quote import review_quote

    rows = [HEADER, ["A", "Xeon", 2, "€2.000,00", "€4.000,00"], ["B", "NIC", 1, "$1,650.00", "$1,650.00"]]
    quote = read_quote(csv_bytes(rows), "q.csv")
    assert set(quote.currencies) == {"EUR", "USD"}
    with pytest.raises(QuoteError, match=r"several currencies \(EUR and USD\).*--usd-per-unit, USD per EUR"):
        review_quote(quote)
    review = review_quote(quote, usd_per_unit=1.1)
    assert review.rates == {"EUR": 1.1, "USD": 1.0} and review.rate_sources["EUR"] == "you (--usd-per-unit)"
    assert review.quote_total_usd == pytest.approx(4_000 * 1.1 + 1_650)


def test_totals_per_node_and_for_the_order_do_not_warn_and_freight_below_the_total_is_not_an_item() -> None:
    rows = [
        ["Configuration quantity: 4 nodes"],
        ["All prices per node"],
        HEADER,
        ["BUUW", "HGX H100 8-GPU Board", 1, 213500, 213500],
        ["BYKQ", "Xeon Gold 6530", 2, 2180, 4360],
        ["", "Total per node", "", "", 217860],
        ["", "Total for 4 nodes", "", "", 871440],
        ["", "Estimated freight", "", "", 1850],
        ["", "Estimated sales tax (8.25%)", "", "", 71893.8],
    ]
    quote = read_quote(csv_bytes(rows), "q.csv")
    assert quote.warnings == () and len(quote.lines) == 2
    assert (quote.servers_stated, quote.per_server) == (4, True)
    assert quote.skipped == {"subtotal or total": 2, "below the total": 1, "tax": 1}


def test_multi_sheet_workbook_keeps_each_sheets_rows() -> None:
    data = xlsx_bytes(
        {
            "Cover": [["Quote 17"], ["Currency: EUR"]],
            "Compute": [["Compute"], HEADER, ["X1", "Xeon Gold 6530", 2, "€ 2.150,00", "€ 4.300,00"]],
            "Network": [[], [], [], HEADER, ["M1", "QM9790 switch", 2, "€ 36.000,00", "€ 72.000,00"]],
        }
    )
    quote = read_quote(data, "multi.xlsx")
    assert quote.sheets == ("Compute", "Network") and quote.currency == "EUR"
    assert [(ln.sheet, ln.row, ln.unit_price) for ln in quote.lines] == [
        ("Compute", 3, 2150.0),
        ("Network", 5, 36000.0),
    ]


def test_raw_line_keeps_the_old_names_as_aliases() -> None:
    line = RawLine("", 2, "", "X1", "Xeon", 2.0, 2150.0, 4300.0)
    assert (line.unit_price_usd, line.extended_usd, line.quantity_basis, line.parent_row) == (
        2150.0,
        4300.0,
        "total",
        None,
    )


def test_full_header_below_a_cover_letter_but_not_a_weak_one() -> None:
    letter = [[f"Paragraph {i} of the cover letter."] for i in range(40)]
    rows = [*letter, ["PRICING"], ["Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price"]]
    rows += [[1, "ESC-N8-E11", "ASUS ESC N8-E11 HGX H100 server", 64, 251500, 16096000]]
    quote = read_quote(xlsx_bytes({"Proposal": rows}), "letter.xlsx")
    assert [(ln.row, ln.part_number) for ln in quote.lines] == [(43, "ESC-N8-E11")]
    weak = [*letter, ["Description", "Price"], ["Xeon Gold 6530", 2150]]
    with pytest.raises(QuoteError, match="no header row"):
        read_quote(csv_bytes(weak), "weak.csv")


def test_summary_sheet_is_not_counted_twice() -> None:
    header = ["Product #", "Description", "Qty", "Unit Net Price", "Ext Net Price"]
    data = xlsx_bytes(
        {
            "Summary": [["Section", "Description", "Amount (USD)"], ["Compute", "16x servers (see Compute)", 433600],
                        ["Networking", "Fabric", 72000], ["Total", "", 505600]],
            "Compute": [header, ["P1", "HPE Cray XD670 HGX H200 FIO kit", 16, 27100, 433600]],
            "Networking": [header, ["R9D12A", "QM9700 switch", 2, 36000, 72000]],
        }
    )  # fmt: skip
    quote = read_quote(data, "hpe.xlsx")
    assert quote.sheets == ("Compute", "Networking") and quote.skipped["summary sheet"] == 1
    assert [ln.sheet for ln in quote.lines] == ["Compute", "Networking"]


def test_numbered_sub_items_and_runs_of_zero_priced_modules_belong_to_the_server_line() -> None:
    rows = [
        ["Item", "Mfr. Part No.", "Description", "Qty", "Unit Price", "Total"],
        [1, "SYS-821GE-TNHR", "Supermicro SuperServer SYS-821GE-TNHR, configured as below", 16, 283900, 4542400],
        ["1.1", "GPU-HGX-H100-8", "NVIDIA HGX H100 8-GPU baseboard", 1, "incl.", "incl."],
        ["1.2", "MEM-DR564L", "64GB DDR5-4800 RDIMM", 32, "incl.", "incl."],
        [2, "SYS-821GE-TNHR", "Supermicro SYS-821GE-TNHR GPU server", 4, 283900, 1135600],
        [3, "P4X-8480", "Intel Xeon Platinum 8480+", 2, 0, 0],
        [4, "MEM-64G", "64GB RDIMM", 32, 0, 0],
        [5, "SYS-821GE-TNHR", "Supermicro SYS-821GE-TNHR GPU server", 8, 283900, 2271200],
        [6, "CBL-C19", "Power cord C19-C20 (6 per server)", 48, 0, "Included"],
        [7, "MQM9700-NS2F", "QM9700 switch", 2, 36900, 73800],
    ]
    quote = read_quote(csv_bytes(rows), "q.csv")
    got = [(ln.row, ln.quantity_basis, ln.parent_row) for ln in quote.lines]
    assert got == [(2, "total", None), (3, "per_parent", 2), (4, "per_parent", 2), (5, "total", None),
                   (6, "per_parent", 5), (7, "per_parent", 5), (8, "total", None), (9, "total", None),
                   (10, "total", None)]  # fmt: skip


def test_explicit_per_server_columns_are_never_sub_items() -> None:
    rows = [
        ["Part", "Description", "Qty/Node", "Nodes", "Unit Price", "Extended"],
        ["SYS-1", "8U HGX barebone server", 1, 128, 7600, 972800],
        ["X710", "Intel X710 LOM, integrated", 1, 128, 0, 0],
        ["AST2600", "BMC, integrated", 1, 128, 0, 0],
    ]
    quote = read_quote(csv_bytes(rows), "odm.csv")
    assert {ln.quantity_basis for ln in quote.lines} == {"per_server"} and quote.servers_stated == 128


def test_currency_column_and_lot_quantities() -> None:
    rows = [
        ["No.", "Index", "Description", "Qty", "Unit", "Net price", "Net value", "VAT", "Gross value", "Currency"],
        [1, "SYS-A21GE", "HGX B200 8-GPU server", 16, "pcs", 351500, 5624000, 1293520, 6917520, "EUR"],
        [2, "LOT-1", "16x Dell PowerEdge XE9680 (16 systems)", "1 lot", "", 4498000, 4498000, 0, 4498000, "EUR"],
    ]
    quote = read_quote(xlsx_bytes({"Offer": rows}), "pl.xlsx")
    assert quote.currency == "EUR"
    assert [(ln.part_number, ln.unit_price, ln.extended, ln.quantity, ln.quantity_unit) for ln in quote.lines] == [
        ("SYS-A21GE", 351500, 5624000, 16, ""),
        ("LOT-1", 4498000, 4498000, 1, "lot"),
    ]
    assert not quote.lines[1].quantity_assumed


def test_cli_reads_a_euro_quote_with_a_rate_and_refuses_it_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from neoplan.cli import main

    rows = [["Alle prijzen in EUR"], HEADER, ["MQM9790-NS2F", "QM9790 64x NDR switch", 2, "33.100,00 €", "66.200,00 €"]]
    path = tmp_path / "eu.csv"
    path.write_bytes(csv_bytes(rows, ";"))
    assert main(["quote", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "EUR" in err and "--usd-per-unit" in err and "\n" not in err
    assert main(["quote", str(path), "--usd-per-unit", "1.08", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["currency"] == "EUR"
    assert out["lines"][0]["unit_price_usd"] == pytest.approx(33_100 * 1.08)


def test_priced_numbered_children_stay_lines_and_other_number_formats() -> None:
    cisco = [
        ["Line", "Part Number", "Description", "Qty", "Unit List Price", "Discount(%)", "Extended Net Price"],
        ["1.0", "N9K-C9364D-GX2A", "Nexus 9364D-GX2A 64x400G switch", 4, "$100,000.00", 62.0, "$152,000.00"],
        ["1.1", "CON-SNT-N9K", "SNTC 8X5XNBD service, 36 months", 4, "$12,000.00", 20.0, "$38,400.00"],
    ]
    quote = read_quote(csv_bytes(cisco), "cisco.csv")
    assert [(ln.unit_price, ln.quantity_basis) for ln in quote.lines] == [(38000.0, "total"), (9600.0, "total")]
    german = "sep=;\nPos;Artikelnummer;Bezeichnung;Menge;Einzelpreis;Gesamtpreis\n"
    german += "1;MQM9790;Switch;2 Stk;33.100,00;66.200,00\n"
    german += ";;Summe netto;;;66.200,00\n;;MwSt. 19%;;;12.578,00\n;;Gesamtsumme brutto;;;78.778,00\n"
    quote = read_quote(german.encode("cp1252"), "de.csv")
    assert lines_of(quote) == [(3, "Switch", 2.0, 33100.0, 66200.0)] and quote.warnings == ()
    assert quote.skipped == {"subtotal or total": 2, "tax": 1}
    assert parse_money("₹ 2,34,56,789.00") == 23456789.0


def test_a_second_table_with_other_columns_in_the_same_sheet() -> None:
    rows = [
        ["Part", "Description", "Qty", "Unit Price", "Total"],
        ["SYS-821GE-TNHR", "Supermicro HGX H100 server", 16, 283900, 4542400],
        ["", "Compute total", "", "", 4542400],
        [],
        ["Network", "", "", "", "", ""],
        ["Line", "Manufacturer", "Mfr Part #", "Description", "Quantity", "Price Each"],
        [1, "NVIDIA", "MQM9700-NS2F", "QM9700 switch", 2, 36900],
    ]
    quote = read_quote(csv_bytes(rows), "two.csv")
    got = [(ln.row, ln.part_number, ln.description, ln.quantity, ln.unit_price) for ln in quote.lines]
    assert got == [(2, "SYS-821GE-TNHR", "Supermicro HGX H100 server", 16, 283900),
                   (7, "MQM9700-NS2F", "QM9700 switch", 2, 36900)]  # fmt: skip
    assert quote.skipped["header of another table"] == 1
