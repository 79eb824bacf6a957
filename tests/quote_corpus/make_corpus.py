"""Write the quote-review test corpus: ``python tests/quote_corpus/make_corpus.py`` (outputs are committed).

Every file is a SYNTHETIC SAMPLE made for neoplan tests, marked so in its title block, but written the way
Dell, Supermicro resellers, HPE, Lenovo, distributors, ODMs, European resellers and PDF-to-spreadsheet exports
write real quotes (see /work/shared/design/QUOTES.md): title blocks, section headings, subtotals, discounts as
negative lines, "Included" items, freight, tax/VAT, notes. Part numbers are public NVIDIA / OEM part numbers or
OEM-shaped SKUs; prices are set against the model's price book (data/prices/*.csv): an honest line sits within
about -30 % / +10 % of the book, a padded one clearly over (about 2x).

The expectations (``expected.yaml``) are written here next to each quote, from what the quote says, not from
what any implementation reads: cluster size, GPU model, currency, the findings the article's advice
(BRIEF.md §2) demands and those it forbids, per-server aggregates, and spot checks of single lines by the row
the file shows. ``layout`` records where the header and the item rows are, for the metamorphic tests.

The script does not import neoplan: the corpus is independent of the code under test.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openpyxl
import yaml
from openpyxl.styles import Alignment, Font

HERE = Path(__file__).resolve().parent
MARK = "SYNTHETIC SAMPLE made for neoplan tests; not a real quote"
FIXED_TIME = dt.datetime(2024, 11, 4, 9, 0, 0)

PADDING = [
    "cpu_top_bin",
    "ram_over_1tb",
    "dpu_bluefield",
    "frontend_spectrum",
    "oob_spectrum",
    "nvaie_license",
    "nics_below_8",
    "price_above_book",
    "cpu_amd",
]

Cell = Any


@dataclass
class Sheet:
    """One sheet (or the CSV file) being written: rows as the file shows them, 1-based row numbers."""

    name: str
    rows: list[list[Cell]] = field(default_factory=list)
    header: int = 0
    items: list[int] = field(default_factory=list)
    marks: dict[str, int] = field(default_factory=dict)
    cols: dict[str, int] = field(default_factory=dict)  # 0-based: qty, price, ext (for the metamorphic tests)
    indent: set[int] = field(default_factory=set)  # rows whose description cell is indented (XLSX)
    merges: list[str] = field(default_factory=list)  # merged cell ranges (XLSX), e.g. "A1:E1"
    formulas: bool = False  # XLSX: extended prices as =qty*price formulas with their cached values
    hidden: bool = False  # XLSX: a hidden sheet (not shown to the reader of the workbook)

    def add(self, *cells: Cell) -> int:
        self.rows.append(list(cells))
        return len(self.rows)

    def head(self, *cells: Cell, **cols: int) -> int:
        self.header = self.add(*cells)
        self.cols = dict(cols)
        return self.header

    def item(self, *cells: Cell, mark: str | None = None, indent: bool = False) -> int:
        row = self.add(*cells)
        self.items.append(row)
        if mark:
            self.marks[mark] = row
        if indent:
            self.indent.add(row)
        return row


@dataclass
class Quote:
    """A corpus file with its expectations."""

    file: str
    style: str
    sheets: list[Sheet]
    expect: dict[str, Any]
    checks: list[tuple[str, str, str]]  # (sheet name, mark, component)
    total: float  # net total of the quote in its currency, excluding VAT/tax
    servers_quoted: int | None = None
    usd_per_unit: float | None = None
    delimiter: str = ","
    bom: bool = False
    encoding: str = "utf-8"
    crlf: bool = True
    note: str = ""
    per_server_copies: int = 1  # a per-server quote: the cluster buys this many copies of what the file lists
    bad_totals: list[tuple[str, int]] = field(default_factory=list)  # (sheet, row) of stated totals off their lines


# ---------------------------------------------------------------- number formats


def usd(x: float) -> str:
    """$1,234.56 / ($1,234.56)."""
    return f"(${-x:,.2f})" if x < 0 else f"${x:,.2f}"


def usd_sp(x: float) -> str:
    """$ 1,234.56 / -$ 1,234.56 as PDF exports show."""
    return f"-$ {-x:,.2f}" if x < 0 else f"$ {x:,.2f}"


def plain(x: float) -> str:
    return f"{x:,.2f}"


def eu(x: float, sym: str = "") -> str:
    """1.234,56 (European), optionally with a trailing currency sign."""
    s = f"{abs(x):,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")
    s = ("-" if x < 0 else "") + s
    return f"{s} {sym}".strip()


def gbp(x: float) -> str:
    return f"-£{-x:,.2f}" if x < 0 else f"£{x:,.2f}"


def n(x: float) -> str:
    return f"{x:,.0f}"


class Money:
    """Running totals of a quote."""

    def __init__(self) -> None:
        self.total = 0.0
        self.section = 0.0

    def line(self, qty: float, unit: float) -> float:
        ext = round(qty * unit, 2)
        self.total += ext
        self.section += ext
        return ext

    def sub(self) -> float:
        s, self.section = self.section, 0.0
        return round(s, 2)


def title(sh: Sheet, company: str, doc: str, number: str, customer: str, extra: Sequence[Sequence[Cell]] = ()) -> None:
    sh.add(company)
    sh.add(doc)
    sh.add(MARK)
    sh.add("Quote No.:", number)
    sh.add("Date:", "2024-11-04", "Valid until:", "2024-12-04")
    sh.add("Customer:", customer)
    for row in extra:
        sh.add(*row)
    sh.add()


# ---------------------------------------------------------------- the fabric arithmetic (BRIEF.md §2.3)


def fabric(servers: int, nics: int = 8, oversub: int = 1, dac_spine: bool = False) -> dict[str, int]:
    """Counts of a rail-optimized NDR fat tree of 64-port switches (32 servers per scalable unit).

    Up to one scalable unit (32 servers) is a single tier of leaves (``nics`` rail leaves at 32 servers, fewer
    for fewer ports); above it, spines carry the leaf uplinks (non-blocking: 32 up per leaf; 2:1: 16). Optics at
    every NIC (single-port OSFP) and every leaf down port (twin-port OSFP, 2 NICs each); leaf-spine links on
    twin-port optics at both ends (one fibre per link) or on twin-port DAC (2 links each).
    """
    down = servers * nics
    if servers <= 32:
        leaves = nics if servers == 32 else max(1, -(-down // 64))
        up = 0
    else:
        leaves = nics * -(-servers // 32)
        up = leaves * (32 // oversub)
    return {
        "switches": leaves + up // 64,
        "leaves": leaves,
        "spines": up // 64,
        "server_xcvr": down,
        "twin": down // 2 + (0 if dac_spine else up),
        "fibre": down + (0 if dac_spine else up),
        "dac": up // 2 if dac_spine else 0,
    }


# ---------------------------------------------------------------- 1. Dell style


def dell_quote(
    file: str,
    servers: int,
    board: str,
    cpu: str,
    dimm: tuple[int, str],
    nics: int,
    dpu: tuple[int, str] | None,
    system_price: float,
    *,
    networking_sheet: bool,
    frontend: tuple[str, str, float, int],
    oob: tuple[str, str, float, int],
    nvaie: tuple[str, float] | None,
    indent_style: str,
    expect: dict[str, Any],
    extra_services: Sequence[tuple[str, str, float, int]] = (),
) -> Quote:
    money = Money()
    q = Sheet("Quote")
    title(
        q,
        "DELL TECHNOLOGIES",
        "Sales Quote",
        f"3000{servers:03d}4821{len(file):02d}.1",
        "Example Neocloud Inc., 100 Example Way, Austin TX",
        [("Sales Rep:", "Enterprise Sales, Dell Technologies"), ("Currency:", "USD")],
    )
    q.add(f"Group 1: PowerEdge XE9680 ({servers} units)")
    q.head("Description", "SKU", "Unit Price", "Quantity", "Subtotal", qty=3, price=2, ext=4)

    def sub(desc: str, sku: str, qty: int, mark: str | None = None) -> None:
        text = ("    " + desc) if indent_style == "spaces" else desc
        q.item(text, sku, None, qty, None, mark=mark, indent=indent_style == "cells")

    ext = money.line(servers, system_price)
    q.item("PowerEdge XE9680 Rack Server", "210-BDZB", system_price, servers, ext, mark="system")
    sub(board, "370-AHRT", 1, mark="board")
    sub(cpu, "338-CHSG", 1)
    sub("Additional Processor: " + cpu, "338-CHSG", 1, mark="cpu2")
    sub(dimm[1], "370-AHCL", dimm[0], mark="dimm")
    sub("NVIDIA ConnectX-7 Single Port NDR OSFP PCIe Gen5 x16 Adapter, Full Height", "540-BDHB", nics, mark="nic")
    if dpu:
        sub(dpu[1], "540-BDKF", dpu[0], mark="dpu")
    sub("3.84TB Data Center NVMe Read Intensive AG Drive U2 Gen4 with carrier", "345-BDZB", 8)
    sub("BOSS-N1 controller card + with 2 M.2 960GB (RAID 1)", "403-BCRU", 1)
    sub("Dual, Hot-Plug, Fully Redundant Power Supply (3+3), 2800W, Titanium", "450-AKMR", 1)
    sub("iDRAC9, Datacenter 16G", "528-CTIC", 1)
    sub("ReadyRails Sliding Rails", "770-BDEL", 1)
    sub("ProSupport Plus Mission Critical 4-Hour 7x24 Onsite Service, 36 Month(s)", "865-BBPG", 1, mark="support")
    for desc, sku, price, qty in extra_services:
        ext = money.line(qty, price)
        q.item(desc, sku, price, qty, ext)
    q.add("", "", "", "Group 1 Subtotal", money.sub())
    q.add()

    net = Sheet("Networking") if networking_sheet else q
    if networking_sheet:
        title(net, "DELL TECHNOLOGIES", "Sales Quote: networking", "see sheet Quote", "Example Neocloud Inc.")
        net.head("Description", "SKU", "Unit Price", "Quantity", "Subtotal", qty=3, price=2, ext=4)
    else:
        net.add("Group 2: Networking")
    fab = fabric(servers, nics)

    def priced(desc: str, sku: str, price: float, qty: int, mark: str | None = None) -> None:
        ext = money.line(qty, price)
        net.item(desc, sku, price, qty, ext, mark=mark)

    priced(
        "NVIDIA Quantum-2 QM9700 64-port NDR 400Gb/s InfiniBand switch, MQM9700-NS2F, P2C airflow",
        "210-BFBQ",
        37250.0,
        fab["switches"],
        "ib_switch",
    )
    priced(
        "NVIDIA MMA4Z00-NS400 400Gb/s single-port OSFP transceiver, SR4 multimode, flat top (adapter side)",
        "407-BDLS",
        1195.0,
        fab["server_xcvr"],
        "xcvr_server",
    )
    priced(
        "NVIDIA MMA4Z00-NS twin-port 800Gb/s OSFP transceiver, 2xSR4 multimode, finned top (switch side)",
        "407-BDLT",
        1290.0,
        fab["twin"],
        "xcvr_twin",
    )
    priced(
        "NVIDIA MFP7E10-N030 passive fiber cable, MMF, MPO12 APC to MPO12 APC, 30m",
        "470-AFQZ",
        72.0,
        fab["fibre"],
        "fibre",
    )
    priced(*frontend, "frontend")
    priced(*oob, "oob")
    if nvaie:
        priced(nvaie[0], "634-BYLJ", nvaie[1], servers * 8, "nvaie")
    net.add("", "", "", "Networking Subtotal", money.sub())
    end = net
    end.add()
    end.add("", "", "", "Shipping", 0.0)
    end.add("", "", "", "Total (USD, excl. tax)", round(money.total, 2))
    end.add()
    end.add("Notes: prices exclude sales tax. Quote subject to Dell's Commercial Terms of Sale.")
    end.add("Configuration quantities under a system line are per system.")
    sheets = [q, net] if networking_sheet else [q]
    terms = Sheet("Terms")
    terms.add("Dell Technologies Commercial Terms of Sale apply.")
    terms.add(MARK)
    terms.add("Lead time: 12-16 weeks after order; Incoterms: DAP customer site.")
    sheets.append(terms)
    checks = [
        ("Quote", "system", "system"),
        ("Networking" if networking_sheet else "Quote", "xcvr_server", "backend_server_link"),
        ("Networking" if networking_sheet else "Quote", "xcvr_twin", "backend_switch_link"),
        ("Networking" if networking_sheet else "Quote", "fibre", "backend_fibre"),
        ("Networking" if networking_sheet else "Quote", "ib_switch", "backend_switch"),
    ]
    return Quote(file, "dell", sheets, expect, checks, money.total)


# ---------------------------------------------------------------- writers


def write_csv(quote: Quote) -> bytes:
    (sheet,) = quote.sheets
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=quote.delimiter, lineterminator="\r\n" if quote.crlf else "\n")
    for row in sheet.rows:
        w.writerow(["" if c is None else c for c in row])
    text = buf.getvalue()
    return (("\ufeff" if quote.bom else "") + text).encode(quote.encoding)


def write_xlsx(quote: Quote) -> bytes:
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for sheet in quote.sheets:
        ws = wb.create_sheet(sheet.name)
        for r, row in enumerate(sheet.rows, start=1):
            for c, value in enumerate(row, start=1):
                if value is None or value == "":
                    continue
                cell = ws.cell(row=r, column=c, value=value)
                if isinstance(value, float):
                    cell.number_format = "#,##0.00"
                if r == sheet.header:
                    cell.font = Font(bold=True)
                if r in sheet.indent and isinstance(value, str) and c == 1:
                    cell.alignment = Alignment(indent=2)
                if isinstance(value, str) and "\n" in value:
                    cell.alignment = Alignment(wrap_text=True, vertical="top")
        for rng in sheet.merges:
            ws.merge_cells(rng)
        if sheet.hidden:
            ws.sheet_state = "hidden"
        ws.column_dimensions["A"].width = 18
        ws.column_dimensions["B"].width = 60
    wb.properties.creator = "neoplan tests"
    wb.properties.created = FIXED_TIME
    wb.properties.modified = FIXED_TIME
    buf = io.BytesIO()
    wb.save(buf)
    data = buf.getvalue()
    for index, sheet in enumerate(quote.sheets, start=1):
        if sheet.formulas:
            data = _with_formulas(data, index, sheet)
    return _reproducible(data)


def _col(index: int) -> str:
    """0-based column index -> letter (A..Z is enough here)."""
    return chr(ord("A") + index)


def _with_formulas(data: bytes, index: int, sheet: Sheet) -> bytes:
    """Rewrite the extended-price cells of the item rows as =qty*price formulas, keeping the cached value.

    Workbooks made in Excel carry formulas with their last computed values; openpyxl cannot compute them, so the
    formula is added to the sheet XML next to the value it was written with.
    """
    q, p, e = (_col(sheet.cols[k]) for k in ("qty", "price", "ext"))
    part = f"xl/worksheets/sheet{index}.xml"
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == part:
                xml = body.decode("utf-8")
                for r in sheet.items:
                    xml = re.sub(
                        rf'<c r="{e}{r}"( t="n")?( s="\d+")?( t="n")?><v>',
                        lambda m, r=r: (
                            f'<c r="{e}{r}"{m.group(1) or ""}{m.group(2) or ""}{m.group(3) or ""}>'
                            f"<f>{q}{r}*{p}{r}</f><v>"
                        ),
                        xml,
                    )
                body = xml.encode("utf-8")
            dst.writestr(info, body)
    return out.getvalue()


def _reproducible(data: bytes) -> bytes:
    """The same workbook bytes on every run: fixed zip timestamps and document dates."""
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = re.sub(rb"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z", stamp.encode(), body)
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(fixed, body)
    return out.getvalue()


def ranges(rows: Sequence[int]) -> str:
    """[3,4,5,9] -> '3-5,9'."""
    out: list[str] = []
    rows = sorted(rows)
    i = 0
    while i < len(rows):
        j = i
        while j + 1 < len(rows) and rows[j + 1] == rows[j] + 1:
            j += 1
        out.append(str(rows[i]) if i == j else f"{rows[i]}-{rows[j]}")
        i = j + 1
    return ",".join(out)


PLATFORM_RAM_GB = {"h100-sxm": 1024, "h200-sxm": 2048, "b200-sxm": 2048, "b300-sxm": 3072}
"""RAM per server the advice recommends on each platform: at least the GPUs' HBM, as OEMs ship it (DGX H200 and DGX
B200: 2 TB; B300's 8 x 288 GB of HBM: 3 TB); the article's 1 TB on H100. More is padding (``ram_over_1tb``); up to
it, never (issue 38: no finding recommends less memory than the GPUs hold)."""


def ram_advice(expect: dict[str, Any]) -> dict[str, Any]:
    """``expect`` with the RAM finding demanded or forbidden by the quote's RAM per server and its platform."""
    ram = expect.get("per_server", {}).get("ram_gb")
    recommended = PLATFORM_RAM_GB.get(expect.get("gpu_model") or "")
    if ram is None or recommended is None:
        return expect
    must = [c for c in expect["findings_must"] if c != "ram_over_1tb"]
    must_not = [c for c in expect["findings_must_not"] if c != "ram_over_1tb"]
    (must if ram > recommended else must_not).append("ram_over_1tb")
    return {**expect, "findings_must": must, "findings_must_not": must_not}


def entry(quote: Quote) -> dict[str, Any]:
    by_name = {s.name: s for s in quote.sheets}
    csv_file = quote.file.endswith(".csv")
    lines = [
        {"sheet": "" if csv_file else sheet, "row": by_name[sheet].marks[mark], "component": comp}
        for sheet, mark, comp in quote.checks
    ]
    expect = dict(quote.expect)
    expect.setdefault("findings_must", [])
    expect.setdefault("findings_must_not", [])
    expect = ram_advice(expect)
    marks = {mark: row for sheet in quote.sheets for mark, row in sheet.marks.items()}
    if "above_book_rows" in expect:
        expect["above_book_rows"] = [marks[m] for m in expect["above_book_rows"]]
    if "bundle_row" in expect:
        expect["bundle_row"] = marks[expect["bundle_row"]]
    overlap = set(expect["findings_must"]) & set(expect["findings_must_not"])
    assert not overlap, (quote.file, overlap)
    expect["lines"] = lines
    if quote.bad_totals:
        expect["bad_totals"] = [{"sheet": "" if csv_file else sh, "row": row} for sh, row in quote.bad_totals]
    layout = {
        ("" if csv_file else s.name): {
            "header_row": s.header,
            "item_rows": ranges(s.items),
            "qty_col": s.cols.get("qty"),
            "price_col": s.cols.get("price"),
            "ext_col": s.cols.get("ext"),
        }
        for s in quote.sheets
        if s.header
    }
    return {
        "file": quote.file,
        "style": quote.style,
        "note": quote.note,
        "servers_quoted": quote.servers_quoted,
        "usd_per_unit": quote.usd_per_unit,
        "delimiter": quote.delimiter if csv_file else None,
        "encoding": quote.encoding if csv_file else None,
        "quote_total": round(quote.total, 2),
        "per_server_copies": quote.per_server_copies,
        "expect": expect,
        "layout": layout,
    }


def not_padding(*keep: str, extra: Sequence[str] = ()) -> list[str]:
    """The padding codes a quote must not raise: every code of PADDING not in ``keep``."""
    return [c for c in PADDING if c not in keep] + list(extra)


QUOTES: list[Callable[[], Quote]] = []


def quote(fn: Callable[[], Quote]) -> Callable[[], Quote]:
    QUOTES.append(fn)
    return fn


@quote
def dell_h100_16() -> Quote:
    q = dell_quote(
        "dell_xe9680_h100_16.xlsx",
        16,
        "NVIDIA HGX H100 80GB 700W SXM5 GPUs, fully interconnected with NVLink technology",
        "Intel Xeon Platinum 8480+ 2G, 56C/112T, 16GT/s, 105M Cache, Turbo, HT (350W) DDR5-4800",
        (32, "64GB RDIMM, 4800MT/s Dual Rank"),
        8,
        (2, "NVIDIA BlueField-3 B3220 DPU, 2x 200GbE QSFP112, PCIe Gen5 x16, Full Height"),
        281950.0,
        networking_sheet=False,
        frontend=(
            "NVIDIA Spectrum SN4600C 64-port 100GbE switch, MSN4600-CS2FC, Cumulus Linux",
            "210-BFQW",
            27400.0,
            2,
        ),
        oob=("NVIDIA Spectrum SN2201 48x 1GbE + 4x 100GbE switch, MSN2201-CB2FC, Cumulus Linux", "210-BFQX", 9350.0, 1),
        nvaie=None,
        indent_style="cells",
        expect={
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield", "frontend_spectrum", "oob_spectrum"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "frontend_spectrum",
                "oob_spectrum",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
    )
    q.note = (
        "Dell: one priced base line, unpriced configuration modules indented (cell indent), networking on the "
        "same sheet, a Terms sheet"
    )
    return q


@quote
def dell_h200_32() -> Quote:
    q = dell_quote(
        "dell_xe9680_h200_32_two_sheets.xlsx",
        32,
        "NVIDIA HGX H200 141GB 700W SXM5 8-GPU baseboard, fully interconnected with NVLink technology",
        "Intel Xeon Platinum 8568Y+ 2.3G, 48C/96T, 20GT/s, 300M Cache, Turbo, HT (350W) DDR5-5600",
        (32, "64GB RDIMM, 5600MT/s, Dual Rank"),
        8,
        (1, "NVIDIA BlueField-3 B3140L E-series DPU, 1x 400GbE/NDR QSFP112, PCIe Gen5 x16, Half Height"),
        318400.0,
        networking_sheet=True,
        frontend=(
            "Dell PowerSwitch Z9432F-ON, 32x 400GbE QSFP56-DD, 2x PSU, IO to PSU air, SONiC",
            "210-AZLL",
            29800.0,
            2,
        ),
        oob=("Dell PowerSwitch N3248TE-ON, 48x 1GbE RJ45, 4x 10GbE SFP+, 2x 100GbE, OS10", "210-ATIU", 1490.0, 2),
        nvaie=(
            "NVIDIA AI Enterprise Essentials subscription, per GPU, 5 Years, incl. Business Standard support",
            21900.0,
        ),
        indent_style="spaces",
        extra_services=[("ProDeploy Plus for PowerEdge XE9680, rack and stack, per server", "800-BBQE", 2450.0, 32)],
        expect={
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield", "nvaie_license"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "nvaie_license",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 1},
        },
    )
    q.checks.append(("Networking", "nvaie", "software_licence"))
    q.note = "Dell: networking on its own sheet; sub-items indented with spaces; NVAIE 5 years; generic switches"
    return q


# ---------------------------------------------------------------- 2. Reseller style (config in the description)


def backend_optics(
    sh: Sheet,
    money: Money,
    servers: int,
    fmt: Callable[[float], str],
    line_no: list[int],
    nics: int = 8,
    oversub: int = 1,
    dac_spine: bool = False,
    twin_price: float = 1295.0,
    switch: str = "MQM9700-NS2F",
    switch_price: float = 36900.0,
) -> dict[str, int]:
    """Append the back-end fabric lines (Item, Part Number, Description, Qty, Unit Price, Ext. Price)."""
    fab = fabric(servers, nics, oversub, dac_spine)

    def add(pn: str, desc: str, qty: int, unit: float, mark: str) -> None:
        line_no[0] += 1
        ext = money.line(qty, unit)
        sh.item(line_no[0], pn, desc, qty, fmt(unit), fmt(ext), mark=mark)

    add(
        switch,
        "NVIDIA Quantum-2 QM9700 InfiniBand switch, 64x NDR 400Gb/s ports, 32 OSFP, managed, P2C airflow",
        fab["switches"],
        switch_price,
        "ib_switch",
    )
    add(
        "MMA4Z00-NS400",
        "NVIDIA 400Gb/s single-port OSFP transceiver, SR4 multimode, 50m, flat top",
        fab["server_xcvr"],
        1189.0,
        "xcvr_server",
    )
    add(
        "MMA4Z00-NS",
        "NVIDIA twin-port 800Gb/s OSFP transceiver, 2x SR4 multimode, finned top",
        fab["twin"],
        twin_price,
        "xcvr_twin",
    )
    if fab["dac"]:
        add(
            "MCP4Y10-N002",
            "NVIDIA passive copper cable, twin-port 800Gb/s OSFP to OSFP, 2m, finned top",
            fab["dac"],
            215.0,
            "dac",
        )
    add("MFP7E10-N030", "NVIDIA passive fiber cable, MMF, MPO12 APC to MPO12 APC, 30m", fab["fibre"], 71.0, "fibre")
    return fab


@quote
def reseller_h100_32() -> Quote:
    money = Money()
    sh = Sheet("")
    title(
        sh,
        "Bayline Compute Solutions LLC, authorized Supermicro and NVIDIA partner",
        "QUOTATION",
        "BCS-Q24-10873",
        "Example Neocloud Inc.",
        [("Prepared by:", "J. Rivera, Solutions Engineer"), ("Terms:", "Net 30, FOB origin")],
    )
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    sh.add("", "", "GPU COMPUTE")
    no = [1]
    desc = (
        "Supermicro SYS-821GE-TNHR 8U GPU SuperServer, HGX H100 8-GPU SXM5 80GB, 2x Xeon Platinum 8480+ 56C "
        "2.0GHz, 2TB (32x 64GB) DDR5-4800 ECC RDIMM, 8x ConnectX-7 400G NDR OSFP, 2x BlueField-3 B3220 "
        "2x200GbE, 8x 3.84TB NVMe U.2, 2x 960GB M.2 NVMe boot, 6x 3000W Titanium PSU, rail kit"
    )
    sh.item(1, "SYS-821GE-TNHR", desc, 32, usd(286500.0), usd(money.line(32, 286500.0)), mark="system")
    no[0] += 1
    sh.item(no[0], "AOC-HGX-H100-8-PWR", "Power cord C19-C20 2m (6 per server)", 192, usd(0.0), "Included")
    no[0] += 1
    sh.item(
        no[0],
        "SVC-3Y-NBD-821GE",
        "Supermicro 3-year parts & labor warranty, next business day on-site, per server",
        32,
        usd(5900.0),
        usd(money.line(32, 5900.0)),
        mark="warranty",
    )
    sh.add("", "", "Subtotal GPU compute", "", "", usd(money.sub()))
    sh.add("", "", "BACKEND NETWORK (InfiniBand NDR, rail-optimized)")
    backend_optics(sh, money, 32, usd, no)
    sh.add("", "", "Subtotal backend network", "", "", usd(money.sub()))
    sh.add("", "", "SERVICES")
    no[0] += 1
    sh.item(
        no[0],
        "SVC-L12-CLUSTER",
        "L12 cluster integration, cabling and burn-in at our facility (whole cluster)",
        1,
        usd(42000.0),
        usd(money.line(1, 42000.0)),
    )
    no[0] += 1
    sh.item(
        no[0], "FREIGHT", "Freight and insurance, air-ride truck, 4 racks", 1, usd(6800.0), usd(money.line(1, 6800.0))
    )
    sh.add("", "", "Subtotal services", "", "", usd(money.sub()))
    sh.add()
    sh.add("", "", "TOTAL (USD, excl. sales tax)", "", "", usd(money.total))
    sh.add("", "", "Sales tax: exempt (resale certificate on file)")
    sh.add("Notes: lead time 10-14 weeks ARO. Prices valid 30 days. " + MARK + ".")
    return Quote(
        "reseller_smc_h100_32.csv",
        "reseller",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "xcvr_twin", "backend_switch_link"),
            ("", "fibre", "backend_fibre"),
            ("", "warranty", "warranty"),
        ],
        money.total,
        note="Item column is a line number; whole servers with the configuration in the description",
    )


@quote
def reseller_h200_per_server() -> Quote:
    money = Money()
    sh = Sheet("")
    title(
        sh,
        "NorthPeak Systems Inc.",
        "Budgetary quotation - price per server",
        "NPS-2411-0457",
        "Example Neocloud Inc.",
        [("Project:", "H200 expansion, 64 servers planned (quantities below are per server)")],
    )
    sh.head("Line", "Mfr Part No", "Description", "Quantity", "Unit Price", "Extended Price", qty=3, price=4, ext=5)
    desc = (
        "Supermicro SYS-821GE-TNHR, HGX H200 8-GPU SXM5 141GB, 2x Intel Xeon Gold 6548Y+ 32C 2.5GHz, "
        "1TB DDR5-5600 (16x64GB), 1x ConnectX-6 Dx 2x100GbE (front end), 4x 7.68TB NVMe U.2, 2x 960GB M.2"
    )
    sh.item(1, "SYS-821GE-TNHR", desc, 1, usd(281900.0), usd(money.line(1, 281900.0)), mark="system")
    sh.item(
        2,
        "MCX75310AAS-NEAT",
        "NVIDIA ConnectX-7 single-port OSFP 400Gb/s NDR adapter (4 per server)",
        4,
        usd(1620.0),
        usd(money.line(4, 1620.0)),
        mark="nic",
    )
    sh.item(
        3,
        "MMA4Z00-NS400",
        "NVIDIA 400G OSFP transceiver, SR4 multimode, flat top (4 per server)",
        4,
        usd(1210.0),
        usd(money.line(4, 1210.0)),
        mark="xcvr_server",
    )
    sh.item(
        4,
        "WTY-3Y-ONSITE",
        "3 year parts and labor warranty, NBD onsite",
        1,
        usd(6150.0),
        usd(money.line(1, 6150.0)),
        mark="warranty",
    )
    sh.item(5, "", "Volume discount (64+ units)", 1, usd(-4000.0), usd(money.line(1, -4000.0)), mark="discount")
    sh.add("", "", "Total per server (USD)", "", "", usd(money.total))
    sh.add("", "", "Freight: quoted separately. Tax: not included.")
    sh.add(MARK)
    return Quote(
        "reseller_smc_h200_per_server_4nic.csv",
        "reseller",
        [sh],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["nics_below_8"],
            "findings_must_not": not_padding("nics_below_8", extra=["extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 4, "dpus": 0},
        },
        [
            ("", "system", "system"),
            ("", "nic", "backend_nic"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "discount", "discount"),
        ],
        money.total,
        servers_quoted=64,
        per_server_copies=64,
        crlf=False,
        note="Per-server quote (the user types 64 servers); 4 back-end NICs '(4 per server)'; 1TB '(16x64GB)'",
    )


# ---------------------------------------------------------------- 3. HPE style (list, discount, net)


def hpe_line(
    sh: Sheet,
    money: Money,
    pn: str,
    desc: str,
    qty: int,
    net: float,
    disc: float,
    mark: str | None = None,
    pct_text: bool = False,
) -> None:
    """Product # / Description / Qty / Unit List / Disc % / Unit Net / Ext Net; list = net / (1 - disc)."""
    unit_list = round(net / (1 - disc), 2) if net else 0.0
    ext = money.line(qty, net)
    d: Cell = f"{disc * 100:.0f}%" if pct_text else round(disc * 100, 1)
    sh.item(pn, desc, qty, unit_list, d, net, ext, mark=mark)


HPE_HEAD = (
    "Product #",
    "Description",
    "Qty",
    "Unit List Price (USD)",
    "Disc %",
    "Unit Net Price (USD)",
    "Ext Net Price (USD)",
)


@quote
def hpe_h100_64() -> Quote:
    money = Money()
    c = Sheet("Compute")
    title(
        c,
        "Hewlett Packard Enterprise",
        "HPE Quote: HPE Cray XD670 cluster (compute)",
        "HPE-Q-0041258877 v2",
        "Example Neocloud Inc.",
        [("Deal ID:", "45871236"), ("Prices in USD; list, discount and net per unit",)],
    )
    c.head(*HPE_HEAD, qty=2, price=5, ext=6)
    c.add("HPE Cray XD670 CTO Server (64 units)")
    hpe_line(c, money, "P62789-B21", "HPE Cray XD670 8U CTO Server", 64, 8150.0, 0.57, "chassis")
    hpe_line(
        c,
        money,
        "P62841-B21 #0D1",
        "HPE Cray XD670 NVIDIA HGX H100 8-GPU SXM5 80GB FIO Kit",
        64,
        216900.0,
        0.51,
        "board",
    )
    hpe_line(
        c,
        money,
        "P49610-B21 #0D1",
        "Intel Xeon-Platinum 8480+ 2.0GHz 56-core 350W Processor for HPE",
        128,
        4890.0,
        0.59,
        "cpu",
    )
    hpe_line(
        c,
        money,
        "P43331-B21 #0D1",
        "HPE 64GB (1x64GB) Dual Rank x4 DDR5-4800 CAS-40-39-39 EC8 Registered Smart Memory Kit",
        2048,
        268.0,
        0.57,
        "dimm",
    )
    hpe_line(
        c,
        money,
        "P45641-B21 #0D1",
        "HPE InfiniBand NDR 1-port OSFP PCIe5 x16 MCX75310AAS-NEAT Adapter",
        512,
        1640.0,
        0.55,
        "nic",
    )
    hpe_line(
        c,
        money,
        "P72398-B21 #0D1",
        "NVIDIA BlueField-3 B3220 2-port 200GbE QSFP112 DPU for HPE",
        128,
        2640.0,
        0.55,
        "dpu",
    )
    hpe_line(
        c,
        money,
        "P50218-B21 #0D1",
        "HPE 3.84TB NVMe Gen4 Mainstream Performance Read Intensive SFF BC U.3 Static Multi Vendor SSD",
        512,
        432.0,
        0.57,
    )
    hpe_line(
        c, money, "P48183-B21 #0D1", "HPE NS204i-u Gen11 NVMe Hot Plug Boot Optimized Storage Device", 64, 199.0, 0.6
    )
    hpe_line(c, money, "P62802-B21 #0D1", "HPE Cray XD670 3000W Titanium Power Supply Kit", 384, 0.0, 0.0)
    hpe_line(c, money, "H40X4E", "HPE 3 Year Tech Care Essential XD670 Service", 64, 6180.0, 0.55, "support")
    c.add("", "Compute subtotal", "", "", "", "", money.sub())
    n_ = Sheet("Networking")
    title(n_, "Hewlett Packard Enterprise", "HPE Quote: networking", "HPE-Q-0041258877 v2", "Example Neocloud Inc.")
    n_.head(*HPE_HEAD, qty=2, price=5, ext=6)
    fab = fabric(64)
    n_.add("InfiniBand NDR back end (rail-optimized, 2-tier)")
    hpe_line(
        n_,
        money,
        "R9D12A",
        "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand Switch (MQM9700-NS2F) for HPE",
        fab["switches"],
        36500.0,
        0.35,
        "ib_switch",
    )
    hpe_line(
        n_,
        money,
        "R9D22A",
        "NVIDIA MMA4Z00-NS400 400Gb/s single-port OSFP SR4 multimode transceiver for HPE",
        fab["server_xcvr"],
        1215.0,
        0.35,
        "xcvr_server",
    )
    hpe_line(
        n_,
        money,
        "R9D23A",
        "NVIDIA MMA4Z00-NS 800Gb/s twin-port OSFP 2xSR4 multimode transceiver for HPE",
        fab["twin"],
        1280.0,
        0.35,
        "xcvr_twin",
    )
    hpe_line(
        n_,
        money,
        "R9D31A",
        "NVIDIA MFP7E10-N030 MPO12 APC multimode fiber cable 30m for HPE",
        fab["fibre"],
        70.0,
        0.35,
        "fibre",
    )
    n_.add("Front end and out-of-band")
    hpe_line(
        n_, money, "R9G03A", "HPE Aruba Networking CX 9300 32-port 400GbE QSFP-DD switch", 4, 31500.0, 0.6, "frontend"
    )
    hpe_line(
        n_,
        money,
        "R9D41A",
        "NVIDIA Spectrum SN2201 48x1GbE 4x100GbE Cumulus switch (MSN2201-CB2FC) for HPE",
        4,
        9200.0,
        0.35,
        "oob",
    )
    n_.add("", "Networking subtotal", "", "", "", "", money.sub())
    n_.add()
    n_.add("", "Grand total (USD, net, excl. tax and freight)", "", "", "", "", round(money.total, 2))
    n_.add("", "Freight: FCA HPE factory. Taxes not included.")
    n_.add(MARK)
    return Quote(
        "hpe_xd670_h100_64.xlsx",
        "hpe",
        [c, n_],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "oob_spectrum",
                "backend_nonblocking",
                "optics_everywhere",
            ],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "oob_spectrum",
                extra=["missing_item", "extended_mismatch"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("Compute", "board", "gpu_baseboard"),
            ("Compute", "cpu", "cpu"),
            ("Compute", "dimm", "ram"),
            ("Compute", "nic", "backend_nic"),
            ("Compute", "dpu", "frontend_nic"),
            ("Networking", "xcvr_server", "backend_server_link"),
            ("Networking", "xcvr_twin", "backend_switch_link"),
            ("Networking", "fibre", "backend_fibre"),
            ("Networking", "oob", "oob_switch"),
        ],
        money.total,
        note="HPE CTO: priced options with #0D1 suffixes; list/disc/net; Compute and Networking sheets; 2-tier "
        "non-blocking all-optics back end at 64 servers",
    )


@quote
def hpe_h200_32() -> Quote:
    money = Money()
    c = Sheet("Quote")
    title(
        c,
        "Hewlett Packard Enterprise",
        "HPE Quote",
        "HPE-Q-0041301942 v1",
        "Example Neocloud Inc.",
        [("All prices in US dollars (USD)",)],
    )
    c.head(*HPE_HEAD, qty=2, price=5, ext=6)
    hpe_line(c, money, "P62789-B21", "HPE Cray XD670 8U CTO Server", 32, 8050.0, 0.57, pct_text=True)
    hpe_line(
        c,
        money,
        "P70814-B21 #0D1",
        "HPE Cray XD670 NVIDIA HGX H200 8-GPU SXM5 141GB FIO Kit",
        32,
        255500.0,
        0.5,
        "board",
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "P67093-B21 #0D1",
        "Intel Xeon-Gold 6548Y+ 2.5GHz 32-core 250W Processor for HPE",
        64,
        2210.0,
        0.59,
        "cpu",
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "P64707-B21 #0D1",
        "HPE 64GB (1x64GB) Dual Rank x4 DDR5-5600 CAS-46-45-45 EC8 Registered Smart Memory Kit",
        512,
        271.0,
        0.57,
        "dimm",
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "P45641-B21 #0D1",
        "HPE InfiniBand NDR 1-port OSFP PCIe5 x16 MCX75310AAS-NEAT Adapter",
        256,
        1660.0,
        0.55,
        "nic",
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "P25960-B21 #0D1",
        "HPE Ethernet 100Gb 2-port QSFP28 MCX623106AS-CDAT Adapter",
        32,
        860.0,
        0.55,
        "fe_nic",
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "P50218-B21 #0D1",
        "HPE 3.84TB NVMe Gen4 Mainstream Performance Read Intensive SFF BC U.3 Static Multi Vendor SSD",
        256,
        436.0,
        0.57,
        pct_text=True,
    )
    c.item("P62806-B21 #0D1", "HPE Cray XD670 Rail Kit", 32, "Included", "", "Included", "Included")
    hpe_line(c, money, "H40X4E", "HPE 3 Year Tech Care Essential XD670 Service", 32, 6120.0, 0.55, pct_text=True)
    hpe_line(
        c,
        money,
        "R9D12A",
        "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand Switch (MQM9700-NS2F) for HPE",
        8,
        36700.0,
        0.35,
        "ib_switch",
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "R9D22A",
        "NVIDIA MMA4Z00-NS400 400Gb/s single-port OSFP SR4 multimode transceiver for HPE",
        256,
        1215.0,
        0.35,
        "xcvr_server",
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "R9D23A",
        "NVIDIA MMA4Z00-NS 800Gb/s twin-port OSFP 2xSR4 multimode transceiver for HPE",
        128,
        1280.0,
        0.35,
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "R9D31A",
        "NVIDIA MFP7E10-N030 MPO12 APC multimode fiber cable 30m for HPE",
        256,
        70.0,
        0.35,
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "R9D44A",
        "NVIDIA Spectrum SN4600C 64x100GbE Cumulus switch (MSN4600-CS2FC) for HPE",
        2,
        27200.0,
        0.35,
        "frontend",
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "R9D41A",
        "NVIDIA Spectrum SN2201 48x1GbE 4x100GbE Cumulus switch (MSN2201-CB2FC) for HPE",
        1,
        9200.0,
        0.35,
        "oob",
        pct_text=True,
    )
    hpe_line(
        c,
        money,
        "S0K82AAE",
        "NVIDIA AI Enterprise 3 Year Subscription per GPU E-RTU",
        256,
        13400.0,
        0.25,
        "nvaie",
        pct_text=True,
    )
    c.add("", "Total net (USD)", "", "", "", "", round(money.total, 2))
    c.add("", "Estimated freight", "", "", "", "", 18500.0)
    c.add("", "Estimated sales tax (8.25%)", "", "", "", "", round(money.total * 0.0825, 2))
    c.add(MARK)
    return Quote(
        "hpe_xd670_h200_32.xlsx",
        "hpe",
        [c],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["frontend_spectrum", "oob_spectrum", "nvaie_license"],
            "findings_must_not": not_padding(
                "frontend_spectrum",
                "oob_spectrum",
                "nvaie_license",
                extra=["extended_mismatch", "missing_item", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [
            ("Quote", "board", "gpu_baseboard"),
            ("Quote", "nic", "backend_nic"),
            ("Quote", "fe_nic", "frontend_nic"),
            ("Quote", "frontend", "frontend_switch"),
            ("Quote", "nvaie", "software_licence"),
        ],
        money.total,
        note="HPE single sheet, Disc % as text, 'Included' rail kit, freight and sales tax rows below the total",
    )


# ---------------------------------------------------------------- 4. Lenovo configurator style


@quote
def lenovo_h200_16() -> Quote:
    money = Money()
    sh = Sheet("DCSC Export")
    sh.add("Lenovo Data Center Solution Configurator - Quote Export")
    sh.add(MARK)
    sh.add("Configuration:", "ThinkSystem SR680a V3 GPU cluster, 16 servers")
    sh.add("Quote number:", "LNV-DCSC-7DHE-240117", "Date:", "2024-11-04")
    sh.add("Customer:", "Example Neocloud Inc.", "Currency:", "USD")
    sh.add()
    sh.head(
        "Part number",
        "Product Description",
        "Qty/Server",
        "Total Qty",
        "Unit Price",
        "Total Price",
        qty=3,
        price=4,
        ext=5,
    )
    servers = 16

    def line(pn: str, desc: str, per: int, unit: float, mark: str | None = None) -> None:
        ext = money.line(per * servers, unit)
        sh.item(pn, desc, per, per * servers, unit, ext, mark=mark)

    sh.add("7DHECTO1WW", "Server : ThinkSystem SR680a V3 - 3yr Warranty")
    line("7DHECTO1WW", "ThinkSystem SR680a V3 base, 8U, 2S, air cooled", 1, 8250.0, "chassis")
    line("C1HL", "ThinkSystem NVIDIA HGX H200 141GB 700W 8-GPU Board", 1, 249900.0, "board")
    line("BYKK", "Intel Xeon Platinum 8570 56C 350W 2.1GHz Processor", 2, 4910.0, "cpu")
    line("BZ7H", "ThinkSystem 64GB TruDDR5 5600MHz (2Rx4) RDIMM", 32, 279.0, "dimm")
    line("BQ1N", "ThinkSystem NVIDIA ConnectX-7 NDR OSFP400 1-port PCIe Gen5 x16 InfiniBand Adapter", 8, 1690.0, "nic")
    line("BVBG", "ThinkSystem NVIDIA BlueField-3 B3220 VPI QSFP112 2P 200G PCIe Gen5 x16 Adapter", 2, 2690.0, "dpu")
    line("BTMB", 'ThinkSystem 2.5" U.2 PM1733a 7.68TB Read Intensive NVMe PCIe 4.0 x4 HS SSD', 4, 880.0)
    line("B8P9", "ThinkSystem M.2 7450 PRO 960GB Read Intensive NVMe PCIe 4.0 x4 NHS SSD", 2, 185.0)
    line("BKTJ", "ThinkSystem 2600W 230V Titanium Hot-Swap Gen2 Power Supply", 6, 0.0)
    line("B0ML", "Feature Enable TPM on Motherboard", 1, 0.0)
    line("5WS7C17845", "Premier Essential - 3Yr 24x7 4Hr Resp + YDYD SR680a V3", 1, 6240.0, "support")
    sh.add("", "Server subtotal", "", "", "", round(money.sub(), 2))
    sh.add()
    sh.add("", "Total (USD, excl. tax, shipping FOB)", "", "", "", round(money.total, 2))
    sh.add("", "Lenovo list prices less special bid 24-117; tax and freight not included")
    return Quote(
        "lenovo_sr680a_h200_16.xlsx",
        "lenovo",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", "dpu_bluefield", extra=["extended_mismatch"]
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("DCSC Export", "board", "gpu_baseboard"),
            ("DCSC Export", "cpu", "cpu"),
            ("DCSC Export", "dimm", "ram"),
            ("DCSC Export", "nic", "backend_nic"),
            ("DCSC Export", "dpu", "frontend_nic"),
            ("DCSC Export", "support", "warranty"),
        ],
        money.total,
        note="Lenovo DCSC: 4-character feature codes, Qty/Server and Total Qty columns",
    )


@quote
def lenovo_h100_per_node() -> Quote:
    money = Money()
    sh = Sheet("Per node")
    sh.add("Lenovo ThinkSystem SR680a V3 - budgetary configuration")
    sh.add(MARK)
    sh.add("Configuration quantity: 32 nodes")
    sh.add("All prices per node, USD")
    sh.add("Reference:", "LNV-BUD-24-3312", "Date:", "2024-11-04")
    sh.add()
    sh.head("Feature Code", "Description", "Qty", "Unit Price", "Total Price", qty=2, price=3, ext=4)

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(pn, desc, qty, unit, money.line(qty, unit), mark=mark)

    line("7DHECTO1WW", "ThinkSystem SR680a V3 base, 8U, 2S, air cooled", 1, 8150.0, "chassis")
    line("BUUW", "ThinkSystem NVIDIA HGX H100 80GB 700W 8-GPU Board", 1, 213500.0, "board")
    line("BYKQ", "Intel Xeon Gold 6530 32C 270W 2.1GHz Processor", 2, 2180.0, "cpu")
    line("BQ3A", "ThinkSystem 128GB TruDDR5 4800MHz (4Rx4) 3DS RDIMM-A", 16, 545.0, "dimm")
    line("BQ1N", "ThinkSystem NVIDIA ConnectX-7 NDR OSFP400 1-port PCIe Gen5 x16 InfiniBand Adapter", 8, 1680.0, "nic")
    line(
        "BQBN",
        "ThinkSystem NVIDIA ConnectX-7 2-port 200GbE QSFP112 PCIe Gen5 x16 Adapter (MCX755106AS-HEAT)",
        1,
        1520.0,
        "fe_nic",
    )
    line("BTMB", 'ThinkSystem 2.5" U.2 PM1733a 7.68TB Read Intensive NVMe PCIe 4.0 x4 HS SSD', 4, 875.0)
    line("B8P9", "ThinkSystem M.2 7450 PRO 960GB Read Intensive NVMe PCIe 4.0 x4 NHS SSD", 2, 185.0)
    line("7S02CTO3WW", "NVIDIA AI Enterprise Essentials Subscription per GPU, 3 Years", 8, 13300.0, "nvaie")
    line("5WS7C17845", "Premier Essential - 3Yr 24x7 4Hr Resp + YDYD SR680a V3", 1, 6240.0)
    sh.add("", "Total per node", "", "", round(money.total, 2))
    sh.add("", "Total for 32 nodes", "", "", round(money.total * 32, 2))
    return Quote(
        "lenovo_sr680a_h100_per_node_32.xlsx",
        "lenovo",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["ram_over_1tb", "nvaie_license"],
            "findings_must_not": not_padding("ram_over_1tb", "nvaie_license", extra=["extended_mismatch"]),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 0},
        },
        [
            ("Per node", "board", "gpu_baseboard"),
            ("Per node", "dimm", "ram"),
            ("Per node", "nic", "backend_nic"),
            ("Per node", "fe_nic", "frontend_nic"),
            ("Per node", "nvaie", "software_licence"),
        ],
        money.total,
        per_server_copies=32,
        note="Per-node prices; the server count only in the header line 'Configuration quantity: 32 nodes'; "
        "2TB as 16x 128GB",
    )


# ---------------------------------------------------------------- 5. Distributor export


def distributor_title(sh: Sheet, number: str) -> None:
    sh.add("Meridian Technology Distribution, Inc.", "", "", "", "", "")
    sh.add("Quote Export", number, "", "", "", "")
    sh.add(MARK, "", "", "", "", "")
    sh.add("Reseller:", "Example Neocloud Inc. (end user)", "", "Currency:", "USD", "")
    sh.add("Created:", "11/04/2024", "", "Expires:", "12/04/2024", "")
    sh.add("", "", "", "", "", "")
    sh.head("Manufacturer Part #", "Manufacturer", "Description", "Qty", "Sell", "Ext Sell", qty=3, price=4, ext=5)


@quote
def distributor_network() -> Quote:
    money = Money()
    sh = Sheet("")
    distributor_title(sh, "MTD-QX-88213407")
    fab = fabric(64)

    def line(pn: str, mfr: str, desc: str, qty: int, unit: float, mark: str | None = None, ext: float | None = None):
        real = money.line(qty, unit)
        if ext is not None:
            money.total += ext - real
        sh.item(pn, mfr, desc, qty, plain(unit), plain(real if ext is None else ext), mark=mark)

    line(
        "MQM9700-NS2F",
        "NVIDIA",
        "Quantum-2 QM9700 NDR InfiniBand switch, 64 400Gb/s ports, 32 OSFP, 2 PSU, P2C",
        fab["switches"],
        35800.0,
        "ib_switch",
        ext=35800.0 * fab["switches"] + 9000.0,
    )
    line(
        "MMA4Z00-NS400",
        "NVIDIA",
        "400Gb/s single-port OSFP transceiver, NDR, SR4 multimode, flat top",
        fab["server_xcvr"],
        1178.0,
        "xcvr_server",
    )
    line(
        "MMA4Z00-NS",
        "NVIDIA",
        "800Gb/s twin-port OSFP transceiver, 2x NDR, 2x SR4 multimode, finned top",
        fab["twin"],
        2980.0,
        "xcvr_twin",
    )
    line("MFP7E10-N030", "NVIDIA", "Passive fiber cable, MMF, MPO12 APC to MPO12 APC, 30m", fab["fibre"], 69.0, "fibre")
    line(
        "MSN4600-CS2FC", "NVIDIA", "Spectrum SN4600C 64-port 100GbE switch, Cumulus Linux, P2C", 4, 26900.0, "frontend"
    )
    line("MMA1B00-C100D", "NVIDIA", "100GbE QSFP28 SR4 transceiver, MPO, 850nm, up to 100m", 256, 245.0)
    line(
        "MSN2201-CB2FC",
        "NVIDIA",
        "Spectrum SN2201 1GbE switch, 48 RJ45 + 4 QSFP28 100GbE, Cumulus Linux",
        4,
        9300.0,
        "oob",
    )
    line("MCP1600-C003E26N", "NVIDIA", "Passive copper cable, 100GbE QSFP28, 3m, 26AWG", 16, 88.0)
    line("UFM-ENT-SUB-3Y", "NVIDIA", "UFM Enterprise subscription, per managed node, 3 years", 512, 148.0)
    sh.add("", "", "", "", "Subtotal", plain(money.total))
    sh.add("", "", "", "", "Freight", plain(1250.0))
    sh.add("", "", "", "", "Tax", plain(0.0))
    sh.add("", "", "", "", "Total", plain(money.total + 1250.0))
    sh.add("Pricing subject to manufacturer availability. Non-cancellable, non-returnable.", "", "", "", "", "")
    return Quote(
        "distributor_network_only.csv",
        "distributor",
        [sh],
        {
            "gpus": None,
            "servers": None,
            "gpu_model": None,
            "currency": "USD",
            "findings_must": ["frontend_spectrum", "oob_spectrum", "price_above_book", "extended_mismatch"],
            "findings_must_not": [
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "nvaie_license",
                "cpu_amd",
                "nics_below_8",
            ],
        },
        [
            ("", "ib_switch", "backend_switch"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "xcvr_twin", "backend_switch_link"),
            ("", "fibre", "backend_fibre"),
            ("", "frontend", "frontend_switch"),
            ("", "oob", "oob_switch"),
        ],
        money.total,
        note="Networking only (no GPUs); twin-port optics padded ~2.4x; QM9700 extended price off by $9,000",
    )


@quote
def distributor_amd_h100_16() -> Quote:
    money = Money()
    sh = Sheet("")
    distributor_title(sh, "MTD-QX-88217715")

    def line(pn: str, mfr: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(pn, mfr, desc, qty, plain(unit), plain(money.line(qty, unit)), mark=mark)

    line(
        "AS-8125GS-TNHR",
        "Supermicro",
        "A+ Server AS-8125GS-TNHR 8U, NVIDIA HGX H100 8-GPU SXM5 80GB, 2x AMD EPYC 9654 96C 2.4GHz, "
        "1.5TB (24x 64GB) DDR5-4800 RDIMM, 8x ConnectX-7 400G NDR OSFP, 2x BlueField-3 B3220 2x200GbE, "
        "4x 7.68TB NVMe U.2, 2x 960GB M.2, 6x 3000W",
        16,
        279800.0,
        "system",
    )
    line(
        "SVC-3Y-821-NBD",
        "Supermicro",
        "3 Year Parts & Labor Warranty, Next Business Day Onsite",
        16,
        6050.0,
        "warranty",
    )
    fab = fabric(16)
    line(
        "MQM9790-NS2F",
        "NVIDIA",
        "Quantum-2 QM9790 NDR InfiniBand switch, 64 400Gb/s ports, externally managed, P2C",
        fab["switches"],
        34600.0,
        "ib_switch",
    )
    line(
        "MMA4Z00-NS400",
        "NVIDIA",
        "400Gb/s single-port OSFP transceiver, NDR, SR4 multimode, flat top",
        fab["server_xcvr"],
        1178.0,
        "xcvr_server",
    )
    line(
        "MMA4Z00-NS",
        "NVIDIA",
        "800Gb/s twin-port OSFP transceiver, 2x NDR, 2x SR4 multimode, finned top",
        fab["twin"],
        1310.0,
        "xcvr_twin",
    )
    line("MFP7E10-N020", "NVIDIA", "Passive fiber cable, MMF, MPO12 APC to MPO12 APC, 20m", fab["fibre"], 66.0, "fibre")
    line("UFM-ENT-LIC-3Y", "NVIDIA", "UFM Enterprise license with 3 years support, per managed node", 128, 150.0)
    sh.add("", "", "", "", "Subtotal", plain(money.total))
    sh.add("", "", "", "", "Freight", plain(2400.0))
    sh.add("", "", "", "", "Total", plain(money.total + 2400.0))
    return Quote(
        "distributor_smc_amd_h100_16.csv",
        "distributor",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_amd", "cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_amd",
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 1536, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "ib_switch", "backend_switch"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "xcvr_twin", "backend_switch_link"),
            ("", "fibre", "backend_fibre"),
        ],
        money.total,
        crlf=False,
        note="AMD EPYC 9654 system lines from a distributor; RAM 1.5TB (24x 64GB); prices without $ signs",
    )


# ---------------------------------------------------------------- 6. ODM bill of materials


ODM_HEAD = ("Category", "Part No.", "Description", "Qty/Node", "Nodes", "Unit Price (USD)", "Extended (USD)")


@quote
def odm_b200_256() -> Quote:
    money = Money()
    sh = Sheet("BoM")
    sh.add("Quanta Cloud Technology - rack-level BoM (budgetary)")
    sh.add(MARK)
    sh.add("Project:", "Example Neocloud B200 phase 1", "Nodes:", 256)
    sh.add("Rev:", "B", "Date:", "2024-11-04")
    sh.add()
    sh.head(*ODM_HEAD, qty=3, price=5, ext=6)
    nodes = 256

    def line(cat: str, pn: str, desc: str, per: int, unit: float, mark: str | None = None) -> None:
        sh.item(cat, pn, desc, per, nodes, unit, money.line(per * nodes, unit), mark=mark)

    line(
        "System",
        "1S8BZZZ0ST8",
        "QuantaGrid D75B-10U chassis, dual-socket board, 12x 3kW PSU, fans, rails",
        1,
        7950.0,
        "chassis",
    )
    line(
        "System",
        "BB-HGXB200-180G",
        "NVIDIA HGX B200 8-GPU baseboard, 180GB HBM3e per GPU, NVLink 5",
        1,
        327500.0,
        "board",
    )
    line("CPU", "PK8071305120500", "Intel Xeon Platinum 8570 56C 2.1GHz 350W", 2, 4960.0, "cpu")
    line("Memory", "M321RYGA0PB2-CCP", "Samsung 96GB DDR5-5600 2Rx4 ECC RDIMM", 32, 392.0, "dimm")
    line(
        "Network",
        "MCX75310AAS-NEAT",
        "NVIDIA ConnectX-7 1-port OSFP NDR 400Gb/s PCIe Gen5 x16 adapter",
        8,
        1645.0,
        "nic",
    )
    line(
        "Network", "900-9D3B6-00CV-AA0", "NVIDIA BlueField-3 B3220 DPU, 2x 200GbE QSFP112, 32GB DDR5", 1, 2620.0, "dpu"
    )
    line(
        "Network",
        "X710-AT2 (onboard)",
        "Intel X710-AT2 dual-port 10GBASE-T LOM, integrated on motherboard",
        1,
        0.0,
        "lom",
    )
    line("Network", "AST2600 (onboard)", "ASPEED AST2600 BMC with dedicated 1GbE management port, integrated", 1, 0.0)
    line("Storage", "MZ3LO7T6HBLT-00A07", "Samsung PM1743 7.68TB E3.S NVMe PCIe Gen5 SSD", 4, 862.0)
    line("Storage", "MTFDKBA960TFR", "Micron 7450 PRO 960GB M.2 NVMe boot SSD", 2, 178.0)
    line(
        "Service",
        "SVC-L10-INT",
        "L10 system integration, BIOS/BMC settings, 48h burn-in, per node",
        1,
        1950.0,
        "integration",
    )
    line("Service", "SVC-RTD-3Y", "3-year return-to-depot hardware warranty, per node", 1, 5400.0)
    sh.add("", "", "Total", "", "", "", round(money.total, 2))
    sh.add("", "", "Excludes racks, PDUs, networking and shipping (FOB Taoyuan). Prices in USD.")
    return Quote(
        "odm_bom_b200_256.xlsx",
        "odm",
        [sh],
        {
            "gpus": 2048,
            "servers": 256,
            "gpu_model": "b200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", "dpu_bluefield", extra=["extended_mismatch"]
            ),
            "per_server": {"ram_gb": 3072, "backend_nics": 8, "dpus": 1},
        },
        [
            ("BoM", "board", "gpu_baseboard"),
            ("BoM", "cpu", "cpu"),
            ("BoM", "dimm", "ram"),
            ("BoM", "nic", "backend_nic"),
            ("BoM", "dpu", "frontend_nic"),
        ],
        money.total,
        note="ODM BoM, Qty/Node x Nodes; 3TB as 32x 96GB; onboard LOM and BMC listed at 0",
    )


@quote
def odm_h200_128() -> Quote:
    money = Money()
    sh = Sheet("")
    sh.add("Wistron-style ODM quotation - HGX H200 nodes")
    sh.add(MARK)
    sh.add("Quotation:", "ODM-24-H200-0128", "Date:", "2024-11-04")
    sh.add("Nodes:", "128", "Incoterm:", "FCA Hsinchu")
    sh.add()
    sh.head(*ODM_HEAD, qty=3, price=5, ext=6)
    nodes = 128

    def line(cat: str, pn: str, desc: str, per: int, unit: float, mark: str | None = None) -> None:
        sh.item(cat, pn, desc, per, nodes, usd(unit), usd(money.line(per * nodes, unit)), mark=mark)

    line(
        "System",
        "SKU-HGX8-H200-BB",
        "8U HGX barebone: 2S Emerald Rapids board, 6x 3kW PSU, fans, rails",
        1,
        7600.0,
        "chassis",
    )
    line("System", "BB-HGXH200-141G", "NVIDIA HGX H200 8-GPU 141GB SXM5 baseboard with NVSwitch", 1, 251000.0, "board")
    line("CPU", "PK8072205512500", "Intel Xeon Gold 6548Y+ 32C 2.5GHz 250W", 2, 2140.0, "cpu")
    line("Memory", "HMCG94AGBRA181N", "SK hynix 64GB DDR5-5600 2Rx4 RDIMM", 16, 262.0, "dimm")
    line("Network", "MCX75310AAS-NEAT", "NVIDIA ConnectX-7 1-port OSFP NDR 400Gb/s adapter", 8, 1630.0, "nic")
    line("Network", "MMA4Z00-NS400", "NVIDIA 400G OSFP flat-top transceiver, SR4 multimode, 50m", 8, 1190.0, "xcvr")
    line("Network", "900-9D3B6-00CV-AA0", "NVIDIA BlueField-3 B3220 DPU 2x 200GbE QSFP112", 2, 2610.0, "dpu")
    line("Storage", "MZWLO3T8HCLS-00A07", "Samsung PM1743 3.84TB U.2 NVMe Gen5", 8, 430.0)
    line("Storage", "SSDPF2KX019T1", "960GB M.2 NVMe boot drive", 2, 175.0)
    line("Service", "SVC-L11-RACK", "L11 rack integration and burn-in, per node", 1, 2050.0, "integration")
    line("Service", "SVC-WTY-3Y", "3 years warranty, advance replacement, per node", 1, 5800.0)
    sh.add("", "", "Grand total", "", "", "", usd(money.total))
    return Quote(
        "odm_bom_h200_128.csv",
        "odm",
        [sh],
        {
            "gpus": 1024,
            "servers": 128,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["dpu_bluefield"],
            "findings_must_not": not_padding("dpu_bluefield", extra=["extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "board", "gpu_baseboard"),
            ("", "cpu", "cpu"),
            ("", "nic", "backend_nic"),
            ("", "xcvr", "backend_server_link"),
            ("", "dpu", "frontend_nic"),
        ],
        money.total,
        note="ODM CSV BoM: node count only in a Nodes column and a title line; mid-range CPU, 1TB, 2x BlueField-3",
    )


# ---------------------------------------------------------------- 7. European / UK resellers


@quote
def eu_h100_eur() -> Quote:
    money = Money()
    sh = Sheet("")
    sh.add(*["Lowlands Compute B.V.", "", "", "", "", ""])
    sh.add(*["Offerte / Quotation", "OFF-2024-11-0392", "", "", "", ""])
    sh.add(MARK, "", "", "", "", "")
    sh.add(*["Klant / Customer:", "Example Neocloud B.V., Amsterdam", "", "", "", ""])
    sh.add(*["Datum:", "04-11-2024", "", "Geldig tot:", "04-12-2024", ""])
    sh.add(*["Alle prijzen in EUR, excl. BTW", "", "", "", "", ""])
    sh.add(*["", "", "", "", "", ""])
    sh.head("Pos", "Part number", "Description", "Qty", "Unit price", "Total", qty=3, price=4, ext=5)
    pos = [0]

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        pos[0] += 10
        sh.item(pos[0], pn, desc, qty, eu(unit, "€"), eu(money.line(qty, unit), "€"), mark=mark)

    line(
        "ESC-N8-E11",
        "ASUS ESC N8-E11 HGX H100 8-GPU server, 2x Intel Xeon Platinum 8480+ 56C, 2 TB DDR5 "
        "(32 × 64 GB), 8x NVIDIA ConnectX-7 400G NDR, 2x BlueField-3 B3220, 8x 3,84 TB NVMe U.2",
        16,
        262500.0,
        "system",
    )
    line("ACC-WTY-3Y-NBD", "3 jaar garantie / 3-year warranty, next business day on site", 16, 5400.0, "warranty")
    fab = fabric(16)
    line(
        "MQM9790-NS2F",
        "NVIDIA Quantum-2 QM9790 64x NDR 400Gb/s InfiniBand switch, externally managed",
        fab["switches"],
        33100.0,
        "ib_switch",
    )
    line(
        "MMA4Z00-NS400",
        "NVIDIA 400Gb/s OSFP transceiver, single port, SR4 multimode, flat top",
        fab["server_xcvr"],
        1095.0,
        "xcvr_server",
    )
    line("MMA4Z00-NS", "NVIDIA 800Gb/s twin-port OSFP transceiver, 2x SR4 multimode, finned top", fab["twin"], 1165.0)
    line("MFP7E10-N030", "NVIDIA fibre MMF MPO12 APC naar MPO12 APC, 30 m", fab["fibre"], 64.5, "fibre")
    line("INST-RACK", "Installatie en bekabeling op locatie (rack & stack, per server)", 16, 230.0)
    line("DISC-PROJ", "Projectkorting / project discount", 1, -25000.0, "discount")
    line("FREIGHT", "Transport en verzekering / freight and insurance", 1, 3850.0)
    net = money.total
    sh.add("", "", "Subtotaal excl. BTW", "", "", eu(net, "€"))
    sh.add("", "", "BTW 21%", "", "", eu(net * 0.21, "€"))
    sh.add("", "", "Totaal incl. BTW", "", "", eu(net * 1.21, "€"))
    sh.add("Betalingstermijn 30 dagen. Levertijd 10-12 weken.")
    return Quote(
        "eu_reseller_h100_16_eur.csv",
        "eu_reseller",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "EUR",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "fibre", "backend_fibre"),
            ("", "discount", "discount"),
        ],
        net,
        usd_per_unit=1.08,
        delimiter=";",
        bom=True,
        note="Semicolon CSV with BOM, decimal commas, '€' after the amount, 'BTW 21%' and total incl. BTW; "
        "'32 × 64 GB' and '3,84 TB' in the description",
    )


@quote
def uk_h200_gbp() -> Quote:
    money = Money()
    sh = Sheet("")
    sh.add("Thames Valley HPC Ltd")
    sh.add("QUOTATION TVH-Q-24-1187")
    sh.add(MARK)
    sh.add("Customer:", "Example Neocloud Ltd, London")
    sh.add("Date:", "04/11/2024", "Valid for:", "30 days")
    sh.add("All prices in GBP (£) excluding VAT")
    sh.add()
    sh.head("Item", "Part No.", "Description", "Qty", "Unit Price", "Line Total", qty=3, price=4, ext=5)
    no = [0]

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        no[0] += 1
        sh.item(no[0], pn, desc, qty, gbp(unit), gbp(money.line(qty, unit)), mark=mark)

    line(
        "G593-SD1-AAX3",
        "Gigabyte G593-SD1 5U HGX H200 8-GPU server, 2x Intel Xeon Platinum 8558 48C, "
        "2TB DDR5 (32x 64GB), 8x NVIDIA ConnectX-7 400Gb/s NDR, 1x ConnectX-6 Dx 2x 100GbE, 8x 3.84TB NVMe",
        32,
        241500.0,
        "system",
    )
    line("WTY-G593-3Y", "3 year return to base warranty with advance parts replacement", 32, 4650.0)
    line(
        "MSN5600-MS2FC", "NVIDIA Spectrum-4 SN5600 64x 800GbE switch, Cumulus Linux (front end)", 2, 41800.0, "frontend"
    )
    line("DCS-7010TX-48", "Arista 7010TX-48 48x 1GbE + 4x 10G SFP+ management switch (out-of-band)", 2, 1150.0, "oob")
    line("NVAIE-1Y-GPU", "NVIDIA AI Enterprise subscription, 1 year, per GPU", 256, 3450.0, "nvaie")
    line("DEL-UK", "Delivery to London data centre, tail-lift", 1, 1650.0)
    net = money.total
    sh.add("", "", "Subtotal (ex VAT)", "", "", gbp(net))
    sh.add("", "", "VAT @ 20%", "", "", gbp(net * 0.2))
    sh.add("", "", "Total inc VAT", "", "", gbp(net * 1.2))
    sh.add("E&OE. Payment terms: 50% on order, 50% on delivery.")
    return Quote(
        "uk_reseller_h200_32_gbp.csv",
        "eu_reseller",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h200-sxm",
            "currency": "GBP",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "frontend_spectrum", "nvaie_license"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", "frontend_spectrum", "nvaie_license", extra=["extended_mismatch"]
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 0},
        },
        [
            ("", "system", "system"),
            ("", "frontend", "frontend_switch"),
            ("", "oob", "oob_switch"),
            ("", "nvaie", "software_licence"),
        ],
        net,
        usd_per_unit=1.27,
        note="UK reseller in GBP with '£', VAT 20% and total inc VAT; Spectrum-4 front end; generic OOB",
    )


# ---------------------------------------------------------------- 8. PDF-to-spreadsheet exports


@quote
def pdf_h100_32() -> Quote:
    money = Money()
    sh = Sheet("Table 1")
    sh.add("", "", "Pacific Rim Systems Integration")
    sh.add("", "", "QUOTE  #PRS-24-7781")
    sh.add("", "", MARK)
    sh.add("Bill To:", "", "Example Neocloud Inc.", "", "Date:", "11/04/2024")
    sh.add()
    sh.add("Item", "Part", "Description", "Qty", "Unit", "Extended")
    sh.head("", "Number", "", "", "Price", "Price", qty=3, price=4, ext=5)
    sh.header -= 1  # the header spans rows 6-7; its first row holds most names

    def line(no: int, pn: str, wrapped: Sequence[str], qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(str(no), pn, wrapped[0], str(qty), usd_sp(unit), usd_sp(money.line(qty, unit)), mark=mark)
        for more in wrapped[1:]:
            sh.item("", "", more, "", "", "")

    line(
        1,
        "SYS-821GE-TNHR",
        [
            "Supermicro SYS-821GE-TNHR 8U GPU SuperServer,",
            "HGX H100 8-GPU SXM5 80GB, 2x Intel Xeon Platinum 8468",
            "48C 2.1GHz, 2TB (32x 64GB) DDR5-4800, 8x ConnectX-7",
            "400G NDR OSFP, 2x BlueField-3 B3220, 8x 3.84TB NVMe",
        ],
        32,
        283900.0,
        "system",
    )
    fab = fabric(32)
    line(
        2,
        "MQM9700-NS2F",
        ["NVIDIA Quantum-2 QM9700 64-port NDR", "InfiniBand switch, managed, P2C"],
        fab["switches"],
        36900.0,
        "ib_switch",
    )
    line(
        3,
        "MMA4Z00-NS400",
        ["NVIDIA 400G OSFP single-port transceiver,", "SR4 multimode, flat top"],
        fab["server_xcvr"],
        1199.0,
        "xcvr_server",
    )
    line(
        4,
        "MMA4Z00-NS",
        ["NVIDIA 800G twin-port OSFP transceiver,", "2x SR4 multimode, finned top"],
        fab["twin"],
        1299.0,
        "xcvr_twin",
    )
    line(5, "MFP7E10-N030", ["NVIDIA MPO12 APC passive fiber, MMF, 30m"], fab["fibre"], 72.0, "fibre")
    line(6, "WAR-3YR", ["3-year parts and labor warranty, next", "business day, per server"], 32, 5950.0)
    sh.add("", "", "", "", "Subtotal", usd_sp(money.total))
    sh.add("", "", "", "", "Sales Tax", usd_sp(0.0))
    sh.add("", "", "", "", "Shipping", "TBD")
    sh.add("", "", "", "", "Total", usd_sp(money.total))
    sh.add("Page 1 of 1")
    return Quote(
        "pdf_export_h100_32.xlsx",
        "pdf_export",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("Table 1", "system", "system"),
            ("Table 1", "ib_switch", "backend_switch"),
            ("Table 1", "xcvr_server", "backend_server_link"),
            ("Table 1", "xcvr_twin", "backend_switch_link"),
            ("Table 1", "fibre", "backend_fibre"),
        ],
        money.total,
        note="Header over two rows; the server's configuration wrapped over 4 rows; numbers as text '$ 36,900.00'",
    )


@quote
def pdf_b200_16() -> Quote:
    money = Money()
    sh = Sheet("")
    sh.add("", "", "Summit Ridge Technologies", "", "", "")
    sh.add("", "", "Quotation SRT-Q-11872", "", "", "")
    sh.add("", "", MARK, "", "", "")
    sh.add("", "", "Prepared for Example Neocloud Inc. on 11/04/2024", "", "", "")
    sh.add("Line", "Manufacturer", "Item", "Quantity", "Price", "Amount")
    sh.head("No.", "Part No.", "Description", "", "Each", "(USD)", qty=3, price=4, ext=5)
    sh.header -= 1

    def line(no: int, pn: str, wrapped: Sequence[str], qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(str(no), pn, wrapped[0], str(qty), usd_sp(unit), usd_sp(money.line(qty, unit)), mark=mark)
        for more in wrapped[1:]:
            sh.item("", "", more, "", "", "")

    line(
        1,
        "AS-A126GS-TNBR",
        ["Supermicro AS-A126GS-TNBR 10U barebone with", "NVIDIA HGX B200 8-GPU 180GB SXM6", "baseboard installed"],
        16,
        336500.0,
        "system",
    )
    line(2, "100-000001143", ["AMD EPYC 9455 48-core 3.15GHz 300W", "processor"], 32, 2350.0, "cpu")
    line(3, "MEM-DR532L-HL01-ER64", ["32GB DDR5-6400 ECC RDIMM"], 384, 134.0, "dimm")
    line(
        4,
        "MCX75310AAS-NEAT",
        ["NVIDIA ConnectX-7 single-port OSFP 400Gb/s", "NDR adapter, PCIe Gen5"],
        128,
        1655.0,
        "nic",
    )
    line(
        5,
        "MCX755106AS-HEAT",
        ["NVIDIA ConnectX-7 dual-port 200GbE QSFP112", "adapter (front end)"],
        16,
        1490.0,
        "fe_nic",
    )
    line(6, "HDS-MUN-MTFDKCC7T6TGP", ["Micron 7450 PRO 7.68TB NVMe U.3"], 64, 845.0)
    line(7, "HDS-M2N-MTFDKBG960TFR", ["Micron 7450 PRO 960GB M.2 NVMe boot"], 32, 179.0)
    line(8, "SVC-INT-L11", ["L11 integration, burn-in and shipping,", "per server"], 16, 2000.0)
    line(9, "WTY-3Y-NBD", ["3-year parts & labor warranty, NBD on-site"], 16, 6000.0)
    sh.add("", "", "", "", "SUBTOTAL", usd_sp(money.total))
    sh.add("", "", "", "", "TAX", "exempt")
    sh.add("", "", "", "", "TOTAL", usd_sp(money.total))
    return Quote(
        "pdf_export_b200_16.csv",
        "pdf_export",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "b200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_amd"],
            "findings_must_not": [
                "ram_over_1tb",
                "dpu_bluefield",
                "nics_below_8",
                "price_above_book",
                "nvaie_license",
                "frontend_spectrum",
                "oob_spectrum",
                "extended_mismatch",
            ],
            "per_server": {"ram_gb": 768, "backend_nics": 8, "dpus": 0},
        },
        [("", "cpu", "cpu"), ("", "dimm", "ram"), ("", "nic", "backend_nic"), ("", "fe_nic", "frontend_nic")],
        money.total,
        note="Two-row header; wrapped descriptions; numbers as text; AMD EPYC 9455 (48 cores, not top bin); 768 GB RAM",
    )


# ---------------------------------------------------------------- 9. Clean quotes (the article's advice)


@quote
def clean_h100_64() -> Quote:
    """A 64-server quote as the article recommends: nothing to flag."""
    money = Money()
    sh = Sheet("")
    title(
        sh,
        "Bayline Compute Solutions LLC",
        "QUOTATION (optimized configuration)",
        "BCS-Q24-11020",
        "Example Neocloud Inc.",
        [("Scope:", "64 HGX H100 servers, InfiniBand NDR back end at 2:1, front end, OOB")],
    )
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    no = [0]

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        no[0] += 1
        sh.item(no[0], pn, desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark)

    sh.add("", "", "COMPUTE")
    line(
        "SYS-821GE-TNHR",
        "Supermicro SYS-821GE-TNHR, HGX H100 8-GPU SXM5 80GB, 2x Intel Xeon Gold 6530 32C 2.1GHz, "
        "1TB (16x 64GB) DDR5-4800, 8x ConnectX-7 400G NDR OSFP, 1x ConnectX-6 Dx 2x100GbE, 4x 7.68TB NVMe U.2, "
        "2x 960GB M.2 boot",
        64,
        249800.0,
        "system",
    )
    line("SVC-3Y-NBD-821GE", "3-year parts & labor warranty, next business day on-site, per server", 64, 5900.0)
    sh.add("", "", "Subtotal compute", "", "", usd(money.sub()))
    sh.add("", "", "BACKEND NETWORK (2:1, spine rack between the leaf racks)")
    fab = backend_optics(sh, money, 64, usd, no, oversub=2, dac_spine=True, switch="MQM9790-NS2F", switch_price=34900.0)
    line(
        "UFM-ENT-LIC-3Y",
        "NVIDIA UFM Enterprise licence with 3 years support, per NIC endpoint",
        fab["server_xcvr"],
        150.0,
    )
    sh.add("", "", "Subtotal backend network", "", "", usd(money.sub()))
    sh.add("", "", "FRONT END AND OUT-OF-BAND")
    line("DCS-7060CX-32S", "Arista 7060CX-32S 32x 100GbE QSFP100 switch", 4, 6600.0, "frontend")
    line("QSFP-100G-SR4-FS", "100GBASE-SR4 QSFP28 transceiver, third-party, 850nm MMF", 256, 52.0)
    line("DCS-7010TX-48", "Arista 7010TX-48 48x 1GbE + 4x 10G SFP+ out-of-band switch", 2, 1500.0, "oob")
    line("CAT6-2M", "Cat6 RJ45 patch cord 2m", 160, 4.0)
    sh.add("", "", "Subtotal front end and OOB", "", "", usd(money.sub()))
    sh.add()
    sh.add("", "", "TOTAL (USD, excl. tax)", "", "", usd(money.total))
    sh.add("Freight included. " + MARK + ".")
    return Quote(
        "clean_optimized_h100_64.csv",
        "clean",
        [sh],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": not_padding(
                extra=["backend_nonblocking", "optics_everywhere", "missing_item", "extended_mismatch"]
            ),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [
            ("", "system", "system"),
            ("", "dac", "backend_switch_link"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "fibre", "backend_fibre"),
        ],
        money.total,
        note="The article's design: Gold CPU, 1TB, no DPU, one ConnectX-6 Dx, 8x CX-7; 2:1 with DAC leaf-spine; "
        "generic front end and OOB; no AI Enterprise",
    )


@quote
def clean_h200_128() -> Quote:
    money = Money()
    srv = Sheet("Servers")
    title(
        srv,
        "Gigabyte Technology - authorized partner Cascade Systems",
        "Quotation",
        "CSC-24-0977",
        "Example Neocloud Inc.",
    )
    srv.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    srv.item(
        1,
        "G593-SD1-AAX3",
        "GIGABYTE G593-SD1 HGX H200 8-GPU 141GB server, 2x Xeon Gold 6548Y+ 32C, "
        "1TB DDR5-5600 (16 x 64GB), 8x ConnectX-7 400Gb/s NDR (1 per GPU), 1x ConnectX-6 Dx dual-port 100GbE, "
        "8x 3.84TB NVMe",
        128,
        286900.0,
        money.line(128, 286900.0),
        mark="system",
    )
    srv.item(
        2, "WTY-G593-3Y", "3-year warranty, advance parts replacement, per server", 128, 5850.0, money.line(128, 5850.0)
    )
    srv.item(3, "SVC-L11", "L11 rack integration and burn-in, per server", 128, 1900.0, money.line(128, 1900.0))
    srv.add("", "", "Servers subtotal", "", "", money.sub())
    net = Sheet("Network")
    title(net, "Cascade Systems", "Quotation - network", "CSC-24-0977", "Example Neocloud Inc.")
    net.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    fab = fabric(128, oversub=2, dac_spine=True)
    rows = [
        (
            "MQM9790-NS2F",
            "NVIDIA Quantum-2 QM9790 64x NDR 400Gb/s InfiniBand switch, externally managed",
            fab["switches"],
            34900.0,
            "ib_switch",
        ),
        (
            "MMA4Z00-NS400",
            "NVIDIA 400Gb/s single-port OSFP transceiver, SR4 multimode, flat top",
            fab["server_xcvr"],
            1185.0,
            "xcvr_server",
        ),
        (
            "MMA4Z00-NS",
            "NVIDIA 800Gb/s twin-port OSFP transceiver, 2x SR4 multimode, finned top",
            fab["twin"],
            1270.0,
            "xcvr_twin",
        ),
        (
            "MCP4Y10-N003",
            "NVIDIA passive copper cable, twin-port 800Gb/s OSFP, 3m (leaf to spine)",
            fab["dac"],
            225.0,
            "dac",
        ),
        ("MFP7E10-N030", "NVIDIA passive fiber cable, MMF, MPO12 APC to MPO12 APC, 30m", fab["fibre"], 70.0, "fibre"),
        (
            "UFM-ENT-LIC-3Y",
            "NVIDIA UFM Enterprise licence, 3 years support, per NIC endpoint",
            fab["server_xcvr"],
            150.0,
            None,
        ),
        ("DCS-7260CX3-64", "Arista 7260CX3-64 64x 100GbE switch (front end)", 4, 13400.0, "frontend"),
        ("QSFP28-SR4-100G", "100G QSFP28 SR4 transceiver, third-party", 512, 54.0, None),
        ("EX2300-48T", "Juniper EX2300 48x 1GbE + 4x 10GbE SFP+ switch (out-of-band)", 6, 1550.0, "oob"),
    ]
    for i, (pn, desc, qty, unit, mark) in enumerate(rows, start=4):
        net.item(i, pn, desc, qty, unit, money.line(qty, unit), mark=mark)
    net.add("", "", "Network subtotal", "", "", money.sub())
    net.add()
    net.add("", "", "Total (USD)", "", "", round(money.total, 2))
    net.add(MARK)
    return Quote(
        "clean_optimized_h200_128.xlsx",
        "clean",
        [srv, net],
        {
            "gpus": 1024,
            "servers": 128,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": not_padding(
                extra=["backend_nonblocking", "optics_everywhere", "missing_item", "extended_mismatch"]
            ),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [
            ("Servers", "system", "system"),
            ("Network", "ib_switch", "backend_switch"),
            ("Network", "dac", "backend_switch_link"),
            ("Network", "frontend", "frontend_switch"),
            ("Network", "oob", "oob_switch"),
        ],
        money.total,
        note="1,024 H200 as the article recommends, 2:1 back end (32 leaves + 8 spines, 256 DAC); two sheets",
    )


# ---------------------------------------------------------------- more quirks


@quote
def dell_b200_64_modules() -> Quote:
    """Dell configuration export with Module Name / Description columns, 4 NICs per server, a discount line."""
    money = Money()
    q = Sheet("Configuration")
    title(q, "DELL TECHNOLOGIES", "Solution Quote", "3000199321874.2", "Example Neocloud Inc.", [("Currency:", "USD")])
    q.head("Module Name", "Description", "SKU", "Unit Price", "Qty", "Total", qty=4, price=3, ext=5)
    servers = 64
    ext = money.line(servers, 391500.0)
    q.item("Base", "PowerEdge XE9680 Rack Server", "210-BDZB", 391500.0, servers, ext, mark="system")
    for module, desc, sku, qty, mark in [
        ("GPU", "NVIDIA HGX B200 180GB 1000W SXM6 8-GPU, fully interconnected with NVLink 5", "370-BCQR", 1, "board"),
        (
            "Processor",
            "Intel Xeon Platinum 8570 2.1G, 56C/112T, 20GT/s, 300M Cache, Turbo, HT (350W) DDR5-5600",
            "338-CNXB",
            1,
            "cpu",
        ),
        (
            "Additional Processor",
            "Intel Xeon Platinum 8570 2.1G, 56C/112T, 20GT/s, 300M Cache, Turbo, HT (350W)",
            "338-CNXB",
            1,
            None,
        ),
        ("Memory Capacity", "64GB RDIMM, 5600MT/s, Dual Rank", "370-AHPL", 32, "dimm"),
        (
            "Network Adapters",
            "NVIDIA ConnectX-7 Single Port NDR OSFP PCIe Gen5 x16 Adapter (4 per server)",
            "540-BDHB",
            4,
            "nic",
        ),
        ("Network Adapters", "Broadcom 57508 Dual Port 100GbE QSFP Adapter, PCIe Full Height", "540-BCRY", 1, None),
        ("Hard Drives", "7.68TB Data Center NVMe Read Intensive AG Drive U2 Gen4 with carrier", "345-BEFN", 4, None),
        ("Boot Optimized Storage", "BOSS-N1 controller card + with 2 M.2 960GB (RAID 1)", "403-BCRU", 1, None),
        ("Power Supply", "Dual, Hot-Plug, Fully Redundant Power Supply (3+3), 3200W, Titanium", "450-AKMS", 1, None),
        (
            "Services",
            "ProSupport Plus Mission Critical 4-Hour 7x24 Onsite Service, 36 Month(s)",
            "865-BBPG",
            1,
            "support",
        ),
    ]:
        q.item(module, desc, sku, None, qty, None, mark=mark)
    q.item(
        "Discount",
        "Special Pricing Discount (deal reg. 24-88127)",
        "",
        -180000.0,
        1,
        money.line(1, -180000.0),
        mark="discount",
    )
    q.add("", "Compute Subtotal", "", "", "", money.sub())
    q.add()
    q.add("Networking")
    fab = fabric(servers, nics=4)
    for module, desc, sku, price, qty, mark in [
        (
            "Switch",
            "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand switch, MQM9700-NS2F",
            "210-BFBQ",
            37100.0,
            fab["switches"],
            "ib_switch",
        ),
        (
            "Optics",
            "NVIDIA MMA4Z00-NS400 OSFP 400Gb/s single-port transceiver, SR4 multimode, flat top",
            "407-BDLS",
            1195.0,
            fab["server_xcvr"],
            "xcvr_server",
        ),
        (
            "Optics",
            "NVIDIA MMA4Z00-NS OSFP 800Gb/s twin-port transceiver, 2xSR4 multimode, finned top",
            "407-BDLT",
            1290.0,
            fab["twin"],
            "xcvr_twin",
        ),
        (
            "Cables",
            "NVIDIA MFP7E10-N030 MPO12 APC to MPO12 APC multimode fiber, 30m",
            "470-AFQZ",
            72.0,
            fab["fibre"],
            "fibre",
        ),
        (
            "Switch",
            "Dell PowerSwitch Z9432F-ON, 32x 400GbE QSFP56-DD, SONiC (front end)",
            "210-AZLL",
            29800.0,
            2,
            "frontend",
        ),
        (
            "Switch",
            "Dell PowerSwitch N3248TE-ON, 48x 1GbE, 4x 10GbE SFP+, 2x 100GbE (out-of-band)",
            "210-ATIU",
            1490.0,
            3,
            "oob",
        ),
    ]:
        q.item(module, desc, sku, price, qty, money.line(qty, price), mark=mark)
    q.add("", "Networking Subtotal", "", "", "", money.sub())
    q.add()
    q.add("", "Total (USD)", "", "", "", round(money.total, 2))
    q.add("", MARK)
    return Quote(
        "dell_xe9680_b200_64_modules.xlsx",
        "dell",
        [q],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "b200-sxm",
            "currency": "USD",
            "findings_must": [
                "nics_below_8",
                "cpu_top_bin",
                "ram_over_1tb",
                "backend_nonblocking",
                "optics_everywhere",
            ],
            "findings_must_not": not_padding(
                "nics_below_8", "cpu_top_bin", "ram_over_1tb", extra=["extended_mismatch", "missing_item"]
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 4, "dpus": 0},
        },
        [
            ("Configuration", "system", "system"),
            ("Configuration", "discount", "discount"),
            ("Configuration", "ib_switch", "backend_switch"),
            ("Configuration", "xcvr_server", "backend_server_link"),
            ("Configuration", "xcvr_twin", "backend_switch_link"),
            ("Configuration", "fibre", "backend_fibre"),
        ],
        money.total,
        note="Dell configuration export: Module Name + Description columns, unpriced modules, '(4 per server)' NICs, "
        "a priced discount line, non-blocking all-optics back end at 64 servers",
    )


def usd_suffix(x: float) -> str:
    return f"-{-x:,.2f} USD" if x < 0 else f"{x:,.2f} USD"


@quote
def reseller_padded_h100_16() -> Quote:
    """A padded quote: the server and the NICs priced about twice the book, 4 NICs per server, every upsell."""
    money = Money()
    sh = Sheet("")
    title(
        sh,
        "Apex Federal & Commercial IT LLC",
        "PRICE QUOTE",
        "AFC-24-00917",
        "Example Neocloud Inc.",
        [("Contract vehicle:", "open market")],
    )
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    no = [0]

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        no[0] += 1
        sh.item(no[0], pn, desc, qty, usd_suffix(unit), usd_suffix(money.line(qty, unit)), mark=mark)

    line(
        "SYS-821GE-TNHR",
        "Supermicro SYS-821GE-TNHR GPU server: NVIDIA HGX H100 8-GPU SXM5, 2x Intel Xeon Platinum "
        "8480+, 2TB (32x 64GB) DDR5, 2x NVIDIA BlueField-3 B3220 DPU, 8x 3.84TB NVMe",
        16,
        465000.0,
        "system",
    )
    line("MCX75310AAS-NEAT", "NVIDIA ConnectX-7 400G NDR single-port OSFP adapter (4 per server)", 64, 3350.0, "nic")
    line(
        "MMA4Z00-NS400",
        "NVIDIA 400G OSFP transceiver, SR4 multimode, flat top (adapter side)",
        64,
        1210.0,
        "xcvr_server",
    )
    line("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR 400G InfiniBand switch", 1, 36500.0, "ib_switch")
    line("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2xSR4 multimode, finned (switch side)", 32, 1290.0)
    line("MFP7E10-N020", "NVIDIA MPO12 APC multimode fiber cable, 20m", 64, 70.0)
    line("MSN4600-CS2FC", "NVIDIA Spectrum SN4600C 64x 100GbE switch, Cumulus (front end)", 1, 27000.0, "frontend")
    line("MSN2201-CB2FC", "NVIDIA Spectrum SN2201 48x 1GbE switch, Cumulus (out-of-band)", 1, 9300.0, "oob")
    line("NVAIE-1Y", "NVIDIA AI Enterprise subscription, 1 year, per GPU", 128, 4500.0, "nvaie")
    sh.add("", "", "TOTAL", "", "", usd_suffix(money.total))
    sh.add("", "", "Prices FOB destination. Sales tax not included.")
    return Quote(
        "reseller_padded_h100_16.csv",
        "reseller",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [
                "price_above_book",
                "nics_below_8",
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "nvaie_license",
                "frontend_spectrum",
                "oob_spectrum",
            ],
            "findings_must_not": ["cpu_amd", "extended_mismatch", "missing_item", "backend_nonblocking"],
            "per_server": {"ram_gb": 2048, "backend_nics": 4, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "nic", "backend_nic"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "nvaie", "software_licence"),
        ],
        money.total,
        note="Padded: $465,000 per server (~1.8x the book) and ConnectX-7 at $3,350 (~2x); '123.00 USD' amounts",
    )


@quote
def de_reseller_h200_64_eur() -> Quote:
    money = Money()
    sh = Sheet("")
    rows = [
        ("Rhein-Main Rechenzentrumstechnik GmbH", "", "", "", "", ""),
        ("Angebot Nr. RMR-2024-11-118", "", "", "", "", ""),
        (MARK, "", "", "", "", ""),
        ("Kunde:", "Example Neocloud GmbH, Frankfurt am Main", "", "", "", ""),
        ("Datum:", "04.11.2024", "", "Gültig bis:", "04.12.2024", ""),
        ("Alle Preise in Euro zzgl. gesetzlicher MwSt.", "", "", "", "", ""),
        ("", "", "", "", "", ""),
    ]
    for r in rows:
        sh.add(*r)
    sh.head("Pos.", "Artikelnummer", "Bezeichnung", "Menge", "Einzelpreis", "Gesamtpreis", qty=3, price=4, ext=5)
    pos = [0]

    def eur(x: float) -> str:
        return "€ " + eu(x)

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        pos[0] += 1
        sh.item(pos[0], pn, desc, f"{qty} Stk.", eur(unit), eur(money.line(qty, unit)), mark=mark)

    line(
        "SYS-821GE-TNHR",
        "Supermicro GPU SuperServer SYS-821GE-TNHR, HGX H200 8-GPU 141 GB, 2x Intel Xeon Platinum "
        "8592+ 64C, 2 TB DDR5, 8x NVIDIA ConnectX-7 NDR 400 Gb/s, 2x NVIDIA BlueField-3 B3220, 8x 3,84 TB NVMe",
        64,
        289900.0,
        "system",
    )
    line("GAR-3J-NBD", "Garantieerweiterung 3 Jahre Vor-Ort-Service, nächster Arbeitstag", 64, 5500.0)
    fab = fabric(64, oversub=2, dac_spine=True)
    line(
        "MQM9790-NS2F",
        "NVIDIA Quantum-2 QM9790 InfiniBand Switch, 64x NDR 400 Gb/s, extern gemanagt",
        fab["switches"],
        32900.0,
        "ib_switch",
    )
    line(
        "MMA4Z00-NS400",
        "NVIDIA OSFP Transceiver 400 Gb/s, Single-Port, SR4 Multimode, Flat Top",
        fab["server_xcvr"],
        1120.0,
        "xcvr_server",
    )
    line(
        "MMA4Z00-NS",
        "NVIDIA OSFP Transceiver 800 Gb/s, Twin-Port, 2x SR4 Multimode, Finned Top",
        fab["twin"],
        1170.0,
        "xcvr_twin",
    )
    line("MCP4Y10-N002", "NVIDIA DAC-Kabel passiv, Twin-Port 800 Gb/s OSFP, 2 m (Leaf-Spine)", fab["dac"], 190.0, "dac")
    line("MFP7E10-N030", "NVIDIA Glasfaserkabel MMF, MPO12 APC auf MPO12 APC, 30 m", fab["fibre"], 64.0, "fibre")
    line(
        "MSN4600-VS2FC",
        "NVIDIA Spectrum SN4600 Ethernet Switch 64x 200 GbE, Cumulus Linux (Frontend)",
        4,
        31500.0,
        "frontend",
    )
    line("EX2300-48T", "Juniper EX2300-48T Switch 48x 1 GbE (Out-of-Band)", 4, 1290.0, "oob")
    line("RABATT", "Projektrabatt", 1, -150000.0, "discount")
    net = money.total
    sh.add("", "", "Summe netto", "", "", eur(net))
    sh.add("", "", "zzgl. 19 % MwSt.", "", "", eur(net * 0.19))
    sh.add("", "", "Gesamtsumme brutto", "", "", eur(net * 1.19))
    sh.add("Zahlungsbedingungen: 30 Tage netto. Lieferung frei Rechenzentrum.")
    return Quote(
        "de_reseller_h200_64_eur.csv",
        "eu_reseller",
        [sh],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "h200-sxm",
            "currency": "EUR",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield", "frontend_spectrum"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "frontend_spectrum",
                extra=["backend_nonblocking", "optics_everywhere", "missing_item", "extended_mismatch"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "dac", "backend_switch_link"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "fibre", "backend_fibre"),
            ("", "frontend", "frontend_switch"),
            ("", "discount", "discount"),
        ],
        net,
        usd_per_unit=1.08,
        delimiter=";",
        note="German headers (Menge, Einzelpreis), '64 Stk.' quantities, '€ 1.234,56', 'zzgl. 19 % MwSt.', "
        "'2 TB DDR5' without DIMM sizes, 2:1 back end with DAC",
    )


@quote
def pdf_h200_128_pages() -> Quote:
    money = Money()
    sh = Sheet("")
    sh.add("", "", "Pacific Rim Systems Integration", "", "", "")
    sh.add("", "", "QUOTE  #PRS-24-7790", "", "", "")
    sh.add("", "", MARK, "", "", "")
    sh.add("Bill To:", "", "Example Neocloud Inc.", "", "Date:", "11/04/2024")
    sh.add("Item", "Part", "Description", "Qty", "Unit", "Extended")
    sh.head("", "Number", "", "", "Price", "Price", qty=3, price=4, ext=5)
    sh.header -= 1

    def line(no: int, pn: str, wrapped: Sequence[str], qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(str(no), pn, wrapped[0], f"{qty:,}", usd_sp(unit), usd_sp(money.line(qty, unit)), mark=mark)
        for more in wrapped[1:]:
            sh.item("", "", more, "", "", "")

    fab = fabric(128)
    line(
        1,
        "G593-SD1-AAX3",
        [
            "GIGABYTE G593-SD1 HGX H200 8-GPU 141GB server,",
            "2x Intel Xeon Gold 6548Y+ 32C, 1TB (16x64GB) DDR5-5600,",
            "8x ConnectX-7 400G NDR OSFP, 2x BlueField-3 B3220 DPU,",
            "8x 3.84TB NVMe U.2",
        ],
        128,
        299500.0,
        "system",
    )
    line(
        2,
        "MQM9700-NS2F",
        ["NVIDIA Quantum-2 QM9700 64-port NDR", "InfiniBand switch, managed"],
        fab["switches"],
        36900.0,
        "ib_switch",
    )
    line(
        3,
        "MMA4Z00-NS400",
        ["NVIDIA 400G OSFP single-port transceiver,", "SR4 multimode, flat top"],
        fab["server_xcvr"],
        1199.0,
        "xcvr_server",
    )
    sh.add("", "", "", "", "", "Page 1 of 2")
    sh.add("", "", "Pacific Rim Systems Integration - QUOTE #PRS-24-7790 (continued)", "", "", "")
    sh.add("Item", "Part", "Description", "Qty", "Unit", "Extended")
    sh.add("", "Number", "", "", "Price", "Price")
    line(
        4,
        "MMA4Z00-NS",
        ["NVIDIA 800G twin-port OSFP transceiver,", "2x SR4 multimode, finned top"],
        fab["twin"],
        1299.0,
        "xcvr_twin",
    )
    line(5, "MFP7E10-N030", ["NVIDIA MPO12 APC passive fiber, MMF, 30m"], fab["fibre"], 72.0, "fibre")
    line(6, "DCS-7060X5-64S", ["Arista 7060X5 64x 400G OSFP switch", "(front end)"], 4, 31500.0, "frontend")
    line(7, "EX2300-48T", ["Juniper EX2300 48x 1GbE switch (out-of-band)"], 8, 1550.0, "oob")
    line(8, "WAR-3YR", ["3-year parts and labor warranty, next", "business day, per server"], 128, 5950.0)
    sh.add("", "", "", "", "Subtotal", usd_sp(money.total))
    sh.add("", "", "", "", "Sales Tax", usd_sp(0.0))
    sh.add("", "", "", "", "Total", usd_sp(money.total))
    sh.add("", "", "", "", "", "Page 2 of 2")
    return Quote(
        "pdf_export_h200_128_pages.csv",
        "pdf_export",
        [sh],
        {
            "gpus": 1024,
            "servers": 128,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["dpu_bluefield", "backend_nonblocking", "optics_everywhere"],
            "findings_must_not": not_padding("dpu_bluefield", extra=["missing_item", "extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "ib_switch", "backend_switch"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "xcvr_twin", "backend_switch_link"),
            ("", "fibre", "backend_fibre"),
        ],
        money.total,
        note="PDF export over two pages: page footer, repeated title and two-row header mid-table; wrapped "
        "descriptions; quantities with thousands commas ('1,536'); the 1,024-GPU reference back end",
    )


@quote
def dell_h100_128_formulas() -> Quote:
    """The article's 1,024-GPU OEM default as Dell sends it: modules at 0.00 (indented), formulas, merged title."""
    money = Money()
    q = Sheet("Quote")
    title(q, "DELL TECHNOLOGIES", "Quote", "3000201188274.1", "Example Neocloud Inc.", [("Currency:", "USD")])
    q.merges += ["A1:E1", "A2:E2", "A3:E3"]
    q.add("Solution: PowerEdge XE9680 x 128, 1,024 GPU cluster")
    q.head("Description", "SKU", "Unit Price", "Quantity", "Subtotal", qty=3, price=2, ext=4)
    q.formulas = True
    servers = 128
    q.item("PowerEdge XE9680 Rack Server", "210-BDZB", 282400.0, servers, money.line(servers, 282400.0), mark="system")
    for desc, sku, qty, mark in [
        ("NVIDIA HGX H100 80GB 700W SXM5 GPUs, fully interconnected with NVLink technology", "370-AHRT", 1, "board"),
        ("Intel Xeon Platinum 8580 2G, 60C/120T, 20GT/s, 300M Cache, Turbo, HT (350W) DDR5-5600", "338-CNWS", 2, "cpu"),
        ("64GB RDIMM, 5600MT/s, Dual Rank", "370-AHPL", 32, "dimm"),
        ("NVIDIA ConnectX-7 Single Port NDR OSFP PCIe Gen5 x16 Adapter, Full Height", "540-BDHB", 8, "nic"),
        ("NVIDIA BlueField-3 B3220 DPU, 2x 200GbE QSFP112, PCIe Gen5 x16, Full Height", "540-BDKF", 2, "dpu"),
        ("3.84TB Data Center NVMe Read Intensive AG Drive U2 Gen4 with carrier", "345-BDZB", 8, None),
        ("BOSS-N1 controller card + with 2 M.2 960GB (RAID 1)", "403-BCRU", 1, None),
        ("ProSupport Plus Mission Critical 4-Hour 7x24 Onsite Service, 36 Month(s)", "865-BBPG", 1, None),
    ]:
        q.item(desc, sku, 0.0, qty, 0.0, mark=mark, indent=True)
    q.add("", "", "", "Subtotal", money.sub())
    net = Sheet("Networking")
    net.add("DELL TECHNOLOGIES - Networking for quote 3000201188274.1")
    net.add(MARK)
    net.add()
    net.head("Description", "SKU", "Unit Price", "Quantity", "Subtotal", qty=3, price=2, ext=4)
    net.formulas = True
    fab = fabric(servers)
    for desc, sku, price, qty, mark in [
        (
            "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand switch, MQM9700-NS2F",
            "210-BFBQ",
            37250.0,
            fab["switches"],
            "ib_switch",
        ),
        (
            "NVIDIA MMA4Z00-NS400 400Gb/s single-port OSFP transceiver, SR4 multimode, flat top",
            "407-BDLS",
            1195.0,
            fab["server_xcvr"],
            "xcvr_server",
        ),
        (
            "NVIDIA MMA4Z00-NS 800Gb/s twin-port OSFP transceiver, 2xSR4 multimode, finned top",
            "407-BDLT",
            1290.0,
            fab["twin"],
            "xcvr_twin",
        ),
        ("NVIDIA MFP7E10-N030 MPO12 APC to MPO12 APC multimode fiber, 30m", "470-AFQZ", 72.0, fab["fibre"], "fibre"),
        ("NVIDIA UFM Enterprise license with 3 years support, per managed endpoint", "634-BZKD", 150.0, 1024, None),
        ("NVIDIA Spectrum SN4600 64x 200GbE switch, MSN4600-VS2FC, Cumulus Linux", "210-BFQV", 34900.0, 8, "frontend"),
        ("NVIDIA MMA1T00-VS 200GbE QSFP56 SR4 transceiver", "407-BDLV", 460.0, 512, None),
        ("NVIDIA Spectrum SN2201 48x 1GbE switch, MSN2201-CB2FC, Cumulus Linux", "210-BFQX", 9350.0, 6, "oob"),
    ]:
        net.item(desc, sku, price, qty, money.line(qty, price), mark=mark)
    net.add("", "", "", "Subtotal", money.sub())
    net.add("", "", "", "Total (USD)", round(money.total, 2))
    return Quote(
        "dell_xe9680_h100_128_formulas.xlsx",
        "dell",
        [q, net],
        {
            "gpus": 1024,
            "servers": 128,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "frontend_spectrum",
                "oob_spectrum",
                "backend_nonblocking",
                "optics_everywhere",
            ],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "frontend_spectrum",
                "oob_spectrum",
                extra=["missing_item", "extended_mismatch"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("Quote", "system", "system"),
            ("Quote", "nic", "backend_nic"),
            ("Quote", "dimm", "ram"),
            ("Networking", "ib_switch", "backend_switch"),
            ("Networking", "xcvr_server", "backend_server_link"),
            ("Networking", "frontend", "frontend_switch"),
            ("Networking", "oob", "oob_switch"),
        ],
        money.total,
        note="The article's OEM default at 1,024 H100: modules priced 0.00 and indented, =qty*price formulas with "
        "cached values, merged title cells, networking sheet with the non-blocking all-optics reference",
    )


@quote
def reseller_h200_bullets_64() -> Quote:
    money = Money()
    sh = Sheet("Quote")
    title(sh, "Cobalt Peak Systems", "Quotation", "CPS-2411-2290", "Example Neocloud Inc.")
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    config = "\n".join(
        [
            "Supermicro SYS-821GE-TNHR 8U GPU SuperServer",
            "- GPU: 8x NVIDIA H200 SXM5 141GB (HGX H200 8-GPU)",
            "- CPU: 2x Intel Xeon Platinum 8580 60C 2.0GHz",
            "- Memory: 2,048 GB DDR5-5600 (32 x 64 GB RDIMM)",
            "- Compute fabric: 8x NVIDIA ConnectX-7 400Gb/s NDR OSFP (one per GPU)",
            "- DPU: 2x NVIDIA BlueField-3 B3240 2x 400Gb/s",
            "- Storage: 8x 3.84 TB NVMe U.2 + 2x 960 GB M.2 boot",
            "- Power: 6x 3000W Titanium",
        ]
    )
    sh.item(1, "SYS-821GE-TNHR", config, 64, 312500.0, money.line(64, 312500.0), mark="system")
    sh.item(
        2,
        "SVC-3Y-NBD",
        "3-year parts and labor warranty, next business day on-site",
        64,
        5900.0,
        money.line(64, 5900.0),
    )
    fab = fabric(64, oversub=2, dac_spine=True)
    rows = [
        (
            "MQM9790-NS2F",
            "NVIDIA Quantum-2 QM9790 64-port NDR 400Gb/s InfiniBand switch, externally managed",
            fab["switches"],
            34900.0,
            "ib_switch",
        ),
        (
            "MMA4Z00-NS400",
            "NVIDIA 400Gb/s single-port OSFP transceiver, SR4 multimode, flat top",
            fab["server_xcvr"],
            1189.0,
            "xcvr_server",
        ),
        (
            "MMA4Z00-NS",
            "NVIDIA 800Gb/s twin-port OSFP transceiver, 2x SR4 multimode, finned top",
            fab["twin"],
            1295.0,
            None,
        ),
        (
            "MCP4Y10-N002",
            "NVIDIA passive copper cable, twin-port 800Gb/s OSFP, 2m (leaf to spine)",
            fab["dac"],
            215.0,
            "dac",
        ),
        ("MFP7E10-N030", "NVIDIA passive fiber cable, MMF, MPO12 APC to MPO12 APC, 30m", fab["fibre"], 71.0, "fibre"),
        (
            "UFM-ENT-LIC-3Y",
            "NVIDIA UFM Enterprise licence, 3 years support, per NIC endpoint",
            fab["server_xcvr"],
            150.0,
            None,
        ),
        ("DCS-7260CX3-64", "Arista 7260CX3-64 64x 100GbE switch (front end)", 4, 13400.0, "frontend"),
        (
            "MSN2201-CB2FC",
            "NVIDIA Spectrum SN2201 48x 1GbE + 4x 100GbE switch, Cumulus (out-of-band)",
            4,
            9300.0,
            "oob",
        ),
    ]
    for i, (pn, desc, qty, unit, mark) in enumerate(rows, start=3):
        sh.item(i, pn, desc, qty, unit, money.line(qty, unit), mark=mark)
    sh.add("", "", "Total (USD)", "", "", round(money.total, 2))
    return Quote(
        "reseller_smc_h200_64_bullets.xlsx",
        "reseller",
        [sh],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield", "oob_spectrum"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "oob_spectrum",
                extra=["backend_nonblocking", "optics_everywhere", "missing_item", "extended_mismatch"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [("Quote", "system", "system"), ("Quote", "dac", "backend_switch_link"), ("Quote", "oob", "oob_switch")],
        money.total,
        note="The server's configuration as a bulleted list inside one cell (line breaks); '8x H200 SXM5' rather "
        "than 'HGX H200 8-GPU' first; '2,048 GB'; BlueField-3 B3240",
    )


def fr(x: float) -> str:
    """1 234,56 € with a no-break space as the thousands separator (French)."""
    s = f"{abs(x):,.2f}".replace(",", "\u00a0").replace(".", ",")
    return ("-" if x < 0 else "") + s + " €"


@quote
def fr_reseller_b200_32_cp1252() -> Quote:
    money = Money()
    sh = Sheet("")
    for r in [
        ("Calcul Intensif Services SAS", "", "", "", ""),
        ("Devis n° CIS-D-2024-1104", "", "", "", ""),
        (MARK, "", "", "", ""),
        ("Client :", "Example Neocloud SAS, Paris", "", "", ""),
        ("Date :", "04/11/2024", "Validité :", "30 jours", ""),
        ("Prix en euros hors taxes (HT)", "", "", "", ""),
        ("", "", "", "", ""),
    ]:
        sh.add(*r)
    sh.head("Référence", "Désignation", "Qté", "Prix unitaire HT", "Montant HT", qty=2, price=3, ext=4)

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(pn, desc, qty, fr(unit), fr(money.line(qty, unit)), mark=mark)

    line(
        "SYS-A21GE-NBRT",
        "Supermicro SYS-A21GE-NBRT 10U, NVIDIA HGX B200 8-GPU 1,440GB HBM3e, 2x Intel Xeon "
        "Platinum 8570 56C, 2TB DDR5-5600 (32x 64GB), 8x NVIDIA ConnectX-7 400G NDR, 2x BlueField-3 B3220, "
        "8x 3.84TB NVMe",
        32,
        356000.0,
        "system",
    )
    line(
        "GAR-3A-J1", "Extension de garantie 3 ans, intervention sur site J+1 (3-year warranty, NBD on site)", 32, 5450.0
    )
    fab = fabric(32)
    line(
        "MQM9700-NS2F", "NVIDIA Quantum-2 QM9700, 64 ports NDR 400Gb/s, managed", fab["switches"], 33400.0, "ib_switch"
    )
    line(
        "MMA4Z00-NS400",
        "NVIDIA transceiver OSFP 400Gb/s single-port, SR4 multimode, flat top",
        fab["server_xcvr"],
        1105.0,
        "xcvr_server",
    )
    line("MMA4Z00-NS", "NVIDIA transceiver OSFP 800Gb/s twin-port, 2x SR4 multimode, finned top", fab["twin"], 1160.0)
    line("MFP7E10-N030", "NVIDIA câble fibre MMF MPO12 APC vers MPO12 APC, 30 m", fab["fibre"], 63.0, "fibre")
    line("REMISE", "Remise commerciale projet", 1, -90000.0, "discount")
    line("PORT", "Frais de port et assurance", 1, 4200.0)
    net = money.total
    sh.add("", "Total HT", "", "", fr(net))
    sh.add("", "TVA 20 %", "", "", fr(net * 0.2))
    sh.add("", "Total TTC", "", "", fr(net * 1.2))
    sh.add("Conditions de paiement : 30 jours fin de mois.", "", "", "", "")
    return Quote(
        "fr_reseller_b200_32_eur_cp1252.csv",
        "eu_reseller",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "b200-sxm",
            "currency": "EUR",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "fibre", "backend_fibre"),
            ("", "discount", "discount"),
        ],
        net,
        usd_per_unit=1.08,
        delimiter=";",
        encoding="cp1252",
        note="Excel 'CSV (Windows)': cp1252 bytes, French headers (Désignation, Qté, Prix unitaire HT), no-break "
        "space thousands '356 000,00 €', TVA 20 % and Total TTC",
    )


@quote
def odm_h100_32_node_and_cluster() -> Quote:
    money = Money()
    sh = Sheet("BoM")
    sh.add("Inventec-style ODM quotation - 32-node HGX H100 pod")
    sh.add(MARK)
    sh.add("Quote:", "ODM-Q-24-0332", "Date:", "2024-11-04")
    sh.add()
    sh.head(
        "Category",
        "Part No.",
        "Description",
        "Qty/Node",
        "Nodes",
        "Total Qty",
        "Unit Price",
        "Amount",
        qty=5,
        price=6,
        ext=7,
    )
    nodes = 32

    def node(cat: str, pn: str, desc: str, per: int, unit: float, mark: str | None = None) -> None:
        sh.item(cat, pn, desc, per, nodes, per * nodes, unit, money.line(per * nodes, unit), mark=mark)

    def cluster(cat: str, pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(cat, pn, desc, None, None, qty, unit, money.line(qty, unit), mark=mark)

    sh.add("Node BoM")
    node("System", "HGX8-BB-EGS", "8U HGX barebone, 2S AMD SP5 board, 6x 3kW PSU, fans, rails", 1, 7700.0)
    node("System", "BB-HGXH100-80G", "NVIDIA HGX H100 8-GPU 80GB SXM5 baseboard", 1, 212000.0, "board")
    node("CPU", "100-000000789", "AMD EPYC 9454 48-core 2.75GHz 290W", 2, 2300.0, "cpu")
    node("Memory", "M321R8GA0BB0-CQK", "Samsung 64GB DDR5-4800 2Rx4 RDIMM", 24, 258.0, "dimm")
    node("Network", "MCX75310AAS-NEAT", "NVIDIA ConnectX-7 1-port OSFP NDR 400Gb/s adapter", 8, 1640.0, "nic")
    node("Network", "MCX623106AN-CDAT", "NVIDIA ConnectX-6 Dx 2x 100GbE QSFP56 adapter", 1, 830.0, "fe_nic")
    node("Network", "BCM5720 (onboard)", "Broadcom BCM5720 dual 1GbE LOM, integrated", 1, 0.0)
    node("Storage", "MZQL27T6HBLA-00A07", "Samsung PM9A3 7.68TB U.2 NVMe", 4, 840.0)
    node("Service", "SVC-L10", "L10 integration and burn-in per node", 1, 1900.0)
    sh.add("Cluster BoM")
    fab = fabric(nodes)
    cluster(
        "Network", "MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", fab["switches"], 36300.0, "ib_switch"
    )
    cluster(
        "Network",
        "MMA4Z00-NS400",
        "NVIDIA 400G OSFP single-port SR4 multimode transceiver, flat top",
        fab["server_xcvr"],
        1180.0,
        "xcvr_server",
    )
    cluster(
        "Network",
        "MMA4Z00-NS",
        "NVIDIA 800G twin-port OSFP 2xSR4 multimode transceiver, finned",
        fab["twin"],
        1280.0,
        "xcvr_twin",
    )
    cluster("Network", "MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", fab["fibre"], 70.0, "fibre")
    cluster("Network", "DCS-7060CX-32S", "Arista 7060CX-32S 32x 100GbE switch (front end)", 2, 6400.0)
    cluster("Network", "EX2300-48T", "Juniper EX2300 48x 1GbE switch (out-of-band)", 1, 1500.0)
    sh.add("", "", "Total (USD)", "", "", "", "", round(money.total, 2))
    return Quote(
        "odm_bom_h100_32_node_and_cluster.xlsx",
        "odm",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_amd", "ram_over_1tb"],
            "findings_must_not": not_padding(
                "cpu_amd", "ram_over_1tb", extra=["missing_item", "extended_mismatch", "backend_nonblocking"]
            ),
            "per_server": {"ram_gb": 1536, "backend_nics": 8, "dpus": 0},
        },
        [
            ("BoM", "board", "gpu_baseboard"),
            ("BoM", "cpu", "cpu"),
            ("BoM", "nic", "backend_nic"),
            ("BoM", "fe_nic", "frontend_nic"),
            ("BoM", "ib_switch", "backend_switch"),
            ("BoM", "xcvr_server", "backend_server_link"),
        ],
        money.total,
        note="ODM table with a node BoM (Qty/Node x Nodes = Total Qty) and a cluster BoM (Total Qty only) under "
        "one header; AMD EPYC 9454 (48 cores, not top bin); 1.5TB as 24x 64GB",
    )


@quote
def hpe_h200_16_summary() -> Quote:
    """HPE with a Summary sheet first, Disc % as a fraction, no unit net column (only the extended net)."""
    money = Money()
    head = ("Product #", "Description", "Qty", "Unit List Price", "Disc %", "Ext Net Price")

    def line(sh: Sheet, pn: str, desc: str, qty: int, net: float, disc: float, mark: str | None = None) -> None:
        sh.item(pn, desc, qty, round(net / (1 - disc), 2), disc, money.line(qty, net), mark=mark)

    c = Sheet("Compute")
    c.add("HPE Quote HPE-Q-0041330071 v3 - Compute")
    c.add(MARK)
    c.add()
    c.head(*head, qty=2, price=3, ext=5)
    line(c, "P62789-B21", "HPE Cray XD670 8U CTO Server", 16, 8100.0, 0.57)
    line(c, "P70814-B21 #0D1", "HPE Cray XD670 NVIDIA HGX H200 8-GPU SXM5 141GB FIO Kit", 16, 254000.0, 0.5, "board")
    line(
        c,
        "P67089-B21 #0D1",
        "Intel Xeon-Platinum 8568Y+ 2.3GHz 48-core 350W Processor for HPE",
        32,
        4850.0,
        0.59,
        "cpu",
    )
    line(
        c,
        "P64708-B21 #0D1",
        "HPE 96GB (1x96GB) Dual Rank x4 DDR5-5600 CAS-46-45-45 EC8 Registered Smart Memory Kit",
        256,
        395.0,
        0.57,
        "dimm",
    )
    line(
        c,
        "P45641-B21 #0D1",
        "HPE InfiniBand NDR 1-port OSFP PCIe5 x16 MCX75310AAS-NEAT Adapter",
        128,
        1650.0,
        0.55,
        "nic",
    )
    line(c, "P72398-B21 #0D1", "NVIDIA BlueField-3 B3220 2-port 200GbE QSFP112 DPU for HPE", 16, 2640.0, 0.55, "dpu")
    line(
        c,
        "P50220-B21 #0D1",
        "HPE 7.68TB NVMe Gen4 Mainstream Performance Read Intensive SFF BC U.3 Static Multi Vendor SSD",
        64,
        860.0,
        0.57,
    )
    line(c, "H40X4E", "HPE 3 Year Tech Care Essential XD670 Service", 16, 6150.0, 0.55)
    compute = money.sub()
    c.add("", "Compute total", "", "", "", compute)
    n_ = Sheet("Networking")
    n_.add("HPE Quote HPE-Q-0041330071 v3 - Networking")
    n_.add(MARK)
    n_.add()
    n_.head(*head, qty=2, price=3, ext=5)
    fab = fabric(16)
    line(
        n_,
        "R9D12A",
        "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand Switch (MQM9700-NS2F) for HPE",
        fab["switches"],
        36400.0,
        0.35,
        "ib_switch",
    )
    line(
        n_,
        "R9D22A",
        "NVIDIA MMA4Z00-NS400 400Gb/s single-port OSFP SR4 multimode transceiver for HPE",
        fab["server_xcvr"],
        1215.0,
        0.35,
        "xcvr_server",
    )
    line(
        n_,
        "R9D23A",
        "NVIDIA MMA4Z00-NS 800Gb/s twin-port OSFP 2xSR4 multimode transceiver for HPE",
        fab["twin"],
        1280.0,
        0.35,
    )
    line(n_, "R9D31A", "NVIDIA MFP7E10-N030 MPO12 APC multimode fiber cable 30m for HPE", fab["fibre"], 70.0, 0.35)
    line(
        n_,
        "JL479A",
        "HPE Aruba Networking 8320 48p 10G SFP+ 6p 40G QSFP+ Switch (out-of-band aggregation)",
        1,
        3400.0,
        0.6,
    )
    network = money.sub()
    n_.add("", "Networking total", "", "", "", network)
    summary = Sheet("Summary")
    summary.add("Hewlett Packard Enterprise")
    summary.add("Quote summary HPE-Q-0041330071 v3")
    summary.add(MARK)
    summary.add("Customer:", "Example Neocloud Inc.")
    summary.add()
    summary.add("Section", "Description", "Amount (USD)")
    summary.add("Compute", "16x HPE Cray XD670 with HGX H200 8-GPU (see sheet Compute)", compute)
    summary.add("Networking", "InfiniBand NDR fabric and management (see sheet Networking)", network)
    summary.add("Total", "", round(money.total, 2))
    summary.add("Prices are net, in USD, excluding tax and freight.")
    return Quote(
        "hpe_xd670_h200_16_summary_sheet.xlsx",
        "hpe",
        [summary, c, n_],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 1536, "backend_nics": 8, "dpus": 1},
        },
        [
            ("Compute", "board", "gpu_baseboard"),
            ("Compute", "dimm", "ram"),
            ("Compute", "nic", "backend_nic"),
            ("Networking", "xcvr_server", "backend_server_link"),
        ],
        money.total,
        note="A Summary sheet first (section totals, not items); Disc % as a fraction; list and extended net "
        "only (no unit net column); 1.5TB as 16x 96GB kits",
    )


@quote
def lenovo_h200_per_node_label() -> Quote:
    money = Money()
    sh = Sheet("Sheet1")
    sh.add("Lenovo ThinkSystem SR680a V3 - configuration and price per node")
    sh.add(MARK)
    sh.add("Number of nodes", 16)
    sh.add("Currency", "USD")
    sh.add()
    sh.head("Part Number", "Description", "Qty per node", "Price", "Extended per node", qty=2, price=3, ext=4)

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(pn, desc, qty, unit, money.line(qty, unit), mark=mark)

    line("7DHECTO1WW", "ThinkSystem SR680a V3 base, 8U, 2S, air cooled", 1, 8150.0)
    line("C1HL", "ThinkSystem NVIDIA HGX H200 141GB 700W 8-GPU Board", 1, 250500.0, "board")
    line("BYKQ", "Intel Xeon Gold 6530 32C 270W 2.1GHz Processor", 2, 2180.0, "cpu")
    line("BZ7H", "ThinkSystem 64GB TruDDR5 5600MHz (2Rx4) RDIMM", 16, 275.0, "dimm")
    line("BQ1N", "ThinkSystem NVIDIA ConnectX-7 NDR OSFP400 1-port PCIe Gen5 x16 InfiniBand Adapter", 8, 1680.0, "nic")
    line("BVBG", "ThinkSystem NVIDIA BlueField-3 B3220 VPI QSFP112 2P 200G PCIe Gen5 x16 Adapter", 1, 2690.0, "dpu")
    line("BTMB", 'ThinkSystem 2.5" U.2 PM1733a 7.68TB Read Intensive NVMe PCIe 4.0 x4 HS SSD', 4, 875.0)
    line("5WS7C17845", "Premier Essential - 3Yr 24x7 4Hr Resp + YDYD SR680a V3", 1, 6240.0)
    sh.add("", "Per node total", "", "", round(money.total, 2))
    return Quote(
        "lenovo_sr680a_h200_per_node_16.xlsx",
        "lenovo",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["dpu_bluefield"],
            "findings_must_not": not_padding("dpu_bluefield", extra=["extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 1},
        },
        [("Sheet1", "board", "gpu_baseboard"), ("Sheet1", "nic", "backend_nic"), ("Sheet1", "dpu", "frontend_nic")],
        money.total,
        per_server_copies=16,
        note="Per-node quote whose node count is a label/number pair ('Number of nodes' | 16) and a 'Qty per node' "
        "column; one BlueField-3",
    )


@quote
def integrator_per_gpu_h100_32() -> Quote:
    """Component BoM priced per GPU (8 SXM GPUs per node) rather than per baseboard."""
    money = Money()
    sh = Sheet("")
    title(
        sh,
        "Granite State Integration Inc.",
        "Component quotation (per server; 32 servers)",
        "GSI-24-0419",
        "Example Neocloud Inc.",
    )
    sh.head("Item", "MPN", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    rows = [
        (
            "SYS-821GE-TNHR-BB",
            "Supermicro 8U HGX barebone (chassis, X13 board, 6x 3000W PSU, fans, rails)",
            1,
            7850.0,
            "chassis",
        ),
        ("GPU-NVH100-SXM5-80", "NVIDIA H100 SXM5 80GB GPU on HGX 8-GPU baseboard (price per GPU)", 8, 26750.0, "gpu"),
        ("P4X-EMR6530-SRN6", "Intel Xeon Gold 6530 32C 2.1GHz 270W", 2, 2160.0, "cpu"),
        ("MEM-DR564MC-ER56", "64GB DDR5-5600 ECC RDIMM", 16, 262.0, "dimm"),
        ("MCX75310AAS-NEAT", "NVIDIA ConnectX-7 400Gb/s NDR single-port OSFP adapter", 8, 1640.0, "nic"),
        ("MCX623106AN-CDAT", "NVIDIA ConnectX-6 Dx dual-port 100GbE adapter", 1, 840.0, "fe_nic"),
        ("HDS-SUN1-PM9A3-7T6", "7.68TB NVMe U.2 PCIe4 data drive", 4, 845.0, None),
        ("SVC-L11", "L11 integration, burn-in and shipping", 1, 1980.0, None),
    ]
    for i, (pn, desc, qty, unit, mark) in enumerate(rows, start=1):
        sh.item(i, pn, desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark)
    sh.add("", "", "Total per server", "", "", usd(money.total))
    sh.add("", "", "Order quantity: 32 servers; totals above are per server")
    return Quote(
        "integrator_per_gpu_h100_32.csv",
        "reseller",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": not_padding(extra=["extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [("", "nic", "backend_nic"), ("", "fe_nic", "frontend_nic"), ("", "dimm", "ram")],
        money.total,
        servers_quoted=32,
        per_server_copies=32,
        note="GPUs priced one by one ('H100 SXM5 80GB GPU' x 8 per server) instead of a baseboard line; the user "
        "types 32 servers; otherwise the article's node",
    )


@quote
def integrator_racks_h100_16() -> Quote:
    """An L11 rack-level quote: the same server line under each rack section."""
    money = Money()
    sh = Sheet("Rack BoM")
    title(sh, "Keystone Rack Integration LLC", "L11 rack integration quote", "KRI-24-1188", "Example Neocloud Inc.")
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    no = [0]

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        no[0] += 1
        sh.item(no[0], pn, desc, qty, unit, money.line(qty, unit), mark=mark)

    server = (
        "Supermicro SYS-821GE-TNHR, HGX H100 8-GPU SXM5, 2x Xeon Platinum 8468 48C, 2TB (32x 64GB) DDR5, "
        "8x ConnectX-7 400G NDR, 1x ConnectX-6 Dx 2x100GbE, 8x 3.84TB NVMe"
    )
    for rack in ("A01", "A02", "A03", "A04"):
        sh.add("", "", f"RACK {rack} (compute, 4 servers, 41 kW)")
        line("SYS-821GE-TNHR", server, 4, 279900.0, "system" if rack == "A01" else None)
        line("SRK-48U-6012", "48U 600x1200 server rack with side panels and blanking", 1, 1650.0)
        line("PDU-3P-60A-MET", "Metered 3-phase rack PDU 415V 60A", 2, 1750.0)
        line(
            "MSN2201-CB2FC",
            "NVIDIA Spectrum SN2201 48x 1GbE switch, Cumulus (rack OOB)",
            1,
            9350.0,
            "oob" if rack == "A01" else None,
        )
        sh.add("", "", f"Rack {rack} subtotal", "", "", money.sub())
    sh.add("", "", "RACK N01 (network)")
    fab = fabric(16)
    line("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand switch", fab["switches"], 36900.0, "ib_switch")
    line(
        "MMA4Z00-NS400",
        "NVIDIA 400G OSFP single-port transceiver, SR4 multimode, flat top",
        fab["server_xcvr"],
        1189.0,
        "xcvr_server",
    )
    line("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2xSR4 multimode, finned top", fab["twin"], 1295.0)
    line("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", fab["fibre"], 71.0, "fibre")
    line("DCS-7060CX-32S", "Arista 7060CX-32S 32x 100GbE switch (front end)", 2, 6600.0, "frontend")
    sh.add("", "", "Rack N01 subtotal", "", "", money.sub())
    sh.add("", "", "TOTAL (USD)", "", "", round(money.total, 2))
    return Quote(
        "integrator_racks_h100_16.xlsx",
        "reseller",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "oob_spectrum"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "oob_spectrum",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 0},
        },
        [
            ("Rack BoM", "system", "system"),
            ("Rack BoM", "oob", "oob_switch"),
            ("Rack BoM", "ib_switch", "backend_switch"),
            ("Rack BoM", "fibre", "backend_fibre"),
            ("Rack BoM", "frontend", "frontend_switch"),
        ],
        money.total,
        note="Rack-by-rack L11 quote: the same 4-server line under four rack sections, an OOB switch per rack",
    )


@quote
def dell_h200_32_groups() -> Quote:
    """Dell solution quote with three system groups: GPU servers, management nodes and storage servers."""
    money = Money()
    q = Sheet("Quote")
    title(q, "DELL TECHNOLOGIES", "Solution Quote", "3000209917733.1", "Example Neocloud Inc.", [("Currency:", "USD")])
    q.head("Description", "SKU", "Unit Price", "Quantity", "Subtotal", qty=3, price=2, ext=4)

    def system(
        name: str,
        sku: str,
        price: float,
        qty: int,
        modules: list[tuple[str, str, int]],
        mark: str | None = None,
        module_marks: dict[int, str] | None = None,
    ) -> None:
        q.item(name, sku, price, qty, money.line(qty, price), mark=mark)
        for i, (desc, msku, mqty) in enumerate(modules):
            q.item(desc, msku, None, mqty, None, indent=True, mark=(module_marks or {}).get(i))

    q.add("Group 1: GPU compute (32 units)")
    system(
        "PowerEdge XE9680 Rack Server",
        "210-BDZB",
        296800.0,
        32,
        [
            ("NVIDIA HGX H200 141GB 700W SXM5 8-GPU, fully interconnected with NVLink technology", "370-BBZS", 1),
            ("Intel Xeon Gold 6548Y+ 2.5G, 32C/64T, 20GT/s, 60M Cache, Turbo, HT (250W) DDR5-5200", "338-CNXH", 2),
            ("64GB RDIMM, 5600MT/s, Dual Rank", "370-AHPL", 16),
            ("NVIDIA ConnectX-7 Single Port NDR OSFP PCIe Gen5 x16 Adapter, Full Height", "540-BDHB", 8),
            ("NVIDIA ConnectX-6 Dx Dual Port 100GbE QSFP56 Network Adapter, Full Height", "540-BCOL", 1),
            ("7.68TB Data Center NVMe Read Intensive AG Drive U2 Gen4 with carrier", "345-BEFN", 4),
            ("ProSupport Plus Mission Critical 4-Hour 7x24 Onsite Service, 36 Month(s)", "865-BBPG", 1),
        ],
        mark="system",
        module_marks={2: "dimm", 3: "nic"},
    )
    q.add("", "", "", "Group 1 Subtotal", money.sub())
    q.add("Group 2: Management nodes (3 units)")
    system(
        "PowerEdge R660 Rack Server",
        "210-BEQQ",
        12900.0,
        3,
        [
            ("Intel Xeon Gold 6526Y 2.8G, 16C/32T, 20GT/s, 37.5M Cache, Turbo, HT (195W) DDR5-5200", "338-CNXK", 2),
            ("64GB RDIMM, 5600MT/s, Dual Rank", "370-AHPL", 8),
            ("NVIDIA ConnectX-6 Dx Dual Port 100GbE QSFP56 Network Adapter", "540-BCOL", 1),
            ("1.92TB Data Center NVMe Read Intensive AG Drive U2 Gen4 with carrier", "345-BEFK", 2),
            ("ProSupport 3 Years Next Business Day Onsite Service", "865-BBPC", 1),
        ],
        mark="mgmt",
    )
    q.add("", "", "", "Group 2 Subtotal", money.sub())
    q.add("Group 3: Storage servers (8 units)")
    system(
        "PowerEdge R7625 Rack Server",
        "210-BDCF",
        66200.0,
        8,
        [
            ("AMD EPYC 9354 3.25GHz, 32C/64T, 256M Cache (280W) DDR5-4800", "338-CHTS", 2),
            ("32GB RDIMM, 4800MT/s Dual Rank", "370-AGZP", 12),
            ("15.36TB Data Center NVMe Read Intensive AG Drive U2 Gen4 with carrier", "345-BDZJ", 24),
            ("NVIDIA ConnectX-7 Dual Port 200GbE QSFP112 Adapter, PCIe Full Height", "540-BDLC", 2),
            ("ProSupport 3 Years Next Business Day Onsite Service", "865-BBPC", 1),
        ],
        mark="storage",
    )
    q.add("", "", "", "Group 3 Subtotal", money.sub())
    q.add("Group 4: Software")
    q.item(
        "NVIDIA AI Enterprise Essentials subscription, per GPU, 3 Years",
        "634-BYLH",
        13400.0,
        256,
        money.line(256, 13400.0),
        mark="nvaie",
    )
    q.add("", "", "", "Group 4 Subtotal", money.sub())
    q.add("", "", "", "Total (USD)", round(money.total, 2))
    q.add(MARK)
    return Quote(
        "dell_xe9680_h200_32_groups.xlsx",
        "dell",
        [q],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["nvaie_license"],
            "findings_must_not": not_padding("nvaie_license", extra=["extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [
            ("Quote", "system", "system"),
            ("Quote", "dimm", "ram"),
            ("Quote", "nic", "backend_nic"),
            ("Quote", "nvaie", "software_licence"),
        ],
        money.total,
        note="Three Dell system groups: 32 GPU servers, 3 management nodes (R660), 8 storage servers (R7625, AMD, "
        "24x 15.36TB each); only the GPU servers' configuration counts per server",
    )


COVER_LETTER = [
    "Dear Procurement Team,",
    "",
    "Thank you for the opportunity to quote the GPU infrastructure for your first availability zone.",
    "This proposal covers 64 HGX H100 servers, the InfiniBand NDR compute fabric and the services listed below.",
    "All systems are built, burned in and validated in our Fremont integration facility before shipment.",
    "",
    "Scope of work",
    "1. L11 integration of 64 GPU servers in 16 racks (4 servers per rack, 41 kW per rack).",
    "2. Factory burn-in: 72 hours HPL and NCCL all-reduce per rack, report delivered with the shipment.",
    "3. Delivery to the customer's colocation site, uncrating, rack placement and power-on.",
    "4. On-site acceptance support for 5 business days.",
    "",
    "Commercial terms",
    "- Prices are in US dollars, excluding sales tax, and valid for 30 days from the date of this quote.",
    "- Payment: 30% with order, 60% on shipment, 10% on acceptance.",
    "- Lead time: 10-12 weeks after receipt of order, subject to GPU allocation.",
    "- Warranty: 3 years parts and labor, next business day on-site, unless stated otherwise below.",
    "- Freight: DAP customer site, included.",
    "",
    "Assumptions",
    "- The customer provides rack positions, power (2x 60A 415V 3-phase feeds per rack) and cooling.",
    "- Fibre trunks between rows are supplied by the colocation provider.",
    "- Out-of-band network switches are supplied by the customer.",
    "",
    "Exclusions",
    "- Storage, software licences and operating system installation beyond the burn-in image.",
    "",
    "We look forward to working with you.",
    "",
    "Kind regards,",
    "Morgan Lee, Account Director",
    "Sierra Nevada Compute Inc.",
    "",
]


@quote
def reseller_cover_letter_h100_64() -> Quote:
    money = Money()
    sh = Sheet("Proposal")
    sh.add("Sierra Nevada Compute Inc. - Proposal SNC-P-24-0311")
    sh.add(MARK)
    sh.add("Prepared for: Example Neocloud Inc.", "", "", "Date: 2024-11-04")
    sh.add()
    for text in COVER_LETTER:
        sh.add(text)
    sh.add("PRICING")
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    no = [0]

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        no[0] += 1
        sh.item(no[0], pn, desc, qty, unit, money.line(qty, unit), mark=mark)

    line(
        "ESC-N8-E11",
        "ASUS ESC N8-E11 HGX H100 8-GPU server, 2x Intel Xeon Gold 6530 32C, 1TB DDR5 (16x 64GB), "
        "8x NVIDIA ConnectX-7 400G NDR, 1x NVIDIA ConnectX-6 Dx 2x100GbE, 4x 7.68TB NVMe",
        64,
        251500.0,
        "system",
    )
    line("WTY-3Y-NBD", "3-year parts and labor warranty, NBD on-site, per server", 64, 5950.0)
    fab = fabric(64, oversub=2, dac_spine=True)
    line(
        "MQM9790-NS2F",
        "NVIDIA Quantum-2 QM9790 64-port NDR 400G InfiniBand switch, externally managed",
        fab["switches"],
        34900.0,
        "ib_switch",
    )
    line(
        "MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver, SR4 multimode, flat top", fab["server_xcvr"], 1189.0
    )
    line("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2x SR4 multimode, finned top", fab["twin"], 1295.0)
    line("MCP4Y10-N002", "NVIDIA 800G twin-port OSFP passive copper cable, 2m (leaf to spine)", fab["dac"], 215.0)
    line("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber, 30m", fab["fibre"], 71.0)
    line(
        "MSN4600-CS2FC", "NVIDIA Spectrum SN4600C 64x 100GbE switch, Cumulus Linux (front end)", 4, 27400.0, "frontend"
    )
    line("SVC-L11-RACK", "L11 rack integration, burn-in and delivery (16 racks)", 1, 61000.0, "services")
    sh.add("", "", "TOTAL (USD)", "", "", round(money.total, 2))
    return Quote(
        "reseller_cover_letter_h100_64.xlsx",
        "reseller",
        [sh],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["frontend_spectrum"],
            "findings_must_not": not_padding(
                "frontend_spectrum",
                extra=["backend_nonblocking", "optics_everywhere", "missing_item", "extended_mismatch"],
            ),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [
            ("Proposal", "system", "system"),
            ("Proposal", "ib_switch", "backend_switch"),
            ("Proposal", "frontend", "frontend_switch"),
        ],
        money.total,
        note="A cover letter of 30+ lines above the price table on the same sheet (header at row 42); a "
        "lump-sum integration line for 16 racks",
    )


@quote
def ie_reseller_h200_32_eur() -> Quote:
    """Irish reseller: numeric cells, the currency only in the column headers, quantities as 32.00, VAT 23 %."""
    money = Money()
    sh = Sheet("Quotation")
    sh.add("Liffey Data Systems Ltd")
    sh.add("Quotation LDS-Q-24-0871")
    sh.add(MARK)
    sh.add("Customer:", "Example Neocloud Ltd, Dublin")
    sh.add("Date:", "04/11/2024")
    sh.add()
    sh.head(
        "Line",
        "Product Code",
        "Description",
        "Quantity",
        "Unit Price (EUR)",
        "Line Total (EUR)",
        "Lead Time",
        qty=3,
        price=4,
        ext=5,
    )
    no = [0]

    def line(pn: str, desc: str, qty: int, unit: float, lead: str, mark: str | None = None) -> None:
        no[0] += 1
        sh.item(no[0], pn, desc, float(qty), unit, money.line(qty, unit), lead, mark=mark)

    line(
        "XE9680-H200-CFG7",
        "Dell PowerEdge XE9680, NVIDIA HGX H200 8-GPU 141GB, 2x Intel Xeon Gold 6548Y+ 32C, "
        "1TB (16 x 64GB) DDR5-5600, 8x NVIDIA ConnectX-7 NDR 400Gb/s OSFP, 1x NVIDIA BlueField-3 B3220 (front end), "
        "4x 7.68TB NVMe, 3yr ProSupport",
        32,
        277500.0,
        "12 weeks",
        "system",
    )
    fab = fabric(32)
    line(
        "MQM9700-NS2F",
        "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand switch",
        fab["switches"],
        33600.0,
        "8 weeks",
        "ib_switch",
    )
    line(
        "MMA4Z00-NS400",
        "NVIDIA 400Gb/s OSFP single-port transceiver, SR4 multimode, flat top",
        fab["server_xcvr"],
        1110.0,
        "6 weeks",
        "xcvr_server",
    )
    line(
        "MMA4Z00-NS",
        "NVIDIA 800Gb/s OSFP twin-port transceiver, 2x SR4 multimode, finned top",
        fab["twin"],
        1170.0,
        "6 weeks",
    )
    line("MFP7E10-N030", "NVIDIA MPO12 APC multimode fibre, 30m", fab["fibre"], 64.0, "4 weeks", "fibre")
    line("DCS-7060CX-32S", "Arista 7060CX-32S 32x 100GbE switch (front end)", 2, 5900.0, "4 weeks", "frontend")
    line("EX2300-48T", "Juniper EX2300-48T 48x 1GbE switch (out-of-band)", 2, 1380.0, "2 weeks", "oob")
    net = money.total
    sh.add("", "", "Total excl. VAT", "", "", round(net, 2))
    sh.add("", "", "VAT @ 23%", "", "", round(net * 0.23, 2))
    sh.add("", "", "Total incl. VAT", "", "", round(net * 1.23, 2))
    return Quote(
        "ie_reseller_h200_32_eur_in_headers.xlsx",
        "eu_reseller",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h200-sxm",
            "currency": "EUR",
            "findings_must": ["dpu_bluefield"],
            "findings_must_not": not_padding(
                "dpu_bluefield", extra=["missing_item", "extended_mismatch", "backend_nonblocking"]
            ),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 1},
        },
        [
            ("Quotation", "system", "system"),
            ("Quotation", "xcvr_server", "backend_server_link"),
            ("Quotation", "fibre", "backend_fibre"),
        ],
        net,
        usd_per_unit=1.08,
        note="Amounts are plain numbers; the currency is named only in the column headers '(EUR)'; quantities "
        "as 32.00; a Lead Time column after the prices; VAT 23 %",
    )


@quote
def reseller_hierarchical_h100_16() -> Quote:
    """Integrator CTO quote with hierarchical item numbers (1, 1.1, 1.2 ...) and 'incl.' on configuration rows."""
    money = Money()
    sh = Sheet("")
    title(sh, "Lakeshore Technology Partners", "Configure-to-order quotation", "LTP-24-3308", "Example Neocloud Inc.")
    sh.head(
        "Item",
        "Mfr. Part No.",
        "Description",
        "Qty",
        "Unit Price",
        "Total",
        "COO",
        "Lead Time (days)",
        qty=3,
        price=4,
        ext=5,
    )
    sh.item(
        "1",
        "SYS-821GE-TNHR",
        "Supermicro SuperServer SYS-821GE-TNHR, 8U, configured as below",
        "16",
        usd(283900.0),
        usd(money.line(16, 283900.0)),
        "US",
        "70",
        mark="system",
    )
    for i, (pn, desc, qty, mark) in enumerate(
        [
            ("GPU-HGX-H100-8", "NVIDIA HGX H100 8-GPU SXM5 80GB baseboard", 1, "board"),
            ("P4X-SPR8470-SRMBT", "Intel Xeon Platinum 8470 52C 2.0GHz 350W", 2, "cpu"),
            ("MEM-DR564L-SL01-ER48", "64GB DDR5-4800 ECC RDIMM", 32, "dimm"),
            ("MCX75310AAS-NEAT", "NVIDIA ConnectX-7 400Gb/s NDR single-port OSFP adapter", 8, "nic"),
            ("900-9D3B6-00CV-AA0", "NVIDIA BlueField-3 B3220 DPU 2x 200GbE", 2, "dpu"),
            ("HDS-MUN-MTFDKCC3T8TGP", "Micron 7450 PRO 3.84TB NVMe U.3", 8, None),
            ("HDS-M2N-MTFDKBG960TFR", "Micron 7450 PRO 960GB M.2 NVMe boot", 2, None),
            ("SFT-DCMS-SINGLE", "Supermicro server management software key", 1, None),
        ],
        start=1,
    ):
        sh.item(f"1.{i}", pn, desc, str(qty), "incl.", "incl.", "", "", mark=mark)
    fab = fabric(16)
    rows = [
        (
            "2",
            "MQM9700-NS2F",
            "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand switch",
            fab["switches"],
            36900.0,
            "ib_switch",
        ),
        (
            "3",
            "MMA4Z00-NS400",
            "NVIDIA 400G OSFP single-port transceiver, SR4 multimode, flat top",
            fab["server_xcvr"],
            1189.0,
            "xcvr_server",
        ),
        (
            "4",
            "MMA4Z00-NS",
            "NVIDIA 800G twin-port OSFP transceiver, 2x SR4 multimode, finned top",
            fab["twin"],
            1295.0,
            None,
        ),
        ("5", "MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber, 30m", fab["fibre"], 71.0, "fibre"),
        ("6", "SVC-3Y-NBD", "3-year parts and labor warranty, NBD on-site, per server", 16, 5900.0, "warranty"),
    ]
    for no, pn, desc, qty, unit, mark in rows:
        sh.item(
            no, pn, desc, str(qty), usd(unit), usd(money.line(qty, unit)), "US" if no != "6" else "", "45", mark=mark
        )
    sh.add("", "", "Grand Total", "", "", usd(money.total))
    return Quote(
        "reseller_hierarchical_h100_16.csv",
        "reseller",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "dimm", "ram"),
            ("", "nic", "backend_nic"),
            ("", "ib_switch", "backend_switch"),
            ("", "warranty", "warranty"),
        ],
        money.total,
        note="Hierarchical item numbers (1, 1.1 ... 1.8): configuration rows with per-system quantities and "
        "'incl.' prices under the priced system line; COO and lead-time columns",
    )


@quote
def pl_reseller_b200_16_net_gross() -> Quote:
    """Net / VAT / gross columns per line (Central European ERP export), a currency column, table from column B."""
    money = Money()
    sh = Sheet("Offer")
    sh.add()
    sh.add("", "Vistula Compute Sp. z o.o.")
    sh.add("", "Commercial offer OF/2024/11/0093")
    sh.add("", MARK)
    sh.add("", "Customer:", "Example Neocloud Sp. z o.o., Warsaw")
    sh.add()
    sh.head(
        "",
        "No.",
        "Index",
        "Description",
        "Qty",
        "Unit",
        "Net price",
        "Net value",
        "VAT rate",
        "VAT",
        "Gross value",
        "Currency",
        qty=4,
        price=6,
        ext=7,
    )
    sh.merges.append("B2:F2")
    no = [0]

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        no[0] += 1
        net = money.line(qty, unit)
        sh.item(
            "",
            no[0],
            pn,
            desc,
            qty,
            "pcs",
            unit,
            net,
            "23%",
            round(net * 0.23, 2),
            round(net * 1.23, 2),
            "EUR",
            mark=mark,
        )

    line(
        "SYS-A21GE-NBRT",
        "Supermicro SYS-A21GE-NBRT 10U HGX B200 8-GPU server, 2x Intel Xeon Platinum 8570 56C, "
        "2TB (32x 64GB) DDR5-5600, 8x NVIDIA ConnectX-7 400G NDR, 1x ConnectX-6 Dx 2x100GbE, 8x 3.84TB NVMe",
        16,
        351500.0,
        "system",
    )
    line("GW-3Y-NBD", "3-year on-site warranty, next business day", 16, 5500.0)
    fab = fabric(16)
    line(
        "MQM9700-NS2F",
        "NVIDIA Quantum-2 QM9700 64-port NDR 400Gb/s InfiniBand switch",
        fab["switches"],
        33700.0,
        "ib_switch",
    )
    line(
        "MMA4Z00-NS400",
        "NVIDIA 400Gb/s OSFP single-port transceiver, SR4 multimode, flat top",
        fab["server_xcvr"],
        1115.0,
        "xcvr_server",
    )
    line("MMA4Z00-NS", "NVIDIA 800Gb/s OSFP twin-port transceiver, 2x SR4 multimode, finned top", fab["twin"], 1175.0)
    line("MFP7E10-N030", "NVIDIA fibre MMF MPO12 APC to MPO12 APC, 30 m", fab["fibre"], 65.0, "fibre")
    net = money.total
    sh.add("", "", "", "Total", "", "", "", round(net, 2), "", round(net * 0.23, 2), round(net * 1.23, 2), "EUR")
    return Quote(
        "pl_reseller_b200_16_net_gross.xlsx",
        "eu_reseller",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "b200-sxm",
            "currency": "EUR",
            "findings_must": ["cpu_top_bin", "ram_over_1tb"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", extra=["missing_item", "extended_mismatch", "backend_nonblocking"]
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 0},
        },
        [
            ("Offer", "system", "system"),
            ("Offer", "ib_switch", "backend_switch"),
            ("Offer", "xcvr_server", "backend_server_link"),
            ("Offer", "fibre", "backend_fibre"),
        ],
        net,
        usd_per_unit=1.08,
        note="ERP export: table starts in column B, Net price / Net value / VAT rate / VAT / Gross value per line "
        "(the net is the price), a Currency column 'EUR', a 'pcs' unit column, VAT 23 %",
    )


@quote
def distributor_short_headers_h200_64() -> Quote:
    money = Money()
    sh = Sheet("")
    for r in [
        ("Coastal Technology Distribution - quote export", "", "", "", "", "", ""),
        ("Quote #", "CTD-771204", "", "", "", "", ""),
        (MARK, "", "", "", "", "", ""),
        ("Ship to:", "Example Neocloud Inc., Hillsboro OR", "", "", "", "", ""),
        ("", "", "", "", "", "", ""),
    ]:
        sh.add(*r)
    sh.head("Mfr", "Mfr P/N", "Desc", "Qty", "UOM", "Each", "Ext", qty=3, price=5, ext=6)

    def line(mfr: str, pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(mfr, pn, desc, qty, "EA", plain(unit), plain(money.line(qty, unit)), mark=mark)

    line(
        "GIGABYTE",
        "G593-SD1-AAX3",
        "G593-SD1 HGX H200 8-GPU 141GB 5U server, 2x Xeon Platinum 8568Y+ 48C, 2TB DDR5 "
        "(32x 64GB), 8x ConnectX-7 NDR 400G, 2x BlueField-3 B3220, 8x 3.84TB NVMe",
        64,
        309800.0,
        "system",
    )
    line("GIGABYTE", "WTY-G593-3Y-NBD", "3yr NBD onsite warranty", 64, 5850.0)
    fab = fabric(64, oversub=2, dac_spine=True)
    line("NVIDIA", "MQM9790-NS2F", "QM9790 64P NDR IB SW EXT MGD P2C", fab["switches"], 34700.0, "ib_switch")
    line("NVIDIA", "MMA4Z00-NS400", "XCVR 400G OSFP SR4 MMF 50M FLAT TOP", fab["server_xcvr"], 1185.0, "xcvr_server")
    line("NVIDIA", "MMA4Z00-NS", "XCVR 800G TWIN PORT OSFP 2XSR4 MMF FINNED", fab["twin"], 1275.0, "xcvr_twin")
    line("NVIDIA", "MCP4Y10-N002", "DAC 800G TWIN PORT OSFP PASSIVE 2M", fab["dac"], 205.0, "dac")
    line("NVIDIA", "MFP7E10-N030", "FIBER MPO12 APC MMF 30M", fab["fibre"], 69.0, "fibre")
    line("NVIDIA", "UFM-ENT-LIC-3Y", "UFM ENTERPRISE LIC W/3YR SUPPORT PER NODE", 512, 149.0)
    line("NVIDIA", "NVAIE-SUB-3Y", "AI ENTERPRISE SUBSCRIPTION 3YR PER GPU", 512, 13300.0, "nvaie")
    sh.add("", "", "", "", "", "Subtotal", plain(money.total))
    sh.add("", "", "", "", "", "Freight", "TBD")
    return Quote(
        "distributor_short_headers_h200_64.csv",
        "distributor",
        [sh],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield", "nvaie_license"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "nvaie_license",
                extra=["backend_nonblocking", "optics_everywhere", "missing_item", "extended_mismatch"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "ib_switch", "backend_switch"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "xcvr_twin", "backend_switch_link"),
            ("", "dac", "backend_switch_link"),
            ("", "fibre", "backend_fibre"),
            ("", "nvaie", "software_licence"),
        ],
        money.total,
        note="Terse distributor headers (Mfr, Mfr P/N, Desc, Qty, UOM, Each, Ext) and upper-case abbreviated "
        "descriptions ('XCVR 400G OSFP SR4 MMF', 'DAC 800G TWIN PORT'); 2:1 back end",
    )


@quote
def reseller_components_h100_32() -> Quote:
    """Component-level integrator quote: the system SKU is a barebone, the GPU board a line of its own."""
    money = Money()
    sh = Sheet("")
    title(
        sh, "Redwood Systems Integration", "Quotation (components, integrated)", "RSI-24-5521", "Example Neocloud Inc."
    )
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    rows = [
        (
            "SYS-821GE-TNHR",
            "Supermicro SuperServer SYS-821GE-TNHR barebone: 8U chassis, X13 dual-socket board, "
            "6x 3000W PSU (no GPU board, CPU, memory or drives)",
            32,
            7900.0,
            "chassis",
        ),
        ("GPU-NVHGX-H100-8", "NVIDIA HGX H100 8-GPU SXM5 80GB baseboard with 4x NVSwitch", 32, 213900.0, "board"),
        ("P4X-EMR6530-SRN6", "Intel Xeon Gold 6530 32C 2.1GHz 270W", 64, 2150.0, "cpu"),
        ("MEM-DR564MC-ER56", "64GB DDR5-5600 ECC RDIMM", 512, 262.0, "dimm"),
        ("MCX75310AAS-NEAT\u00a0", "NVIDIA ConnectX-7 400Gb/s NDR single-port OSFP adapter", 256, 1640.0, "nic"),
        ("MCX623106AN-CDAT ", "NVIDIA ConnectX-6 Dx dual-port 100GbE adapter", 32, 840.0, "fe_nic"),
        ("HDS-SUN1-PM9A3-7T6", "7.68TB NVMe U.2 PCIe4 data drive", 128, 845.0, None),
        ("HDS-M2N4-960G0-E1", "960GB M.2 NVMe boot drive", 64, 178.0, None),
        ("SVC-L11", "L11 integration, burn-in and shipping, per server", 32, 1980.0, None),
        ("SVC-3Y-NBD", "3-year parts and labor warranty, NBD on-site, per server", 32, 5900.0, None),
    ]
    for i, (pn, desc, qty, unit, mark) in enumerate(rows, start=1):
        sh.item(i, pn, desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark)
    sh.add("", "", "TOTAL", "", "", usd(money.total))
    return Quote(
        "reseller_components_h100_32.csv",
        "reseller",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": not_padding(extra=["extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [
            ("", "chassis", "chassis"),
            ("", "board", "gpu_baseboard"),
            ("", "nic", "backend_nic"),
            ("", "fe_nic", "frontend_nic"),
        ],
        money.total,
        note="The system SKU SYS-821GE-TNHR quoted as a barebone next to its own HGX board line (no double count); "
        "part numbers with a trailing no-break space or space; otherwise the article's node",
    )


@quote
def reseller_lot_h100_16() -> Quote:
    """A lump-sum quote: the 16 servers as one line of quantity 1 ('lot'), the count in the description."""
    money = Money()
    sh = Sheet("")
    title(sh, "Harbor Point Technologies", "Budgetary quotation", "HPT-BQ-24-077", "Example Neocloud Inc.")
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    sh.item(
        1,
        "XE9680-CLUSTER-16",
        "16x Dell PowerEdge XE9680 (16 systems), each with NVIDIA HGX H100 8-GPU SXM5 "
        "80GB, 2x Intel Xeon Platinum 8480+, 2TB (32x 64GB) DDR5, 8x NVIDIA ConnectX-7 400G NDR, "
        "2x BlueField-3 B3220, 8x 3.84TB NVMe, 3-year ProSupport",
        "1 lot",
        usd(4498000.0),
        usd(money.line(1, 4498000.0)),
        mark="system",
    )
    fab = fabric(16)
    rows = [
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand switch", fab["switches"], 36900.0),
        (
            "MMA4Z00-NS400",
            "NVIDIA 400G OSFP single-port transceiver, SR4 multimode, flat top",
            fab["server_xcvr"],
            1189.0,
        ),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2x SR4 multimode, finned top", fab["twin"], 1295.0),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber, 30m", fab["fibre"], 71.0),
    ]
    for i, (pn, desc, qty, unit) in enumerate(rows, start=2):
        sh.item(i, pn, desc, str(qty), usd(unit), usd(money.line(qty, unit)))
    sh.add("", "", "TOTAL (budgetary, +/- 10%)", "", "", usd(money.total))
    return Quote(
        "reseller_lot_h100_16.csv",
        "reseller",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", "dpu_bluefield", extra=["missing_item", "extended_mismatch"]
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [("", "system", "system")],
        money.total,
        note="The 16 servers as one '1 lot' line at the cluster price, the count only in the description "
        "('16x ... (16 systems), each with ...')",
    )


@quote
def dell_h100_16_mixed_hidden() -> Quote:
    """Two XE9680 groups with different memory, subtotal rows that carry a quantity, a hidden cost sheet."""
    money = Money()
    q = Sheet("Quote")
    title(q, "DELL TECHNOLOGIES", "Sales Quote", "3000211745012.1", "Example Neocloud Inc.", [("Currency:", "USD")])
    q.head("Description", "SKU", "Unit Price", "Quantity", "Subtotal", qty=3, price=2, ext=4)
    for group, (ram, dimms, price) in enumerate([("64GB", 32, 281950.0), ("64GB", 16, 277800.0)], start=1):
        q.add(f"Group {group}: PowerEdge XE9680 ({'2TB' if dimms == 32 else '1TB'} memory), 8 units")
        q.item("PowerEdge XE9680 Rack Server", "210-BDZB", price, 8, money.line(8, price), mark=f"system{group}")
        for desc, sku, qty in [
            ("NVIDIA HGX H100 80GB 700W SXM5 GPUs, fully interconnected with NVLink technology", "370-AHRT", 1),
            ("Intel Xeon Platinum 8480+ 2G, 56C/112T, 16GT/s, 105M Cache, Turbo, HT (350W) DDR5-4800", "338-CHSG", 2),
            (f"{ram} RDIMM, 4800MT/s Dual Rank", "370-AHCL", dimms),
            ("NVIDIA ConnectX-7 Single Port NDR OSFP PCIe Gen5 x16 Adapter, Full Height", "540-BDHB", 8),
            ("NVIDIA BlueField-3 B3220 DPU, 2x 200GbE QSFP112, PCIe Gen5 x16, Full Height", "540-BDKF", 2),
            ("3.84TB Data Center NVMe Read Intensive AG Drive U2 Gen4 with carrier", "345-BDZB", 8),
            ("ProSupport Plus Mission Critical 4-Hour 7x24 Onsite Service, 36 Month(s)", "865-BBPG", 1),
        ]:
            q.item("    " + desc, sku, None, qty, None)
        q.add(f"Group {group} Subtotal", "", "", 8, money.sub())
    q.add("Total", "", "", 16, round(money.total, 2))
    q.add(MARK)
    cost = Sheet("Margin calc", hidden=True)
    cost.add("INTERNAL - do not send")
    cost.add("Description", "SKU", "Cost", "Quantity", "Cost total", "Margin %")
    cost.add("PowerEdge XE9680 Rack Server", "210-BDZB", 241300.0, 16, 241300.0 * 16, 0.15)
    cost.add("NVIDIA HGX H100 80GB 700W SXM5 GPUs", "370-AHRT", 198000.0, 16, 198000.0 * 16, 0.0)
    return Quote(
        "dell_xe9680_h100_16_mixed_hidden.xlsx",
        "dell",
        [q, cost],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", "dpu_bluefield", extra=["extended_mismatch"]
            ),
            "per_server": {"backend_nics": 8, "dpus": 2},
        },
        [("Quote", "system1", "system"), ("Quote", "system2", "system")],
        money.total,
        note="Two XE9680 groups (2TB and 1TB), group subtotal rows with a number in the Quantity column, a hidden "
        "'Margin calc' sheet with cost prices that the customer does not see",
    )


@quote
def clean_b200_64_merged_header() -> Quote:
    """A clean B200 quote whose header is two rows of merged cells ('Price' over 'Unit' and 'Extended')."""
    money = Money()
    sh = Sheet("Quote")
    sh.add("Northwind HPC Solutions")
    sh.add("Quotation NHS-24-0640 (optimized configuration)")
    sh.add(MARK)
    sh.add("Customer:", "Example Neocloud Inc.", "", "Date:", "2024-11-04")
    sh.add()
    sh.add("Item", "Part Number", "Description", "Qty", "Price (USD)", "")
    sh.head("", "", "", "", "Unit", "Extended", qty=3, price=4, ext=5)
    sh.header -= 1
    sh.merges += ["A6:A7", "B6:B7", "C6:C7", "D6:D7", "E6:F6", "A1:F1", "A2:F2"]
    no = [0]

    def line(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        no[0] += 1
        sh.item(no[0], pn, desc, qty, unit, money.line(qty, unit), mark=mark)

    line(
        "SYS-A21GE-NBRT",
        "Supermicro SYS-A21GE-NBRT HGX B200 8-GPU 180GB, 2x Intel Xeon Gold 6548Y+ 32C, 1TB "
        "(16x 64GB) DDR5-5600, 8x NVIDIA ConnectX-7 400G NDR OSFP, 1x NVIDIA ConnectX-6 Dx 2x100GbE, "
        "4x 7.68TB NVMe",
        64,
        365900.0,
        "system",
    )
    line("SVC-3Y-NBD", "3-year parts and labor warranty, NBD on-site, per server", 64, 5900.0)
    fab = fabric(64, oversub=2, dac_spine=True)
    line(
        "MQM9790-NS2F",
        "NVIDIA Quantum-2 QM9790 64-port NDR InfiniBand switch, externally managed",
        fab["switches"],
        34900.0,
        "ib_switch",
    )
    line(
        "MMA4Z00-NS400",
        "NVIDIA 400G OSFP single-port transceiver, SR4 multimode, flat top",
        fab["server_xcvr"],
        1189.0,
        "xcvr_server",
    )
    line("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2x SR4 multimode, finned top", fab["twin"], 1295.0)
    line(
        "MCP4Y10-N002", "NVIDIA 800G twin-port OSFP passive copper cable, 2m (leaf to spine)", fab["dac"], 215.0, "dac"
    )
    line("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber, 30m", fab["fibre"], 71.0, "fibre")
    line(
        "UFM-ENT-LIC-3Y", "NVIDIA UFM Enterprise licence, 3 years support, per NIC endpoint", fab["server_xcvr"], 150.0
    )
    line("DCS-7260CX3-64", "Arista 7260CX3-64 64x 100GbE switch (front end)", 4, 13400.0, "frontend")
    line("EX2300-48T", "Juniper EX2300-48T 48x 1GbE switch (out-of-band)", 4, 1550.0, "oob")
    sh.add("", "", "Total", "", "", round(money.total, 2))
    return Quote(
        "clean_optimized_b200_64_merged_header.xlsx",
        "clean",
        [sh],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "b200-sxm",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": not_padding(
                extra=["backend_nonblocking", "optics_everywhere", "missing_item", "extended_mismatch"]
            ),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [
            ("Quote", "system", "system"),
            ("Quote", "ib_switch", "backend_switch"),
            ("Quote", "dac", "backend_switch_link"),
            ("Quote", "frontend", "frontend_switch"),
            ("Quote", "oob", "oob_switch"),
        ],
        money.total,
        note="The article's design on HGX B200; a two-row header of merged cells ('Price (USD)' over 'Unit' and "
        "'Extended')",
    )


@quote
def lenovo_h200_256_two_sheets() -> Quote:
    """Lenovo 2,048-GPU quote: a Compute sheet with Qty/Server and Total Qty, a Network sheet with totals only."""
    money = Money()
    servers = 256
    head = ("Part number", "Product Description", "Qty/Server", "Total Qty", "Unit Price", "Total Price")
    c = Sheet("Compute")
    c.add("Lenovo DCSC export - ThinkSystem SR680a V3 cluster, 256 servers")
    c.add(MARK)
    c.add()
    c.head(*head, qty=3, price=4, ext=5)

    def node(pn: str, desc: str, per: int, unit: float, mark: str | None = None) -> None:
        c.item(pn, desc, per, per * servers, unit, money.line(per * servers, unit), mark=mark)

    node("7DHECTO1WW", "ThinkSystem SR680a V3 base, 8U, 2S, air cooled", 1, 8150.0)
    node("C1HL", "ThinkSystem NVIDIA HGX H200 141GB 700W 8-GPU Board", 1, 249500.0, "board")
    node("BYKK", "Intel Xeon Platinum 8570 56C 350W 2.1GHz Processor", 2, 4900.0, "cpu")
    node("BZ7H", "ThinkSystem 64GB TruDDR5 5600MHz (2Rx4) RDIMM", 16, 276.0, "dimm")
    node("BQ1N", "ThinkSystem NVIDIA ConnectX-7 NDR OSFP400 1-port PCIe Gen5 x16 InfiniBand Adapter", 8, 1670.0, "nic")
    node("BVBG", "ThinkSystem NVIDIA BlueField-3 B3220 VPI QSFP112 2P 200G PCIe Gen5 x16 Adapter", 1, 2680.0, "dpu")
    node("BTMB", 'ThinkSystem 2.5" U.2 PM1733a 7.68TB Read Intensive NVMe PCIe 4.0 x4 HS SSD', 4, 870.0)
    node("5WS7C17845", "Premier Essential - 3Yr 24x7 4Hr Resp + YDYD SR680a V3", 1, 6200.0)
    c.add("", "Compute total", "", "", "", money.sub())
    n_ = Sheet("Network")
    n_.add("Lenovo DCSC export - networking")
    n_.add(MARK)
    n_.add()
    n_.head(*head, qty=3, price=4, ext=5)
    fab = fabric(servers, oversub=2, dac_spine=True)

    def total(pn: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        n_.item(pn, desc, None, qty, unit, money.line(qty, unit), mark=mark)

    total(
        "7D6JCTO1WW",
        "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand switch (MQM9700-NS2F)",
        fab["switches"],
        36400.0,
        "ib_switch",
    )
    total(
        "BQ5N",
        "NVIDIA MMA4Z00-NS400 400Gb/s OSFP single-port SR4 multimode transceiver",
        fab["server_xcvr"],
        1195.0,
        "xcvr_server",
    )
    total("BQ5P", "NVIDIA MMA4Z00-NS 800Gb/s OSFP twin-port 2xSR4 multimode transceiver", fab["twin"], 1285.0)
    total("BQ5T", "NVIDIA MCP4Y10-N002 800Gb/s twin-port OSFP passive copper cable 2m", fab["dac"], 210.0, "dac")
    total("BQ5W", "NVIDIA MFP7E10-N030 MPO12 APC multimode fiber 30m", fab["fibre"], 70.0)
    total("BQ61", "NVIDIA UFM Enterprise license, 3 years support, per node", fab["server_xcvr"], 150.0)
    total("7D5FCTO1WW", "NVIDIA Spectrum SN2201 48x 1GbE switch, Cumulus (out-of-band)", 16, 9250.0, "oob")
    total("7D5GCTO1WW", "Lenovo ThinkSystem NE10032 32x 100GbE switch (front end)", 16, 6700.0, "frontend")
    n_.add("", "Network total", "", "", "", money.sub())
    n_.add("", "Grand total (USD)", "", "", "", round(money.total, 2))
    return Quote(
        "lenovo_sr680a_h200_256_two_sheets.xlsx",
        "lenovo",
        [c, n_],
        {
            "gpus": 2048,
            "servers": 256,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "dpu_bluefield", "oob_spectrum"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "dpu_bluefield",
                "oob_spectrum",
                extra=["backend_nonblocking", "optics_everywhere", "missing_item", "extended_mismatch"],
            ),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 1},
        },
        [
            ("Compute", "board", "gpu_baseboard"),
            ("Compute", "nic", "backend_nic"),
            ("Network", "ib_switch", "backend_switch"),
            ("Network", "dac", "backend_switch_link"),
            ("Network", "oob", "oob_switch"),
        ],
        money.total,
        note="2,048 H200 over two sheets with the same header: per-server and total quantities on Compute, totals "
        "only (Qty/Server blank) on Network; 2:1 back end of 64 leaves + 16 spines with DAC",
    )


@quote
def integrator_units_rate_h200_16() -> Quote:
    """A small integrator's quote without part numbers: Description, Units, Rate, Amount."""
    money = Money()
    sh = Sheet("")
    sh.add("Blue Ridge AI Systems LLC")
    sh.add("Estimate #1042")
    sh.add(MARK)
    sh.add("Bill to: Example Neocloud Inc.")
    sh.add()
    sh.head("Description", "Units", "Rate", "Amount", qty=1, price=2, ext=3)

    def line(desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark)

    line(
        "GPU server: Supermicro 8U HGX H200 8-GPU 141GB, 2x Intel Xeon Platinum 8468 48C, 2TB DDR5 (32x 64GB), "
        "8x NVIDIA ConnectX-7 400Gb/s NDR, 2x NVIDIA BlueField-3 B3220 DPU, 8x 3.84TB NVMe",
        16,
        312000.0,
        "system",
    )
    line("InfiniBand NDR switch, NVIDIA Quantum-2 QM9700, 64 ports 400Gb/s", 2, 36900.0, "ib_switch")
    line("400G OSFP single-port SR4 transceivers, server side (NVIDIA LinkX, flat top)", 128, 1189.0, "xcvr_server")
    line("800G OSFP twin-port 2xSR4 transceivers, switch side (NVIDIA LinkX, finned top)", 64, 1295.0, "xcvr_twin")
    line("MPO-12/APC multimode fibre patch cords, 30 m", 128, 71.0, "fibre")
    line("Rack integration, cabling and 72-hour burn-in, per server", 16, 1950.0)
    line("3-year next-business-day on-site warranty, per server", 16, 5900.0)
    sh.add("", "", "Total", usd(money.total))
    sh.add("Thank you for your business!")
    return Quote(
        "integrator_units_rate_h200_16.csv",
        "reseller",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "ib_switch", "backend_switch"),
            ("", "xcvr_server", "backend_server_link"),
            ("", "xcvr_twin", "backend_switch_link"),
            ("", "fibre", "backend_fibre"),
        ],
        money.total,
        note="No part numbers at all; headers Description / Units / Rate / Amount (invoice style); optics and "
        "fibre named in words only",
    )


@quote
def reseller_part_variants_h100_64() -> Quote:
    """Part-number variants (MCX75310AAS-HEAT, MQM9700-NS2R reverse airflow) and memory written '2048GB'."""
    money = Money()
    sh = Sheet("")
    title(sh, "Summit Compute Partners", "QUOTATION", "SCP-Q-24-2231", "Example Neocloud Inc.")
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price", qty=3, price=4, ext=5)
    fab = fabric(64, oversub=2, dac_spine=True)
    rows = [
        (
            "SYS-821GE-TNHR",
            "Supermicro SYS-821GE-TNHR | GPU: HGX H100 8-GPU SXM5 | CPU: 2x Xeon Platinum 8480+ | "
            "Memory: 2048GB DDR5-4800 | Storage: 8x 3.84TB NVMe | no NICs (listed below)",
            64,
            257400.0,
            "system",
        ),
        (
            "MCX75310AAS-HEAT",
            "NVIDIA ConnectX-7 adapter card, 400Gb/s NDR IB, single-port OSFP, PCIe 5.0 x16, tall bracket",
            512,
            1650.0,
            "nic",
        ),
        (
            "900-9D3B6-00CV-AA0",
            "NVIDIA BlueField-3 B3220 DPU, 200GbE/NDR200 dual-port QSFP112, PCIe Gen5",
            128,
            2620.0,
            "dpu",
        ),
        (
            "MQM9700-NS2R",
            "NVIDIA Quantum-2 QM9700 64-port NDR 400Gb/s InfiniBand switch, C2P (reverse) airflow",
            fab["switches"],
            36900.0,
            "ib_switch",
        ),
        (
            "MMA4Z00-NS400",
            "NVIDIA 400G OSFP single-port transceiver, SR4 multimode, flat top",
            fab["server_xcvr"],
            1189.0,
            "xcvr_server",
        ),
        (
            "MMA4Z00-NS",
            "NVIDIA 800G twin-port OSFP transceiver, 2x SR4 multimode, finned top",
            fab["twin"],
            1295.0,
            None,
        ),
        ("MCP4Y10-N00A", "NVIDIA 800G twin-port OSFP passive copper cable, 0.5m", fab["dac"], 185.0, "dac"),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber, 30m", fab["fibre"], 71.0, None),
        (
            "MSN2201-CB2RC",
            "NVIDIA Spectrum SN2201 48x 1GbE switch, Cumulus, C2P airflow (out-of-band)",
            4,
            9300.0,
            "oob",
        ),
        ("NVAIE-3Y-GPU", "NVIDIA AI Enterprise Essentials 3-year subscription per GPU", 512, 13300.0, "nvaie"),
    ]
    for i, (pn, desc, qty, unit, mark) in enumerate(rows, start=1):
        sh.item(i, pn, desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark)
    sh.add("", "", "TOTAL", "", "", usd(money.total))
    return Quote(
        "reseller_part_variants_h100_64.csv",
        "reseller",
        [sh],
        {
            "gpus": 512,
            "servers": 64,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield", "oob_spectrum", "nvaie_license"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "oob_spectrum",
                "nvaie_license",
                extra=["backend_nonblocking", "optics_everywhere", "missing_item", "extended_mismatch"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [
            ("", "system", "system"),
            ("", "nic", "backend_nic"),
            ("", "dpu", "frontend_nic"),
            ("", "ib_switch", "backend_switch"),
            ("", "dac", "backend_switch_link"),
            ("", "oob", "oob_switch"),
        ],
        money.total,
        note="Part-number variants (MCX75310AAS-HEAT, MQM9700-NS2R, MSN2201-CB2RC, MCP4Y10-N00A); the system's "
        "configuration as 'key: value' fields separated by '|'; memory '2048GB'; NICs and DPUs on their own lines",
    )


def us_dollar(x: float) -> str:
    return f"-US${-x:,.2f}" if x < 0 else f"US${x:,.2f}"


@quote
def distributor_tab_delimited_amd_h200_32() -> Quote:
    """A portal export saved as .csv but separated by tabs; amounts written 'US$1,234.00'."""
    money = Money()
    sh = Sheet("")
    for r in [
        ("Pinnacle Distribution Portal - Quote Export", "", "", "", "", ""),
        ("Quote", "PDP-2024-118842", "", "", "", ""),
        (MARK, "", "", "", "", ""),
        ("", "", "", "", "", ""),
    ]:
        sh.add(*r)
    sh.head("Manufacturer Part #", "Manufacturer", "Description", "Qty", "Sell", "Ext Sell", qty=3, price=4, ext=5)

    def line(pn: str, mfr: str, desc: str, qty: int, unit: float, mark: str | None = None) -> None:
        sh.item(pn, mfr, desc, qty, us_dollar(unit), us_dollar(money.line(qty, unit)), mark=mark)

    line(
        "AS-8125GS-TNHR",
        "Supermicro",
        "A+ Server AS-8125GS-TNHR 8U, NVIDIA HGX H200 8-GPU 141GB, 2x AMD EPYC 9654 "
        "96C, 1.5TB (24x 64GB) DDR5-4800, 8x ConnectX-7 400G NDR, 1x BlueField-3 B3220, 4x 7.68TB NVMe",
        32,
        309500.0,
        "system",
    )
    line("SVC-3Y-NBD-8125", "Supermicro", "3 Year Parts & Labor Warranty, Next Business Day Onsite", 32, 6000.0)
    fab = fabric(32)
    line(
        "MQM9700-NS2F",
        "NVIDIA",
        "Quantum-2 QM9700 NDR InfiniBand switch, 64 ports, managed",
        fab["switches"],
        36500.0,
        "ib_switch",
    )
    line(
        "MMA4Z00-NS400",
        "NVIDIA",
        "400Gb/s single-port OSFP transceiver, SR4 multimode, flat top",
        fab["server_xcvr"],
        1180.0,
        "xcvr_server",
    )
    line(
        "MMA4Z00-NS", "NVIDIA", "800Gb/s twin-port OSFP transceiver, 2x SR4 multimode, finned top", fab["twin"], 1290.0
    )
    line("MFP7E10-N030", "NVIDIA", "Passive fiber cable, MMF, MPO12 APC to MPO12 APC, 30m", fab["fibre"], 70.0)
    sh.add("", "", "", "", "Total", us_dollar(money.total))
    return Quote(
        "distributor_tab_delimited_amd_h200_32.csv",
        "distributor",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_amd", "cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_amd",
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                extra=["missing_item", "extended_mismatch", "backend_nonblocking"],
            ),
            "per_server": {"ram_gb": 1536, "backend_nics": 8, "dpus": 1},
        },
        [("", "system", "system"), ("", "ib_switch", "backend_switch"), ("", "xcvr_server", "backend_server_link")],
        money.total,
        delimiter="\t",
        note="A .csv file separated by tabs (portal export); amounts 'US$1,234.00'; AMD EPYC 9654 H200 system",
    )


@quote
def reseller_wrapped_headers_h100_16() -> Quote:
    """A formatted XLSX whose header cells hold line breaks ('Unit\\nPrice (USD)')."""
    money = Money()
    sh = Sheet("Quote")
    title(sh, "Mesa Verde Computing", "Quotation", "MVC-24-0166", "Example Neocloud Inc.")
    sh.head(
        "Line\nNo.",
        "Part\nNumber",
        "Item\nDescription",
        "Qty",
        "Unit\nPrice (USD)",
        "Extended\nPrice (USD)",
        qty=3,
        price=4,
        ext=5,
    )
    rows = [
        (
            "SYS-821GE-TNHR",
            "Supermicro SYS-821GE-TNHR, HGX H100 8-GPU SXM5 80GB, 2x Intel Xeon Gold 6530 32C, 1TB "
            "(16x 64GB) DDR5, 8x ConnectX-7 400G NDR, 1x ConnectX-6 Dx 2x100GbE, 4x 7.68TB NVMe",
            16,
            249800.0,
            "system",
        ),
        ("SVC-3Y-NBD", "3-year parts and labor warranty, NBD on-site, per server", 16, 5900.0, None),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR InfiniBand switch", 2, 36900.0, "ib_switch"),
        (
            "MMA4Z00-NS400",
            "NVIDIA 400G OSFP single-port transceiver, SR4 multimode, flat top",
            128,
            1189.0,
            "xcvr_server",
        ),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2x SR4 multimode, finned top", 64, 1295.0, None),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber, 30m", 128, 71.0, "fibre"),
        ("DCS-7060CX-32S", "Arista 7060CX-32S 32x 100GbE switch (front end)", 2, 6600.0, None),
        ("EX2300-48T", "Juniper EX2300-48T 48x 1GbE switch (out-of-band)", 1, 1550.0, None),
    ]
    for i, (pn, desc, qty, unit, mark) in enumerate(rows, start=1):
        sh.item(i, pn, desc, qty, unit, money.line(qty, unit), mark=mark)
    sh.add("", "", "Total", "", "", round(money.total, 2))
    return Quote(
        "reseller_wrapped_headers_h100_16.xlsx",
        "clean",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": not_padding(extra=["missing_item", "extended_mismatch", "backend_nonblocking"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [
            ("Quote", "system", "system"),
            ("Quote", "xcvr_server", "backend_server_link"),
            ("Quote", "fibre", "backend_fibre"),
        ],
        money.total,
        note="Header cells with line breaks ('Unit\\nPrice (USD)', 'Item\\nDescription'); otherwise a clean "
        "16-server quote",
    )


# ---------------------------------------------------------------- wave 3 (issue 22): quotes in styles the reader was
# not written for: rack-scale, options, Spectrum-X, vendor wording, Asia, free and bundled lines


def simple(sh: Sheet, money: Money, rows: Sequence[tuple[Any, ...]], fmt: Callable[[float], Any] = usd) -> None:
    """Item rows (part, description, qty, unit[, mark]) under an Item / Part / Description / Qty / Unit / Ext header."""
    for i, (pn, desc, qty, unit, *mark) in enumerate(rows, start=1):
        price, ext = (fmt(unit), fmt(money.line(qty, unit))) if isinstance(unit, float) else (unit, unit)
        sh.item(i, pn, desc, qty, price, ext, mark=mark[0] if mark else None)


ITEM_HEAD = ("Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price")


@quote
def dgx_h100_32_nvaie_included() -> Quote:
    """DGX systems in datasheet wording, AI Enterprise bundled ("Included"), whole-server prices."""
    money = Money()
    sh = Sheet("Quote")
    title(sh, "Northwind AI Solutions", "Quotation - NVIDIA DGX H100", "NAS-24-7781", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    dgx = (
        "NVIDIA DGX H100 640GB system: 8x NVIDIA H100 GPUs (640GB total GPU memory); 4x OSFP ports serving 8x "
        "single-port NVIDIA ConnectX-7 VPI, 400Gb/s InfiniBand/Ethernet; 2x dual-port QSFP112 NVIDIA ConnectX-7 "
        "VPI; Dual Intel Xeon Platinum 8480C, 112 cores total; 2TB system memory; 8x 3.84TB NVMe U.2"
    )
    simple(
        sh,
        money,
        [
            ("DGXH-G640F+P2CMI36", dgx, 32, 373_000.0, "system"),
            ("NVAIE-5Y-DGX", "NVIDIA AI Enterprise 5-year subscription per GPU (bundled with DGX)", 256, "Included",
             "nvaie"),
            ("SUP-DGX-3Y", "DGX Business Critical support, 3 years, per system", 32, 26_500.0),
            ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 8, 36_900.0, "ib_switch"),
            ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2x SR4 multimode, finned top", 128, 1_295.0),
            ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 256, 71.0),
        ],
    )  # fmt: skip
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "dgx_h100_32_nvaie_included.xlsx",
        "reseller",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", "nvaie_license", extra=["extended_mismatch", "total_mismatch"]
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 0},
            "savings_at_most": {"nvaie_license": 0.0},
        },
        [("Quote", "system", "system"), ("Quote", "nvaie", "software_licence")],
        money.total,
        note="DGX datasheet wording ('4x OSFP ports serving 8x single-port ConnectX-7', 'Dual Intel Xeon', '2TB "
        "system memory'); NVIDIA AI Enterprise 'Included': no saving may be claimed on it",
    )


@quote
def nvl72_gb200_2racks_liquid() -> Quote:
    """Two GB200 NVL72 racks with their trays as unpriced sub-items, rack-level validation, CDU and facility water."""
    money = Money()
    sh = Sheet("")
    title(sh, "Helios Rack-Scale Systems", "Quotation: GB200 NVL72", "HRS-25-0042", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    rows = [
        ("GB200-NVL72-R", "NVIDIA GB200 NVL72 rack, liquid cooled (72x B200, 36x Grace)", 2, 3_350_000.0, "rack"),
        ("", "  Compute tray: 2x Grace CPU, 4x B200 GPU, 4x ConnectX-7 400G", 18, "", "tray"),
        ("", "  NVLink switch tray", 9, ""),
        ("", "  Power shelf 33kW", 8, ""),
        ("SVC-NVL72-L11", "NVL72 rack-level validation (L11), per rack", 2, 38_000.0, "validation"),
        ("CDU-150-IR", "In-rack CDU 150 kW liquid-to-liquid, per rack", 2, 36_000.0, "cdu"),
        ("FWK-NVL72", "Facility water kit and manifold connection, per rack", 2, 14_000.0, "water"),
        ("MQ3400", "NVIDIA Quantum-X800 Q3400 144-port XDR switch", 2, 168_000.0, "switch"),
    ]
    for i, (pn, desc, qty, unit, *mark) in enumerate(rows, start=1):
        if isinstance(unit, float):
            sh.item(i, pn, desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark[0] if mark else None)
        else:
            sh.item(i, pn, desc, qty, "", "", mark=mark[0] if mark else None)
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "nvl72_gb200_2racks_liquid.csv",
        "rack_scale",
        [sh],
        {
            "gpus": 144,
            "servers": 36,
            "gpu_model": "gb200-nvl72",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": not_padding(extra=["extended_mismatch", "total_mismatch"]),
        },
        [
            ("", "rack", "system"),
            ("", "tray", "rack_tray"),
            ("", "validation", "integration"),
            ("", "cdu", "liquid_cooling"),
            ("", "water", "liquid_cooling"),
        ],
        money.total,
        note="GB200 NVL72 racks with compute / NVLink-switch trays and power shelves as unpriced sub-items; 'NVL72 "
        "rack-level validation' is a service, never two more racks; CDU and facility water kit",
    )


@quote
def smc_rack_scale_h100_8racks() -> Quote:
    """Supermicro rack-scale lines: one line per rack of 4 servers, the per-node configuration in '(each: …)'."""
    money = Money()
    sh = Sheet("")
    title(sh, "Cascade Rack Integration", "Rack-scale quotation", "CRI-24-3310", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    rack = (
        "SRS-48UGPU-H100 rack with 4x SYS-821GE-TNHR (each: HGX H100 8-GPU SXM5, 2x Intel Xeon Platinum 8480+, "
        "32x 64GB DDR5-4800, 8x ConnectX-7 400G NDR, 2x BlueField-3 B3220, 8x 3.84TB NVMe), 48U rack, PDUs, "
        "L11 integrated"
    )
    simple(
        sh,
        money,
        [
            ("SRS-48UGPU-H100", rack, 8, 1_158_000.0, "rack"),
            ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 8, 36_900.0, "ib_switch"),
            ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver, SR4 multimode, flat top", 256, 1_189.0),
            ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2x SR4 multimode, finned top", 128, 1_295.0),
            ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 256, 71.0),
        ],
    )
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "smc_rack_scale_h100_8racks.csv",
        "rack_scale",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", "dpu_bluefield", extra=["extended_mismatch", "total_mismatch"]
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [("", "rack", "system"), ("", "ib_switch", "backend_switch")],
        money.total,
        note="One line per rack ('rack with 4x SYS-821GE-TNHR (each: ...)') x 8 racks: 32 servers, the per-node "
        "configuration read from '(each: ...)'",
    )


@quote
def odm_rack_bom_h200_4racks() -> Quote:
    """An ODM rack BoM: Category / Part / Spec columns, a quantity per rack and a number of racks."""
    money = Money()
    sh = Sheet("Rack BOM")
    sh.add("Quanta-style rack BoM (ODM)")
    sh.add(MARK)
    sh.add("Rack type: GPU compute rack, 4 servers per rack")
    sh.add()
    sh.head("Category", "Part", "Spec", "Qty / Rack", "No. of Racks", "Unit Price", "Ext. Price", qty=3, price=5,
            ext=6)  # fmt: skip
    racks = 4
    rows = [
        ("System", "G593-SD2", "Gigabyte G593-SD2 8U HGX H200 8-GPU server", 4, 262_000.0, "system"),
        ("CPU", "PK8071305120500", "Intel Xeon Platinum 8480+ 56C", 8, 0.0, "cpu"),
        ("Memory", "M321R8GA0BB0", "64GB DDR5-4800 RDIMM", 128, 0.0, "dimm"),
        ("Network", "MCX75310AAS-NEAT", "ConnectX-7 400G NDR single-port OSFP", 32, 1_650.0, "nic"),
        ("Network", "MCX623106AN-CDAT", "ConnectX-6 Dx dual-port 100GbE", 4, 840.0),
        ("Storage", "MZQL27T6HBLA", "7.68TB NVMe U.2", 16, 850.0),
        ("Service", "L10-RACK", "L10 rack integration and burn-in, per rack", 1, 7_500.0),
    ]
    for cat, pn, spec, per, unit, *mark in rows:
        sh.item(
            cat, pn, spec, per, racks, usd(unit), usd(money.line(per * racks, unit)), mark=mark[0] if mark else None
        )
    sh.add("", "", "Total", "", "", "", usd(money.total))
    return Quote(
        "odm_rack_bom_h200_4racks.xlsx",
        "odm",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", extra=["extended_mismatch", "total_mismatch", "price_above_book"]
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 0},
        },
        [("Rack BOM", "system", "system"), ("Rack BOM", "cpu", "cpu"), ("Rack BOM", "nic", "backend_nic")],
        money.total,
        note="ODM rack BoM: 'Spec' description column, 'Qty / Rack' x 'No. of Racks'; CPUs and DIMMs at 0 "
        "(in the system's price)",
    )


def _option_rows(
    sh: Sheet, money: Money, gpu: str, servers: int, unit: float, start: int = 1, mark: str = "system"
) -> None:
    desc = (
        f"PowerEdge XE9680, NVIDIA HGX {gpu} 8-GPU, 2x Intel Xeon Platinum 8480+, 2TB (32x 64GB) DDR5, 8x "
        "ConnectX-7 400G NDR OSFP, 1x ConnectX-6 Dx 2x100GbE, 8x 3.84TB NVMe"
    )
    fab = fabric(servers)
    rows = [
        ("XE9680-CTO", desc, servers, unit, mark),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", fab["switches"], 36_900.0),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver, flat top", fab["server_xcvr"], 1_189.0),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, finned top", fab["twin"], 1_295.0),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", fab["fibre"], 71.0),
    ]
    for i, (pn, d, qty, price, *mark) in enumerate(rows, start=start):
        sh.item(i, pn, d, qty, usd(price), usd(money.line(qty, price)), mark=mark[0] if mark else None)


@quote
def options_sheets_h100_or_h200_16() -> Quote:
    """Two alternatives on two sheets under a cover sheet that says to select one."""
    money = Money()
    cover = Sheet("Cover")
    title(cover, "Pacific Crest Systems", "Budgetary proposal", "PCS-24-9001", "Example Neocloud Inc.")
    cover.add("We propose two alternative configurations. Please select one option; the options are not cumulative.")
    sheets = [cover]
    for name, gpu, unit in (("Option A", "H100", 286_000.0), ("Option B", "H200", 318_000.0)):
        sh = Sheet(name)
        sh.add(f"{name}: 16x PowerEdge XE9680 with HGX {gpu}")
        sh.add(MARK)
        sh.add()
        sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
        _option_rows(sh, money, gpu, 16, unit)
        sh.add("", "", f"Total {name}", "", "", usd(money.sub()))
        sheets.append(sh)
    expect = {
        "gpus": 128,
        "servers": 16,
        "gpu_model": "h100-sxm",
        "currency": "USD",
        "findings_must": ["cpu_top_bin", "ram_over_1tb"],
        "findings_must_not": not_padding("cpu_top_bin", "ram_over_1tb", extra=["total_mismatch"]),
        "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 0},
        "options": ["Option A", "Option B"],
        "by_option": {2: {"gpus": 128, "servers": 16, "gpu_model": "h200-sxm"}},
    }
    return Quote(
        "options_sheets_h100_or_h200_16.xlsx",
        "options",
        sheets,
        expect,
        [("Option A", "system", "system")],
        money.total,
        note="Option A (H100) and Option B (H200) sheets under a cover that says 'select one': reviewed one at a "
        "time, never summed",
    )


@quote
def options_sections_b200_32_or_64() -> Quote:
    """Two alternatives as two sections of one sheet, each with its own total, and a line 'choose one'."""
    money = Money()
    sh = Sheet("")
    title(sh, "Granite Peak Compute", "Quotation with alternatives", "GPC-25-0117", "Example Neocloud Inc.",
          [("Note:", "Choose one of the following configurations.")])  # fmt: skip
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    sh.add("", "", "Configuration 1: 32 servers")
    _option_rows(sh, money, "B200", 32, 408_000.0)
    sh.add("", "", "Configuration 1 total", "", "", usd(money.sub()))
    sh.add()
    sh.add("", "", "Configuration 2: 64 servers")
    _option_rows(sh, money, "B200", 64, 398_000.0, start=10, mark="system_2")
    sh.add("", "", "Configuration 2 total", "", "", usd(money.sub()))
    return Quote(
        "options_sections_b200_32_or_64.csv",
        "options",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "b200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb"],
            "findings_must_not": not_padding("cpu_top_bin", "ram_over_1tb", extra=["total_mismatch"]),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 0},
            "options": ["Configuration 1: 32 servers", "Configuration 2: 64 servers"],
            "by_option": {2: {"gpus": 512, "servers": 64, "gpu_model": "b200-sxm"}},
        },
        [("", "system", "system")],
        money.total,
        note="Two sections of one sheet, each with its own total, under 'Choose one of the following "
        "configurations': two alternatives, never summed into one cluster twice the size",
    )


@quote
def spectrum_x_b3140h_h200_32() -> Quote:
    """Spectrum-X: BlueField-3 B3140H SuperNICs (one per GPU) as the back end, one B3220 DPU per server."""
    money = Money()
    sh = Sheet("")
    title(sh, "Lakeshore Networks", "Quotation: Spectrum-X cluster", "LSN-25-2210", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    simple(
        sh,
        money,
        [
            ("SYS-821GE-TNHR", "Supermicro SYS-821GE-TNHR, HGX H200 8-GPU, 2x Xeon Gold 6530 32C, 1TB (16x 64GB) "
             "DDR5, 4x 7.68TB NVMe", 32, 268_000.0, "system"),
            ("900-9D3D4-00EN-HA0", "NVIDIA BlueField-3 B3140H SuperNIC, 400GbE single-port QSFP112, PCIe Gen5",
             256, 2_050.0, "supernic"),
            ("900-9D3B6-00CV-AA0", "NVIDIA BlueField-3 B3220 DPU, 2x 200GbE QSFP112", 32, 2_600.0, "dpu"),
            ("MSN5600-WS2FC", "NVIDIA Spectrum-4 SN5600 64x 800GbE Spectrum-X switch", 4, 62_000.0, "switch"),
            ("MMA1Z00-NS400", "NVIDIA 400G QSFP112 SR4 transceiver for SuperNIC", 256, 990.0),
            ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2x SR4, finned (switch side)", 128, 1_295.0),
            ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 256, 71.0),
        ],
    )  # fmt: skip
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "spectrum_x_b3140h_h200_32.csv",
        "reseller",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["dpu_bluefield"],
            "findings_must_not": not_padding("dpu_bluefield", extra=["total_mismatch", "extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 1},
            "savings_at_most": {"dpu_bluefield": 32 * 2_600.0},
        },
        [("", "supernic", "backend_nic"), ("", "dpu", "frontend_nic"), ("", "switch", "backend_switch")],
        money.total,
        note="Spectrum-X: B3140H SuperNICs are the 8 back-end NICs per server (not DPUs: no 'fewer than 8 NICs', no "
        "$300k DPU saving); one B3220 DPU per server; SN5600 as the Spectrum-X switch",
    )


@quote
def lenovo_sr680a_warranty_base_h200_16() -> Quote:
    """Lenovo DCSC export whose base line is 'ThinkSystem SR680a V3 - 3yr Warranty'."""
    money = Money()
    sh = Sheet("DCSC")
    sh.add("Lenovo Data Center Solution Configurator export")
    sh.add(MARK)
    sh.add()
    sh.head("Part number", "Product Description", "Qty/Server", "Total Qty", "Unit Price", "Total Price", qty=3,
            price=4, ext=5)  # fmt: skip
    servers = 16

    def node(pn: str, desc: str, per: int, unit: float, mark: str | None = None) -> None:
        sh.item(pn, desc, per, per * servers, unit, money.line(per * servers, unit), mark=mark)

    node("7DHECTO1WW", "ThinkSystem SR680a V3 - 3yr Warranty", 1, 8_150.0, "base")
    node("C1HL", "ThinkSystem NVIDIA HGX H200 141GB 700W 8-GPU Board", 1, 249_500.0, "board")
    node("BYKK", "Intel Xeon Platinum 8570 56C 350W 2.1GHz Processor", 2, 4_900.0, "cpu")
    node("BZ7H", "ThinkSystem 64GB TruDDR5 5600MHz (2Rx4) RDIMM", 32, 276.0, "dimm")
    node("BQ1N", "ThinkSystem NVIDIA ConnectX-7 NDR OSFP400 1-port PCIe Gen5 x16 InfiniBand Adapter", 8, 1_670.0)
    node("BVBG", "ThinkSystem NVIDIA BlueField-3 B3220 VPI QSFP112 2P 200G PCIe Gen5 x16 Adapter", 2, 2_680.0)
    sh.add("", "Total", "", "", "", money.total)
    return Quote(
        "lenovo_sr680a_warranty_base_h200_16.xlsx",
        "lenovo",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h200-sxm",
            "currency": "USD",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "ram_over_1tb", "dpu_bluefield", "price_above_book", extra=["total_mismatch"]
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
        },
        [("DCSC", "base", "system"), ("DCSC", "cpu", "cpu")],
        money.total,
        note="The base line reads 'ThinkSystem SR680a V3 - 3yr Warranty': it is the server, so its padded "
        "configuration is checked",
    )


@quote
def dell_attribute_lines_h100_16() -> Quote:
    """A Dell configuration with attribute lines ('Memory DIMM Type and Speed: 4800MT/s RDIMMs') that add no part."""
    money = Money()
    sh = Sheet("Quote")
    title(sh, "Dell Technologies", "Quote", "DELL-3000171234", "Example Neocloud Inc.")
    sh.head("Description", "SKU", "Unit Price", "Quantity", "Subtotal", qty=3, price=2, ext=4)
    servers = 16
    sh.item("PowerEdge XE9680 Rack Server", "210-BDZB", 251_600.0, servers, money.line(servers, 251_600.0),
            mark="system")  # fmt: skip
    modules = [
        ("NVIDIA HGX H100 80GB 700W SXM5 GPUs, fully interconnected with NVLink technology", "370-AHRT", 1),
        ("Intel Xeon Gold 6530 2.1G, 32C/64T, 20GT/s, 160M Cache, Turbo, HT (270W) DDR5-4800", "338-CMYB", 2),
        ("Processor Thermal Configuration: Heatsink for 2 CPU", "412-AAYZ", 1, "thermal"),
        ("Memory DIMM Type and Speed: 4800MT/s RDIMMs", "370-AAIP", 1, "dimm_type"),
        ("64GB RDIMM, 4800MT/s Dual Rank", "370-AHCL", 16, "dimm"),
        ("NVIDIA ConnectX-7 Single Port NDR OSFP PCIe Gen5 x16 Adapter, Full Height", "540-BDHB", 8),
        ("Broadcom 57508 Dual Port 100GbE QSFP Adapter, PCIe Full Height", "540-BDGR", 1),
        ("3.84TB Data Center NVMe Read Intensive AG Drive U2 Gen4 with carrier", "345-BDZB", 4),
    ]
    for desc, sku, qty, *mark in modules:
        sh.item(desc, sku, "", qty, "", mark=mark[0] if mark else None, indent=True)
    sh.add()
    sh.add("Total", "", "", "", money.total)
    return Quote(
        "dell_attribute_lines_h100_16.xlsx",
        "dell",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": not_padding(extra=["total_mismatch", "extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "cpus": 2},
        },
        [("Quote", "system", "system"), ("Quote", "dimm_type", "attribute"), ("Quote", "dimm", "ram")],
        money.total,
        note="Dell attribute lines without a size ('Memory DIMM Type and Speed: 4800MT/s RDIMMs', 'Processor "
        "Thermal Configuration') add no part: 16x 64GB is 1 TB, not 1.06 TB",
    )


def cny(x: float) -> str:
    return f"-¥{-x:,.2f}" if x < 0 else f"¥{x:,.2f}"


@quote
def zh_reseller_h100_16_cny_gb18030() -> Quote:
    """A Chinese reseller's quote: 序号/型号/描述/数量/单价/金额, ¥ under 币种：人民币（CNY）, GB18030 bytes."""
    money = Money()
    sh = Sheet("")
    sh.add("华东智算科技有限公司")
    sh.add("报价单")
    sh.add(MARK)
    sh.add("币种：人民币（CNY）", "", "报价有效期：30天")
    sh.add()
    sh.head("序号", "型号", "描述", "数量", "单价", "金额", qty=3, price=4, ext=5)
    server = (
        "GPU服务器 Supermicro SYS-821GE-TNHR, HGX H100 8-GPU, 2x Intel Xeon Platinum 8480+, 2TB (32x 64GB) DDR5, "
        "8x ConnectX-7 400G NDR, 2x BlueField-3 B3220, 8x 3.84TB NVMe"
    )
    rate = 7.1  # CNY per USD
    rows = [
        ("SYS-821GE-TNHR", server, "16台", 2_045_000.0, "system", 16),
        ("MQM9700-NS2F", "InfiniBand 交换机 NVIDIA Quantum-2 QM9700 64口 NDR", "4台", 262_000.0, "ib_switch", 4),
        ("MMA4Z00-NS400", "光模块 NVIDIA 400G OSFP 单端口 SR4 多模", "128个", 8_400.0, None, 128),
        ("MMA4Z00-NS", "光模块 NVIDIA 800G OSFP 双端口 2x SR4 多模", "64个", 9_200.0, None, 64),
        ("MFP7E10-N030", "光纤 NVIDIA MPO12 APC 30米", "128条", 500.0, None, 128),
        ("NVAIE-3Y", "NVIDIA AI Enterprise 三年订阅（每GPU）", 128, "含", "nvaie", 0),
    ]
    for i, (pn, desc, qty, unit, mark, n) in enumerate(rows, start=1):
        if isinstance(unit, float):
            sh.item(i, pn, desc, qty, cny(unit), cny(money.line(n, unit)), mark=mark)
        else:
            sh.item(i, pn, desc, qty, unit, unit, mark=mark)
    sh.add("", "", "合计", "", "", cny(money.total))
    sh.add("", "", "增值税（13%）", "", "", cny(round(money.total * 0.13, 2)))
    return Quote(
        "zh_reseller_h100_16_cny_gb18030.csv",
        "asia",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "CNY",
            "findings_must": ["cpu_top_bin", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin",
                "ram_over_1tb",
                "dpu_bluefield",
                "nvaie_license",
                extra=["total_mismatch", "extended_mismatch"],
            ),
            "per_server": {"ram_gb": 2048, "backend_nics": 8, "dpus": 2},
            "savings_at_most": {"nvaie_license": 0.0},
        },
        [("", "system", "system"), ("", "ib_switch", "backend_switch"), ("", "nvaie", "software_licence")],
        money.total,
        usd_per_unit=round(1 / rate, 6),
        encoding="gb18030",
        note="Chinese headers (序号/型号/描述/数量/单价/金额), ¥ amounts under '币种：人民币（CNY）' (yuan, not yen), "
        "quantities with 台/个/条, NVAIE '含' (included), 增值税 line; GB18030 bytes (Chinese Excel)",
    )


@quote
def ja_reseller_h200_16_jpy_sjis() -> Quote:
    """A Japanese reseller's quote: 品番/品名・仕様/数量/単価/金額, plain amounts under 金額単位：円, Shift_JIS."""
    money = Money()
    sh = Sheet("")
    sh.add("株式会社サンプル情報システム")
    sh.add("御見積書")
    sh.add(MARK)
    sh.add("金額単位：円（税抜）")
    sh.add()
    sh.head("品番", "品名・仕様", "数量", "単価", "金額", qty=2, price=3, ext=4)
    server = (
        "GPUサーバー HPE Cray XD670, HGX H200 8-GPU, 2x Intel Xeon Gold 6530, 1TB (16x 64GB) DDR5, "
        "8x ConnectX-7 400G NDR, 1x ConnectX-6 Dx 2x100GbE"
    )
    rows = [
        ("P62789-B21", server, "16台", 44_100_000.0, "system", 16),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64ポート NDR スイッチ", "4台", 5_600_000.0, "ib_switch", 4),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP シングルポート トランシーバー SR4", "128個", 180_000.0, None, 128),
        ("MMA4Z00-NS", "NVIDIA 800G OSFP ツインポート トランシーバー 2x SR4", "64個", 196_000.0, None, 64),
        ("MFP7E10-N030", "NVIDIA MPO12 APC マルチモード光ファイバー 30m", "128本", 10_800.0, None, 128),
        ("INST-RACK", "ラック搭載・配線・動作確認作業", "1式", 3_200_000.0, None, 1),
    ]
    for pn, desc, qty, unit, mark, n in rows:
        sh.item(pn, desc, qty, f"{unit:,.0f}", f"{money.line(n, unit):,.0f}", mark=mark)
    sh.add("", "合計", "", "", f"{money.total:,.0f}")
    sh.add("", "消費税（10%）", "", "", f"{money.total * 0.1:,.0f}")
    sh.add("", "税込合計", "", "", f"{money.total * 1.1:,.0f}")
    return Quote(
        "ja_reseller_h200_16_jpy_sjis.csv",
        "asia",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h200-sxm",
            "currency": "JPY",
            "findings_must": [],
            "findings_must_not": not_padding(extra=["total_mismatch", "extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [("", "system", "system"), ("", "ib_switch", "backend_switch")],
        money.total,
        usd_per_unit=0.0067,
        encoding="cp932",
        note="Japanese headers (品番/品名・仕様/数量/単価/金額), plain amounts under '金額単位：円' (yen, never USD), "
        "台/個/本/式 quantities, 消費税 and 税込合計 rows; Shift_JIS bytes (Japanese Excel's CSV)",
    )


def krw(x: float) -> str:
    return f"-₩{-x:,.0f}" if x < 0 else f"₩{x:,.0f}"


@quote
def ko_reseller_b200_16_krw() -> Quote:
    """A Korean reseller's quote: 번호/품번/품명/수량/단가/금액, amounts in ₩."""
    money = Money()
    sh = Sheet("견적서")
    sh.add("샘플시스템 주식회사")
    sh.add("견 적 서")
    sh.add(MARK)
    sh.add()
    sh.head("번호", "품번", "품명", "수량", "단가", "금액", qty=3, price=4, ext=5)
    server = (
        "GPU 서버 Gigabyte G893-SD1, HGX B200 8-GPU, 2x Intel Xeon Platinum 8570, 2TB (32x 64GB) DDR5, "
        "8x ConnectX-7 400G NDR"
    )
    rows = [
        ("G893-SD1", server, 16, 548_000_000.0, "system"),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64포트 NDR 스위치", 4, 50_500_000.0, "ib_switch"),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP 트랜시버 SR4", 128, 1_620_000.0),
        ("MMA4Z00-NS", "NVIDIA 800G OSFP 트윈포트 트랜시버", 64, 1_770_000.0),
        ("MFP7E10-N030", "NVIDIA MPO12 APC 광케이블 30m", 128, 98_000.0),
    ]
    for i, (pn, desc, qty, unit, *mark) in enumerate(rows, start=1):
        sh.item(i, pn, desc, qty, krw(unit), krw(money.line(qty, unit)), mark=mark[0] if mark else None)
    sh.add("", "", "합계", "", "", krw(money.total))
    sh.add("", "", "부가세 (10%)", "", "", krw(money.total * 0.1))
    return Quote(
        "ko_reseller_b200_16_krw.xlsx",
        "asia",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "b200-sxm",
            "currency": "KRW",
            "findings_must": ["cpu_top_bin", "ram_over_1tb"],
            "findings_must_not": not_padding("cpu_top_bin", "ram_over_1tb", extra=["total_mismatch"]),
            "per_server": {"ram_gb": 2048, "backend_nics": 8},
        },
        [("견적서", "system", "system"), ("견적서", "ib_switch", "backend_switch")],
        money.total,
        usd_per_unit=0.00073,
        note="Korean headers (번호/품번/품명/수량/단가/금액), ₩ amounts, 부가세 row; Gigabyte G893-SD1 8U HGX B200 "
        "8-GPU server (a B200 server, not unsure)",
    )


@quote
def reseller_units_after_prices_h100_16() -> Quote:
    """Prices with their unit written after them: 'USD 289,500.00 ea', '$1,189.00/ea', '$71.00 each', '… lot'."""
    money = Money()
    sh = Sheet("")
    title(sh, "Riverbend Technology Group", "QUOTE", "RTG-24-6619", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    desc = (
        "SYS-821GE-TNHR … HGX H100 8-GPU server chassis and baseboard, 2x Intel Xeon Gold 6530, 1TB (16x 64GB) "
        "DDR5, 8x ConnectX-7 400G NDR, 1x ConnectX-6 Dx 2x100GbE"
    )
    rows = [
        ("SYS-821GE-TNHR", desc, 16, 251_500.0, "USD {} ea", "system"),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 2, 36_900.0, "${}/ea", "ib_switch"),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver, flat top", 128, 1_189.0, "${} each", "xcvr"),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, finned top", 64, 1_295.0, "${} each", None),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 128, 71.0, "${} each", None),
        ("INT-L11", "L11 integration, cabling and burn-in", 1, 31_000.0, "${} lot", None),
    ]
    for i, (pn, d, qty, unit, style, mark) in enumerate(rows, start=1):
        sh.item(i, pn, d, qty, style.format(f"{unit:,.2f}"), usd(money.line(qty, unit)), mark=mark)
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "reseller_units_after_prices_h100_16.csv",
        "reseller",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": not_padding(extra=["total_mismatch", "extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [("", "system", "system"), ("", "ib_switch", "backend_switch"), ("", "xcvr", "backend_server_link")],
        money.total,
        note="Units after the prices ('USD 251,500.00 ea', '$36,900.00/ea', '$71.00 each', '$31,000.00 lot'); the "
        "server line says 'HGX H100 8-GPU server chassis and baseboard' (a GPU server, not a bare chassis)",
    )


@quote
def h20_reseller_16_and_total_off() -> Quote:
    """HGX H20 servers (told apart from H200) and a stated total $800 off the sum of its lines."""
    money = Money()
    sh = Sheet("Quote")
    title(sh, "Eastgate Systems", "Quotation", "EGS-24-1180", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    simple(
        sh,
        money,
        [
            ("G593-SD2", "Gigabyte G593-SD2 HGX H20 8-GPU 96GB, 2x Xeon Gold 6530, 1TB (16x 64GB) DDR5, 8x "
             "ConnectX-7 400G", 16, 168_000.0, "system"),
            ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 2, 36_900.0, "ib_switch"),
            ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver, flat top", 128, 1_189.0),
            ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, finned top", 64, 1_295.0),
            ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 128, 71.0),
        ],
    )  # fmt: skip
    row = sh.add("", "", "Total", "", "", usd(money.total + 800.0))
    return Quote(
        "h20_reseller_16_and_total_off.xlsx",
        "reseller",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "h20-sxm",
            "currency": "USD",
            "findings_must": ["total_mismatch"],
            "findings_must_not": not_padding(extra=["extended_mismatch"]),
            "per_server": {"ram_gb": 1024, "backend_nics": 8, "dpus": 0},
        },
        [("Quote", "system", "system")],
        money.total,
        bad_totals=[("Quote", row)],
        note="HGX H20 servers (not H200: the model has no H20 platform, so no comparison); the stated total is "
        "$800 over the sum of its lines: a finding citing the total's row and the lines' rows",
    )


@quote
def b300_cx8_16() -> Quote:
    """HGX B300 servers with ConnectX-8 SuperNICs on the board."""
    money = Money()
    sh = Sheet("")
    title(sh, "Summit Blackwell Partners", "Quotation", "SBP-26-0031", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    simple(
        sh,
        money,
        [
            ("SYS-A22GA-NBRT", "Supermicro SYS-A22GA-NBRT, HGX B300 8-GPU 288GB, 8x ConnectX-8 SuperNIC 800G on "
             "board, 2x Xeon 6960P, 2TB (32x 64GB) DDR5", 16, 515_000.0, "system"),
            ("MQ3400", "NVIDIA Quantum-X800 Q3400 144-port XDR switch", 1, 168_000.0, "switch"),
        ],
    )  # fmt: skip
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "b300_cx8_16.csv",
        "rack_scale",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "b300-sxm",
            "currency": "USD",
            "findings_must": ["ram_over_1tb"],
            "findings_must_not": ["nics_below_8", "dpu_bluefield", "nvaie_license", "total_mismatch"],
            "per_server": {"ram_gb": 2048, "backend_nics": 8},
        },
        [("", "system", "system"), ("", "switch", "backend_switch")],
        money.total,
        note="HGX B300 servers whose ConnectX-8 SuperNICs (800G) sit on the board: 8 back-end NICs per server",
    )


# ---------------------------------------------------------------- wave 5 (issue 38): currencies, layouts, what the
# file is, the quote's date, rack-scale services, bundles, licences


def dated_title(sh: Sheet, company: str, doc: str, number: str, date_line: Sequence[Cell],
                extra: Sequence[Sequence[Cell]] = ()) -> None:  # fmt: skip
    """A title block with the date written the vendor's way ("견적일자: 2024. 11. 4.", "Quote Date", a date cell)."""
    sh.add(company)
    sh.add(doc)
    sh.add(MARK)
    sh.add("Quote No.:", number)
    sh.add(*date_line)
    for row in extra:
        sh.add(*row)
    sh.add()


def won(x: float) -> str:
    """1,234,000 (bare numbers: the currency is said once, elsewhere)."""
    return f"{x:,.0f}"


def fabric_rows(servers: int, prices: dict[str, float]) -> list[tuple[Any, ...]]:
    """(part, description, qty, unit, mark) of a non-blocking NDR back end for ``servers`` (fabric())."""
    fab = fabric(servers)
    return [
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", fab["switches"], prices["switch"], "ib_switch"),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver, SR4 multimode, flat top", fab["server_xcvr"],
         prices["xcvr"], "xcvr_server"),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver, 2x SR4 multimode, finned top", fab["twin"],
         prices["twin"], "twin"),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", fab["fibre"], prices["fibre"], "fibre"),
    ]  # fmt: skip


NDR_2024 = {"switch": 36_900.0, "xcvr": 1_150.0, "twin": 1_340.0, "fibre": 70.0}
NDR_2026 = {"switch": 32_500.0, "xcvr": 860.0, "twin": 1_260.0, "fibre": 70.0}
CLEAN_H100 = ("HGX H100 8-GPU SXM5 80GB, 2x Intel Xeon Gold 6530 32C, 1TB (16x 64GB) DDR5-5600, 8x ConnectX-7 400G NDR "
              "OSFP, 1x ConnectX-6 Dx 2x100GbE, 2x 960GB M.2 boot")  # fmt: skip
CLEAN_H200 = ("HGX H200 8-GPU SXM5 141GB, 2x Intel Xeon Gold 6530 32C, 2TB (32x 64GB) DDR5-5600, 8x ConnectX-7 400G "
              "NDR OSFP, 1x ConnectX-6 Dx 2x100GbE, 2x 960GB M.2 boot")  # fmt: skip


def clean_expect(gpus: int, servers: int, model: str, currency: str = "USD", **more: Any) -> dict[str, Any]:
    """Expectations of an honest quote: no padding, no arithmetic finding."""
    out = {
        "gpus": gpus,
        "servers": servers,
        "gpu_model": model,
        "currency": currency,
        "findings_must": [],
        "findings_must_not": not_padding(extra=["extended_mismatch", "total_mismatch", "missing_item"]),
    }
    return {**out, **more}


@quote
def ko_reseller_h100_32_won_units() -> Quote:
    """A Korean reseller's quote whose amounts are bare numbers: 원 once in the units line, ₩ once on the total."""
    money = Money()
    sh = Sheet("견적서")
    dated_title(sh, "한빛시스템 주식회사", "견 적 서", "HB-2024-1104", ("견적일자: 2024. 11. 4.",),
                [("(단위: 원, 부가세 별도)",)])  # fmt: skip
    sh.head("번호", "품번", "품명", "수량", "단가", "금액", qty=3, price=4, ext=5)
    rows = [
        ("SYS-821GE-TNHR", f"GPU 서버 Supermicro SYS-821GE-TNHR, {CLEAN_H100}", 32, 354_000_000.0, "system"),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64포트 NDR 스위치", 8, 50_000_000.0, "ib_switch"),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP 트랜시버 SR4", 256, 1_560_000.0),
        ("MMA4Z00-NS", "NVIDIA 800G OSFP 트윈포트 트랜시버", 128, 1_900_000.0),
        ("MFP7E10-N030", "NVIDIA MPO12 APC 광케이블 30m", 256, 97_000.0),
    ]
    for i, (pn, desc, qty, unit, *mark) in enumerate(rows, start=1):
        sh.item(i, pn, desc, qty, won(unit), won(money.line(qty, unit)), mark=mark[0] if mark else None)
    sh.add("", "", "합계 (부가세 별도)", "", "", f"₩ {money.total:,.0f}")
    return Quote(
        "ko_reseller_h100_32_won_units.xlsx",
        "asia",
        [sh],
        clean_expect(256, 32, "h100-sxm", "KRW", per_server={"ram_gb": 1024, "backend_nics": 8}, book="2024-10"),
        [("견적서", "system", "system"), ("견적서", "ib_switch", "backend_switch")],
        money.total,
        usd_per_unit=0.00072,
        note="Korean quote with bare numbers: the currency only as 원 in the units line '(단위: 원)' and as ₩ on the "
        "total, never in the price cells; date '견적일자: 2024. 11. 4.'",
    )


@quote
def ko_integrator_b200_16_won_title() -> Quote:
    """A Korean integrator's CSV: the currency as ₩ in the title block's amount and 원 after the total's figure."""
    money = Money()
    sh = Sheet("")
    server = ("GPU 서버 Gigabyte G893-SD1, HGX B200 8-GPU, 2x Intel Xeon Platinum 8570 56C, 2TB (32x 64GB) DDR5, "
              "8x ConnectX-7 400G NDR, 1x ConnectX-6 Dx 2x100GbE")  # fmt: skip
    rows = [
        ("G893-SD1", server, 16, 545_000_000.0, "system"),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64포트 NDR 스위치", 4, 50_000_000.0, "ib_switch"),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP 트랜시버 SR4", 128, 1_560_000.0),
        ("MMA4Z00-NS", "NVIDIA 800G OSFP 트윈포트 트랜시버", 64, 1_900_000.0),
        ("MFP7E10-N030", "NVIDIA MPO12 APC 광케이블 30m", 128, 97_000.0),
    ]
    total = sum(q * u for _, _, q, u, *_ in rows)
    dated_title(sh, "누리인프라 주식회사", "견적서 (GPU 클러스터)", "NI-24-0316", ("견적일: 2024-11-04",),
                [(f"견적금액: ₩ {total * 1.1:,.0f} (VAT 포함)",)])  # fmt: skip
    sh.head("번호", "모델명", "품명 및 규격", "수량", "단가", "금액", qty=3, price=4, ext=5)
    for i, (pn, desc, qty, unit, *mark) in enumerate(rows, start=1):
        sh.item(i, pn, desc, qty, won(unit), won(money.line(qty, unit)), mark=mark[0] if mark else None)
    sh.add("", "", "공급가액 합계", "", "", f"{money.total:,.0f} 원")
    return Quote(
        "ko_integrator_b200_16_won_title.csv",
        "asia",
        [sh],
        {
            **clean_expect(128, 16, "b200-sxm", "KRW", per_server={"ram_gb": 2048, "backend_nics": 8}),
            "findings_must": ["cpu_top_bin"],
            "findings_must_not": not_padding("cpu_top_bin", extra=["total_mismatch"]),
        },
        [("", "system", "system")],
        money.total,
        usd_per_unit=0.00073,
        note="Korean CSV with bare numbers: ₩ only in the title block's VAT-inclusive amount and 원 after the total; "
        "Platinum 8570 (top bin); 2 TB per B200 server is what its HBM needs (no RAM finding)",
    )


@quote
def sa_integrator_h200_32_usd_sar() -> Quote:
    """USD hardware with local services in SAR and the rate stated in the title block."""
    money = Money()
    sh = Sheet("")
    rate = ("Exchange rate: 1 USD = 3.75 SAR (hardware in USD, local services in SAR)",)
    dated_title(sh, "Riyadh Compute Integrators", "Quotation: GPU cluster, supply and services", "RCI-24-118",
                ("Date:", "2024-11-04"), [rate])  # fmt: skip
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    hw = [("SYS-821GE-TNHR", f"Supermicro SYS-821GE-TNHR, {CLEAN_H200}", 32, 292_000.0, "system"),
          *fabric_rows(32, NDR_2024)]  # fmt: skip
    services = [
        ("SVC-INST-KSA", "On-site installation per server (rack and stack, cabling, power-on)", 32, 937.50, "install"),
        ("SVC-BURN-KSA", "On-site acceptance burn-in, per server-day (3 days)", 96, 112.50),
        ("SVC-FRT-KSA", "Freight, customs clearance and delivery to site", 1, 45_000.00, "freight"),
    ]
    i = 0
    for pn, desc, qty, unit, *mark in hw:
        i += 1
        sh.item(i, pn, desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark[0] if mark else None)
    for pn, desc, qty, unit, *mark in services:
        i += 1
        sh.item(
            i, pn, desc, qty, f"SAR {unit:,.2f}", f"SAR {money.line(qty, unit):,.2f}", mark=mark[0] if mark else None
        )
    return Quote(
        "sa_integrator_h200_32_usd_sar.csv",
        "currency",
        [sh],
        clean_expect(
            256,
            32,
            "h200-sxm",
            "USD",
            per_server={"ram_gb": 2048, "backend_nics": 8},
            rates={"SAR": round(1 / 3.75, 6)},
        ),
        [("", "system", "system"), ("", "install", "installation")],
        money.total,
        note="Hardware in USD ('$'), local services in SAR ('SAR 937.50') and 'Exchange rate: 1 USD = 3.75 SAR' in the "
        "title block: each line converted at its own currency's rate, no rate to give",
    )


@quote
def ae_reseller_h100_16_usd_aed_column() -> Quote:
    """A Currency column per line (USD hardware, AED services) and the rate in the pair notation 'USD/AED 3.6725'."""
    money = Money()
    sh = Sheet("Quotation")
    dated_title(sh, "Gulf Data Systems LLC", "Commercial offer", "GDS-1124-07", ("Offer date", "04/11/2024"),
                [("FX applied: USD/AED 3.6725",)])  # fmt: skip
    sh.head("Item", "Part No.", "Description", "Qty", "Currency", "Unit Price", "Total", qty=3, price=5, ext=6)
    rows = [
        ("XE9680", f"Dell PowerEdge XE9680, {CLEAN_H100}", 16, "USD", 258_000.0, "system"),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 4, "USD", 36_900.0, "ib_switch"),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver SR4 flat top", 128, "USD", 1_150.0),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver finned top", 64, "USD", 1_340.0),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 128, "USD", 70.0),
        ("INST-DXB", "Installation per server, Dubai data centre", 16, "AED", 918.0, "install"),
        ("L11-DXB", "Rack integration and burn-in per server", 16, "AED", 7_345.0),
    ]
    for i, (pn, desc, qty, cur, unit, *mark) in enumerate(rows, start=1):
        sh.item(i, pn, desc, qty, cur, f"{unit:,.2f}", f"{money.line(qty, unit):,.2f}", mark=mark[0] if mark else None)
    return Quote(
        "ae_reseller_h100_16_usd_aed_column.xlsx",
        "currency",
        [sh],
        clean_expect(
            128,
            16,
            "h100-sxm",
            "USD",
            per_server={"ram_gb": 1024, "backend_nics": 8},
            rates={"AED": round(1 / 3.6725, 6)},
        ),
        [("Quotation", "system", "system"), ("Quotation", "install", "installation")],
        money.total,
        note="A Currency column per line (USD / AED), bare amounts, the rate as 'USD/AED 3.6725' (one USD is 3.6725 "
        "AED); date '04/11/2024' under 'Offer date'",
    )


def _module_rows(sh: Sheet, gpu: str, cpu: str, dimms: tuple[int, str], extra: Sequence[tuple[str, str, str, int]] = ()
                 ) -> None:  # fmt: skip
    """A configurator's module rows under the priced base line (Module, Description, SKU, Qty; no prices)."""
    rows = [
        ("Base", f"PowerEdge XE9680 Rack Server, {gpu}", "210-BDZB", 1, "base"),
        ("Processor", cpu, "338-CHSG", 2, "cpu"),
        ("Memory Capacity", dimms[1], "370-AHCL", dimms[0], "dimm"),
        ("Network Adapters", "NVIDIA ConnectX-7 Single Port NDR OSFP PCIe Gen5 x16 Adapter", "540-BDHB", 8, "nic"),
        ("Additional Network Cards", "Mellanox ConnectX-6 Dx Dual Port 100GbE QSFP56 Adapter", "540-BDJL", 1, None),
        ("Boot Optimized Storage", "BOSS-N1 controller card + with 2 M.2 960GB (RAID 1)", "403-BCRU", 1, None),
        *((m, d, s, q, None) for m, d, s, q in extra),
        ("Service", "ProSupport Plus Mission Critical 4-Hour 7x24 Onsite Service, 36 Month(s)", "865-BBPG", 1, None),
    ]
    for module, desc, sku, qty, mark in rows:
        sh.item(module, desc, sku, qty, None, None, mark=mark, indent=True)


@quote
def dell_xe9680_h100_16_base_module() -> Quote:
    """Dell's configurator export: the priced system line, then its modules with the vendor's own 'Base' row."""
    money = Money()
    sh = Sheet("Quote")
    dated_title(sh, "DELL TECHNOLOGIES", "Configured system quote", "3000187734.1", ("Quote Date:", "2024-11-04"),
                [("Currency:", "USD")])  # fmt: skip
    sh.head("Module", "Description", "SKU", "Qty", "Unit Price", "Extended Price", qty=3, price=4, ext=5)
    ext = money.line(16, 289_000.0)
    sh.item(
        "PowerEdge XE9680", "PowerEdge XE9680 (configured)", "210-BDZB", 16, usd(289_000.0), usd(ext), mark="system"
    )
    _module_rows(sh, "NVIDIA HGX H100 8-GPU SXM5 80GB 700W", "Intel Xeon Platinum 8480+ 2.0G, 56C/112T, 105M Cache",
                 (32, "64GB RDIMM, 4800MT/s, Dual Rank"))  # fmt: skip
    sh.add()
    for pn, desc, qty, unit, *mark in fabric_rows(16, NDR_2024):
        sh.item(desc, desc, pn, qty, usd(unit), usd(money.line(qty, unit)), mark=mark[0] if mark else None)
    return Quote(
        "dell_xe9680_h100_16_base_module.xlsx",
        "configured",
        [sh],
        {
            **clean_expect(128, 16, "h100-sxm", per_server={"ram_gb": 2048, "backend_nics": 8, "cpus": 2}),
            "findings_must": ["cpu_top_bin", "ram_over_1tb"],
            "findings_must_not": not_padding("cpu_top_bin", "ram_over_1tb", extra=["nics_below_8", "total_mismatch"]),
        },
        [
            ("Quote", "system", "system"),
            ("Quote", "base", "chassis"),
            ("Quote", "cpu", "cpu"),
            ("Quote", "nic", "backend_nic"),
        ],
        money.total,
        note="Dell configurator: 'PowerEdge XE9680' priced once, then its modules (Module / Description / SKU / Qty) "
        "with Dell's own 'Base' row naming the server and its HGX board again: one server, not two",
    )


@quote
def smc_base_system_h200_32() -> Quote:
    """A Supermicro reseller's configured system: a priced line and its build under it, the base system first."""
    money = Money()
    sh = Sheet("")
    title(sh, "Pacific Rim Systems", "Configured quotation", "PRS-24-5521", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    ext = money.line(32, 292_000.0)
    sh.item(1, "SYS-821GE-TNHR-CFG", "Supermicro GPU SuperServer SYS-821GE-TNHR (configured)", 32, usd(292_000.0),
            usd(ext), mark="system")  # fmt: skip
    build = [
        ("SYS-821GE-TNHR", "SYS-821GE-TNHR base system: 8U, HGX H200 8-GPU SXM5 141GB, dual socket", 1, "base"),
        ("P4X-EMR6530-SRN5H", "Intel Xeon Gold 6530 32C 2.1GHz", 2, "cpu"),
        ("MEM-DR564L-HL01-ER56", "64GB DDR5-5600 ECC RDIMM", 32, "dimm"),
        ("AOC-MCX75310AAS-NEAT", "ConnectX-7 400G NDR single-port OSFP", 8, "nic"),
        ("AOC-MCX623106AN-CDAT", "ConnectX-6 Dx dual-port 100GbE", 1, None),
        ("HDS-SMN0-960G", "960GB M.2 NVMe boot drive", 2, None),
    ]
    for k, (pn, desc, qty, mark) in enumerate(build, start=1):
        sh.item(f"1.{k}", pn, "    " + desc, qty, "", "", mark=mark)
    for i, (pn, desc, qty, unit, *mark) in enumerate(fabric_rows(32, NDR_2024), start=2):
        sh.item(i, pn, desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark[0] if mark else None)
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "smc_base_system_h200_32.csv",
        "configured",
        [sh],
        clean_expect(256, 32, "h200-sxm", per_server={"ram_gb": 2048, "backend_nics": 8, "cpus": 2}),
        [("", "system", "system"), ("", "base", "chassis"), ("", "cpu", "cpu")],
        money.total,
        note="A configured SuperServer: the priced line names no GPU, its build under it (1.1 … 1.6) starts with the "
        "base system naming the HGX H200 board: one server per unit, its GPU read from the base row",
    )


@quote
def reseller_child_totals_h100_16_amd() -> Quote:
    """Child lines at 0.00 that carry the order's total quantities under a priced server line of quantity 16."""
    money = Money()
    sh = Sheet("")
    title(sh, "Lakeside AI Systems", "Quotation", "LAS-24-0904", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    ext = money.line(16, 268_000.0)
    sh.item(1, "AS-8125GS-TNHR", "Supermicro AS-8125GS-TNHR 8U GPU SuperServer, HGX H100 8-GPU SXM5 80GB", 16,
            usd(268_000.0), usd(ext), mark="system")  # fmt: skip
    children = [
        ("PSE-GEN9554-0455", "AMD 9554 3.10GHz, 64C/128T, 256M Cache (360W) DDR5-4800", 32, "cpu"),
        ("MEM-DR564MC-ER48", "64GB DDR5-4800 ECC RDIMM", 512, "dimm"),
        ("AOC-MCX75310AAS-NEAT", "ConnectX-7 400G NDR single-port OSFP adapter", 128, "nic"),
        ("900-9D3B6-00CV-AA0", "NVIDIA BlueField-3 B3220 DPU 2x200GbE", 32, "dpu"),
        ("HDS-MUN-MZQL27T6HBLA", "7.68TB NVMe U.2 Gen4 data drive", 128, None),
    ]
    for k, (pn, desc, qty, mark) in enumerate(children, start=2):
        sh.item(k, pn, desc, qty, usd(0.0), usd(0.0), mark=mark)
    for i, (pn, desc, qty, unit, *mark) in enumerate(fabric_rows(16, NDR_2024), start=len(children) + 2):
        sh.item(i, pn, desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark[0] if mark else None)
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "reseller_child_totals_h100_16_amd.csv",
        "configured",
        [sh],
        {
            **clean_expect(128, 16, "h100-sxm", per_server={"ram_gb": 2048, "backend_nics": 8, "dpus": 2, "cpus": 2}),
            "findings_must": ["cpu_top_bin", "cpu_amd", "ram_over_1tb", "dpu_bluefield"],
            "findings_must_not": not_padding(
                "cpu_top_bin", "cpu_amd", "ram_over_1tb", "dpu_bluefield", extra=["total_mismatch", "nics_below_8"]
            ),
            "savings_at_most": {"ram_over_1tb": 268_000 * 16, "dpu_bluefield": 268_000 * 16},
        },
        [("", "system", "system"), ("", "cpu", "cpu"), ("", "dimm", "ram"), ("", "nic", "backend_nic")],
        money.total,
        note="Child lines at $0.00 carry the order's totals (32 CPUs, 512 DIMMs, 128 NICs for 16 servers), read as "
        "totals by arithmetic, not multiplied again; the CPU is named 'AMD 9554 … 64C/128T … DDR5-4800' without EPYC",
    )


@quote
def gigabyte_child_totals_h200_32() -> Quote:
    """An ODM workbook: the server line, then its parts 'Included' with the quantities for all 32 servers."""
    money = Money()
    sh = Sheet("BOM")
    title(sh, "Formosa Server Works", "Cluster BOM and quotation", "FSW-1124-32", "Example Neocloud Inc.")
    sh.head("Item", "Part Number", "Description", "Qty", "Unit Price (USD)", "Amount (USD)", qty=3, price=4, ext=5)
    ext = money.line(32, 296_000.0)
    sh.item(1, "G593-SD2", "Gigabyte G593-SD2 HGX H200 8-GPU server", 32, 296_000.0, ext, mark="system")
    children = [
        ("PK8071305120500", "Intel Xeon Platinum 8480+ 56C 2.0GHz", 64, "cpu"),
        ("M321R8GA0BB0-CQK", "64GB DDR5-4800 RDIMM", 1024, "dimm"),
        ("MCX75310AAS-NEAT", "ConnectX-7 400G NDR single-port OSFP", 256, "nic"),
        ("MCX623106AN-CDAT", "ConnectX-6 Dx dual-port 100GbE", 32, None),
    ]
    for k, (pn, desc, qty, mark) in enumerate(children, start=2):
        sh.item(k, pn, desc, qty, "Included", "Included", mark=mark, indent=True)
    for i, (pn, desc, qty, unit, *mark) in enumerate(fabric_rows(32, NDR_2024), start=len(children) + 2):
        sh.item(i, pn, desc, qty, unit, money.line(qty, unit), mark=mark[0] if mark else None)
    sh.add("", "", "Total (USD)", "", "", money.total)
    return Quote(
        "gigabyte_child_totals_h200_32.xlsx",
        "configured",
        [sh],
        {
            **clean_expect(256, 32, "h200-sxm", per_server={"ram_gb": 2048, "backend_nics": 8, "cpus": 2}),
            "findings_must": ["cpu_top_bin"],
            "findings_must_not": not_padding("cpu_top_bin", extra=["total_mismatch", "nics_below_8"]),
        },
        [("BOM", "system", "system"), ("BOM", "cpu", "cpu"), ("BOM", "dimm", "ram")],
        money.total,
        note="Parts 'Included' in cell-indented rows under the server line with the quantities of all 32 servers "
        "(64 CPUs, 1,024 DIMMs, 256 NICs): totals, not per server",
    )


@quote
def integrator_rack_matrix_h100_32() -> Quote:
    """A rack matrix: a quantity per rack in one column per rack type, the racks of each type on a row."""
    money = Money()
    sh = Sheet("Rack BOM")
    title(sh, "Northwind Rack Integration", "Rack-level bill of materials and quotation", "NRI-24-0032",
          "Example Neocloud Inc.")  # fmt: skip
    sh.head("Part", "Description", "Compute rack", "Network rack", "Unit Price", "Extended", qty=2, price=4, ext=5)
    sh.add("Number of racks", "", 8, 1, "", "")
    fab = fabric(32)
    rows = [
        ("SYS-821GE-TNHR", f"Supermicro SYS-821GE-TNHR, {CLEAN_H100}", 4, 0, 255_000.0, "system"),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 0, fab["switches"], 36_900.0, "ib_switch"),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver SR4 flat top", 32, 0, 1_150.0, "xcvr"),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver finned top", 0, fab["twin"], 1_340.0),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 32, 0, 70.0),
        ("EX2300-48T", "Juniper EX2300 48x 1GbE + 4x 10GbE SFP+ switch (out-of-band)", 1, 1, 1_550.0),
        ("AP8886", "APC metered rack PDU 3-phase 415V 60A", 2, 2, 1_700.0),
        ("AR3300", "APC NetShelter SX 42U 600x1200 server rack enclosure", 1, 1, 1_500.0),
    ]
    for pn, desc, compute, network, unit, *mark in rows:
        total = compute * 8 + network * 1
        sh.item(pn, desc, compute or "", network or "", usd(unit), usd(money.line(total, unit)),
                mark=mark[0] if mark else None)  # fmt: skip
    sh.add("", "Total", "", "", "", usd(money.total))
    return Quote(
        "integrator_rack_matrix_h100_32.xlsx",
        "matrix",
        [sh],
        clean_expect(256, 32, "h100-sxm", per_server={"ram_gb": 1024, "backend_nics": 8}),
        [
            ("Rack BOM", "system", "system"),
            ("Rack BOM", "ib_switch", "backend_switch"),
            ("Rack BOM", "xcvr", "backend_server_link"),
        ],
        money.total,
        note="Rack matrix: 'Compute rack' and 'Network rack' quantity columns, 'Number of racks | 8 | 1' under the "
        "header: 4 servers per compute rack × 8 racks = 32 servers, not the first column's 4",
    )


@quote
def odm_rack_matrix_h200_16_names() -> Quote:
    """A rack matrix whose column names carry the racks of each type ('GPU Rack (x4)')."""
    money = Money()
    sh = Sheet("")
    title(sh, "Quanta-style ODM", "Rack configuration quote", "QRC-24-1116", "Example Neocloud Inc.")
    sh.head("Category", "Part", "Spec", "GPU Rack (x4)", "Spine Rack (x1)", "Unit Price", "Ext. Price", qty=3,
            price=5, ext=6)  # fmt: skip
    fab = fabric(16)
    rows = [
        ("System", "G593-SD2", f"Gigabyte G593-SD2 8U, {CLEAN_H200}", 4, 0, 292_000.0, "system"),
        ("Network", "MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 0, fab["switches"], 36_900.0),
        ("Optics", "MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver SR4 flat top", 32, 0, 1_150.0),
        ("Optics", "MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver finned top", 0, fab["twin"], 1_340.0),
        ("Cable", "MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 32, 0, 70.0),
    ]
    for cat, pn, spec, gpu_racks, spine, unit, *mark in rows:
        total = gpu_racks * 4 + spine
        sh.item(cat, pn, spec, gpu_racks or "", spine or "", usd(unit), usd(money.line(total, unit)),
                mark=mark[0] if mark else None)  # fmt: skip
    sh.add("", "", "Total", "", "", "", usd(money.total))
    return Quote(
        "odm_rack_matrix_h200_16_names.csv",
        "matrix",
        [sh],
        clean_expect(128, 16, "h200-sxm", per_server={"ram_gb": 2048, "backend_nics": 8}),
        [("", "system", "system")],
        money.total,
        note="Rack matrix without a racks row: the racks of each type in the column names ('GPU Rack (x4)', 'Spine "
        "Rack (x1)'): 4 servers per GPU rack × 4 racks = 16 servers",
    )


@quote
def dell_spares_pool_h100_16() -> Quote:
    """A spares pool after the cluster's lines: DIMMs, NICs, optics and a GPU baseboard on the shelf."""
    money = Money()
    sh = Sheet("Quote")
    title(sh, "DELL TECHNOLOGIES", "Sales Quote", "3000162219.1", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    rows = [("XE9680-CFG", f"PowerEdge XE9680, {CLEAN_H100}", 16, 256_000.0, "system"), *fabric_rows(16, NDR_2024)]
    simple(sh, money, rows)
    sh.add()
    sh.add("", "", "Spares pool (on-site, customer stock)")
    spares = [
        ("370-AHCL", "64GB RDIMM, 5600MT/s", 32, 255.0, "spare_dimm"),
        ("540-BDHB", "NVIDIA ConnectX-7 Single Port NDR OSFP Adapter", 8, 1_640.0, "spare_nic"),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver SR4 flat top", 16, 1_150.0),
        ("935-24287-0000", "NVIDIA HGX H100 8-GPU baseboard (FRU)", 1, 210_000.0, "spare_board"),
    ]
    for k, (pn, desc, qty, unit, *mark) in enumerate(spares, start=len(rows) + 1):
        sh.item(k, pn, desc, qty, usd(unit), usd(money.line(qty, unit)), mark=mark[0] if mark else None)
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "dell_spares_pool_h100_16.xlsx",
        "spares",
        [sh],
        clean_expect(128, 16, "h100-sxm", per_server={"ram_gb": 1024, "backend_nics": 8}),
        [("Quote", "system", "system"), ("Quote", "spare_dimm", "ram"), ("Quote", "spare_board", "gpu_baseboard")],
        money.total,
        note="A 'Spares pool' section (32 DIMMs, 8 NICs, 16 optics, an HGX baseboard): counted in the total, not "
        "spread over the servers (1 TB per server stays 1 TB) nor counted as a 17th server",
    )


@quote
def reseller_advance_replacement_h200_32() -> Quote:
    """Advance-replacement kit lines that say so in their own words, between the cluster's lines."""
    money = Money()
    sh = Sheet("")
    title(sh, "Meridian Compute", "Quotation", "MC-24-3301", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    rows = [
        ("SYS-821GE-TNHR", f"Supermicro SYS-821GE-TNHR, {CLEAN_H200}", 32, 292_000.0, "system"),
        ("SPR-MEM-64", "Spare: 64GB DDR5-5600 RDIMM (advance replacement pool)", 64, 255.0, "spare_dimm"),
        ("SPR-CX7", "Spare: ConnectX-7 400G NDR OSFP adapter (advance replacement pool)", 16, 1_640.0, "spare_nic"),
        *fabric_rows(32, NDR_2024),
        ("SPR-XCVR", "Advance replacement kit: 400G OSFP SR4 transceivers", 32, 1_150.0),
    ]
    simple(sh, money, rows)
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "reseller_advance_replacement_h200_32.csv",
        "spares",
        [sh],
        clean_expect(256, 32, "h200-sxm", per_server={"ram_gb": 2048, "backend_nics": 8}),
        [("", "system", "system"), ("", "spare_dimm", "ram"), ("", "spare_nic", "backend_nic")],
        money.total,
        note="Advance-replacement parts named so in their own words ('Spare: …', 'Advance replacement kit'): kept "
        "apart from the servers' memory and NICs",
    )


@quote
def distributor_price_breaks_h100_16() -> Quote:
    """A distributor's volume price breaks in three columns; the applicable tier's price is the line's."""
    money = Money()
    sh = Sheet("")
    distributor_title(sh, "TDX-24-118204")
    sh.head("Mfr P/N", "Description", "Qty", "1-9", "10-49", "50+", "Ext Price", qty=2, price=4, ext=6)
    fab = fabric(16)
    rows = [
        ("SYS-821GE-TNHR", f"Supermicro SYS-821GE-TNHR, {CLEAN_H100}", 16, (268_000.0, 255_000.0, 249_000.0), "system"),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", fab["switches"], (36_900.0, 35_500.0, 34_900.0),
         "ib_switch"),
        ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver SR4 flat top", fab["server_xcvr"],
         (1_250.0, 1_190.0, 1_150.0), "xcvr"),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver finned top", fab["twin"], (1_420.0, 1_380.0, 1_340.0)),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", fab["fibre"], (78.0, 74.0, 70.0)),
    ]  # fmt: skip
    for pn, desc, qty, tiers, *mark in rows:
        unit = tiers[0] if qty < 10 else tiers[1] if qty < 50 else tiers[2]
        sh.item(pn, desc, qty, *(usd(t) for t in tiers), usd(money.line(qty, unit)), mark=mark[0] if mark else None)
    sh.add("", "Total", "", "", "", "", usd(money.total))
    return Quote(
        "distributor_price_breaks_h100_16.csv",
        "distributor",
        [sh],
        clean_expect(128, 16, "h100-sxm", per_server={"ram_gb": 1024, "backend_nics": 8}),
        [("", "system", "system"), ("", "ib_switch", "backend_switch"), ("", "xcvr", "backend_server_link")],
        money.total,
        note="Volume price breaks in three columns (1-9, 10-49, 50+): each line takes its quantity's tier (16 servers "
        "at the 10-49 price, 128 optics at 50+)",
    )


RATE_HEAD = ("GPU", "Configuration", "Term", "Min. commitment", "$/GPU-hr", "Monthly per node (USD)")


def _rate_card(sh: Sheet, money: Money, rows: Sequence[tuple[Any, ...]]) -> None:
    for gpu, config, term, minimum, hourly, *mark in rows:
        monthly = hourly * 8 * 730
        money.line(1, hourly)
        sh.item(gpu, config, term, minimum, f"{hourly:.2f}", f"{monthly:,.0f}", mark=mark[0] if mark else None)


@quote
def broker_rate_card_2026() -> Quote:
    """A broker's rate card: $/GPU-hour and $/month per node by GPU and term; no hardware, no quantity."""
    money = Money()
    sh = Sheet("")
    dated_title(sh, "Northstar Compute Brokers", "GPU capacity rate card", "NCB-RC-2603", ("Date:", "2026-03-02"),
                [("Prices per GPU-hour, billed monthly; capacity subject to availability",)])  # fmt: skip
    sh.head(*RATE_HEAD, price=4, ext=4)
    _rate_card(sh, money, [
        ("H100 SXM 80GB", "8x H100, 2x Xeon 8480+, 2TB, 8x 400G InfiniBand", "On demand", "1 node", 2.49, "h100"),
        ("H100 SXM 80GB", "8x H100, 2x Xeon 8480+, 2TB, 8x 400G InfiniBand", "12 months", "8 nodes", 2.10),
        ("H200 SXM 141GB", "8x H200, 2x Xeon 8480+, 2TB, 8x 400G InfiniBand", "On demand", "1 node", 3.40, "h200"),
        ("B200 180GB", "8x B200, 2x Xeon 8570, 2TB, 8x 400G InfiniBand", "6 months", "16 nodes", 4.25),
        ("AMD Instinct MI300X", "8x MI300X 192GB, 2x EPYC 9454, 2TB", "On demand", "1 node", 1.95),
    ])  # fmt: skip
    return Quote(
        "broker_rate_card_2026.csv",
        "rate_card",
        [sh],
        {
            "gpus": None,
            "servers": None,
            "gpu_model": "h100-sxm",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": list(PADDING),
            "kind": "rate_card",
            "rate_count": 10,
        },
        [],
        money.total,
        note="A broker's rate card ($/GPU-hr and monthly per node by GPU and term, no quantity): reported as such, "
        "each rate beside the model's rental price, never reviewed as hardware",
    )


@quote
def broker_rate_card_eur_monthly() -> Quote:
    """A European broker's rate card in EUR per GPU-month, on a workbook."""
    money = Money()
    sh = Sheet("Rates")
    dated_title(sh, "Rheinland GPU Cloud GmbH", "Preisliste GPU-Kapazität", "RGC-2025-11", ("Datum:", "03.11.2025"))
    sh.head("GPU-Typ", "Ausstattung", "Laufzeit", "EUR pro GPU-Monat", price=3, ext=3)
    rows = [
        ("NVIDIA H100 SXM5 80GB", "8x H100 pro Knoten, 400G InfiniBand", "1 Monat", 1_750.0, "h100"),
        ("NVIDIA H200 SXM 141GB", "8x H200 pro Knoten, 400G InfiniBand", "12 Monate", 2_150.0),
        ("NVIDIA B200", "8x B200 pro Knoten, 400G InfiniBand", "12 Monate", 2_890.0),
        ("Google Cloud TPU v5p", "4 Chips pro Host", "1 Monat", 2_300.0),
    ]
    for gpu, config, term, monthly, *mark in rows:
        money.line(1, monthly)
        sh.item(gpu, config, term, f"{monthly:,.2f} €", mark=mark[0] if mark else None)
    return Quote(
        "broker_rate_card_eur_monthly.xlsx",
        "rate_card",
        [sh],
        {
            "gpus": None,
            "servers": None,
            "gpu_model": "b200-sxm",
            "currency": "EUR",
            "findings_must": [],
            "findings_must_not": list(PADDING),
            "kind": "rate_card",
            "rate_count": 4,
        },
        [],
        money.total,
        usd_per_unit=1.08,
        note="A rate card in EUR per GPU-month (German headers, 'EUR pro GPU-Monat'): its rates at 730 hours a month "
        "beside the model's rental prices",
    )


ACCELERATOR_EXPECT = not_padding(extra=["nics_below_8", "total_mismatch"])


@quote
def smc_amd_mi355x_32() -> Quote:
    """AMD Instinct MI355X servers: named and read, never compared with an NVIDIA design."""
    money = Money()
    sh = Sheet("")
    title(sh, "Cascade AI Infrastructure", "Quotation: AMD Instinct cluster", "CAI-25-0355", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    server = ("Supermicro AS-4126GS-NMR-LCC 4U liquid-cooled GPU server, 8x AMD Instinct MI355X 288GB OAM, 2x AMD "
              "EPYC 9575F 64C, 2.3TB (24x 96GB) DDR5-6400, 8x AMD Pensando Pollara 400G AI NIC")  # fmt: skip
    simple(sh, money, [("AS-4126GS-NMR-LCC", server, 32, 335_000.0, "system"), *fabric_rows(32, NDR_2024)])
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "smc_amd_mi355x_32.csv",
        "accelerator",
        [sh],
        {
            "gpus": 256,
            "servers": 32,
            "gpu_model": "amd-mi355x",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": ACCELERATOR_EXPECT,
            "recommended": False,
        },
        [("", "system", "system"), ("", "ib_switch", "backend_switch")],
        money.total,
        note="AMD Instinct MI355X servers (8 per server, EPYC, 2.3 TB): named as a platform the book does not price; "
        "its size and lines read, no NVIDIA comparison and no HGX node advice (no 'AMD CPU', no RAM target)",
    )


@quote
def dell_xe9680_mi300x_16() -> Quote:
    """Dell's XE9680 configured with AMD Instinct MI300X: the base module names the accelerator."""
    money = Money()
    sh = Sheet("Quote")
    dated_title(sh, "DELL TECHNOLOGIES", "Configured system quote", "3000199021.1", ("Quote Date:", "2024-11-04"))
    sh.head("Module", "Description", "SKU", "Qty", "Unit Price", "Extended Price", qty=3, price=4, ext=5)
    ext = money.line(16, 242_000.0)
    sh.item(
        "PowerEdge XE9680", "PowerEdge XE9680 (configured)", "210-BDZB", 16, usd(242_000.0), usd(ext), mark="system"
    )
    _module_rows(sh, "8x AMD Instinct MI300X 192GB OAM GPU, 750W", "Intel Xeon Platinum 8468 2.1G, 48C/96T",
                 (32, "64GB RDIMM, 4800MT/s, Dual Rank"))  # fmt: skip
    return Quote(
        "dell_xe9680_mi300x_16.xlsx",
        "accelerator",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "amd-mi300x",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": ACCELERATOR_EXPECT,
            "recommended": False,
        },
        [("Quote", "system", "system"), ("Quote", "base", "chassis")],
        money.total,
        note="Dell XE9680 with eight AMD Instinct MI300X named in its Base module: one server per unit, an AMD "
        "platform the book does not price",
    )


@quote
def reseller_gaudi3_16() -> Quote:
    """Intel Gaudi 3 servers from a reseller."""
    money = Money()
    sh = Sheet("")
    title(sh, "Blue Ridge Systems", "Quotation", "BRS-25-0116", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    server = ("Supermicro SYS-822GA-NGR3 8U AI server, 8x Intel Gaudi 3 HL-325L OAM 128GB, 2x Intel Xeon 6960P, "
              "1.5TB (24x 64GB) DDR5")  # fmt: skip
    simple(sh, money, [
        ("SYS-822GA-NGR3", server, 16, 158_000.0, "system"),
        ("DCS-7060DX5-64S", "Arista 7060DX5-64S 64x 400GbE switch (scale-out RoCE)", 4, 33_500.0),
    ])  # fmt: skip
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "reseller_gaudi3_16.csv",
        "accelerator",
        [sh],
        {
            "gpus": 128,
            "servers": 16,
            "gpu_model": "intel-gaudi3",
            "currency": "USD",
            "findings_must": [],
            "findings_must_not": ACCELERATOR_EXPECT,
            "recommended": False,
        },
        [("", "system", "system")],
        money.total,
        note="Intel Gaudi 3 servers (eight HL-325L OAM): named and read, no NVIDIA comparison",
    )


def _h200_2026_rows() -> list[tuple[Any, ...]]:
    server = ("Supermicro SYS-821GE-TNHR, HGX H200 8-GPU SXM5 141GB, 2x Intel Xeon Gold 6530 32C, 2TB (32x 64GB) "
              "DDR5-5600, 8x ConnectX-7 400G NDR OSFP, 1x ConnectX-6 Dx 2x100GbE, 2x 960GB M.2 boot")  # fmt: skip
    return [
        ("SYS-821GE-TNHR", server, 64, 322_000.0, "system"),
        ("MEM-DR564L-HL01-ER56", "Spare: 64GB DDR5-5600 ECC RDIMM (spares pool)", 128, 920.0, "dimm"),
        ("HDS-MUN-MZQL27T6HBLA", "7.68TB NVMe U.2 Gen4 data drive", 512, 2_300.0, "nvme"),
        *fabric_rows(64, NDR_2026),
    ]


@quote
def reseller_h200_64_2026() -> Quote:
    """A 2026 quote priced at 2026 prices (memory and NVMe after the 2025-26 rise): reviewed against the 2026 book."""
    money = Money()
    sh = Sheet("")
    dated_title(sh, "Meridian Compute", "Quotation", "MC-26-0302", ("Date:", "2026-03-02", "Valid until:",
                "2026-04-01"))  # fmt: skip
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    simple(sh, money, _h200_2026_rows())
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "reseller_h200_64_2026.csv",
        "book_2026",
        [sh],
        clean_expect(512, 64, "h200-sxm", per_server={"ram_gb": 2048, "backend_nics": 8}, book="2026-11"),
        [("", "system", "system"), ("", "dimm", "ram"), ("", "nvme", "local_nvme")],
        money.total,
        note="Dated 2026-03-02 and priced at 2026 prices (64 GB RDIMM $920, 7.68 TB NVMe $2,300): reviewed against the "
        "2026-11 book (the nearest), where those prices are honest; the 2024-10 book would call them padding",
    )


@quote
def dell_xe9680_b200_32_2026() -> Quote:
    """A Dell 2026 quote with the date in the European way ('Angebotsdatum: 15.06.2026') and its modules."""
    money = Money()
    sh = Sheet("Angebot")
    dated_title(sh, "Dell Technologies GmbH", "Angebot (konfiguriertes System)", "3000201177.1",
                ("Angebotsdatum: 15.06.2026",), [("Currency:", "USD")])  # fmt: skip
    sh.head("Module", "Description", "SKU", "Qty", "Unit Price", "Extended Price", qty=3, price=4, ext=5)
    ext = money.line(32, 402_000.0)
    sh.item(
        "PowerEdge XE9680", "PowerEdge XE9680 (configured)", "210-BDZB", 32, usd(402_000.0), usd(ext), mark="system"
    )
    _module_rows(sh, "NVIDIA HGX B200 8-GPU SXM6 180GB 1000W", "Intel Xeon Gold 6530 2.1G, 32C/64T",
                 (32, "64GB RDIMM, 5600MT/s, Dual Rank"),
                 [("Storage", "7.68TB Data Center NVMe Read Intensive E3.S Gen5", "345-BEGL", 8)])  # fmt: skip
    sh.add()
    for pn, desc, qty, unit, *mark in fabric_rows(32, NDR_2026):
        sh.item(desc, desc, pn, qty, usd(unit), usd(money.line(qty, unit)), mark=mark[0] if mark else None)
    return Quote(
        "dell_xe9680_b200_32_2026.xlsx",
        "book_2026",
        [sh],
        clean_expect(256, 32, "b200-sxm", per_server={"ram_gb": 2048, "backend_nics": 8}, book="2026-11"),
        [("Angebot", "system", "system"), ("Angebot", "base", "chassis")],
        money.total,
        note="A 2026 Dell configuration ('Angebotsdatum: 15.06.2026'), B200 with 2 TB and Gold CPUs: the 2026-11 "
        "book by its date, no padding",
    )


NVL72_RACK = "NVIDIA GB200 NVL72 rack, liquid cooled (72x B200, 36x Grace), 18 compute trays, 9 NVLink switch trays"


@quote
def nvl72_gb200_4racks_services() -> Quote:
    """Four GB200 NVL72 racks with per-rack services: integration 2.6x the book, warranty 53 % over."""
    money = Money()
    sh = Sheet("")
    dated_title(sh, "Helios Rack-Scale Systems", "Quotation: GB200 NVL72, 4 racks", "HRS-26-0211",
                ("Date:", "2026-02-11"))  # fmt: skip
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    simple(sh, money, [
        ("GB200-NVL72-R", NVL72_RACK, 4, 2_850_000.0, "rack"),
        ("SVC-NVL72-L11", "Rack-level integration and L11 validation, per rack", 4, 94_000.0, "integration"),
        ("SVC-NVL72-INST", "On-site installation per rack: placement and power-on", 4, 1_100.0, "installation"),
        ("CDU-120-IR", "In-rack CDU 120 kW liquid-to-liquid, per rack", 4, 30_000.0, "cdu"),
        ("FWK-NVL72", "Facility water hook-up and secondary loop, per rack", 4, 21_000.0, "water"),
        ("WTY-NVL72-3Y", "3-year hardware warranty, next business day, per rack", 4, 165_000.0, "warranty"),
        ("MQ3400", "NVIDIA Quantum-X800 Q3400 144-port XDR switch", 2, 172_000.0, "switch"),
    ])  # fmt: skip
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "nvl72_gb200_4racks_services.csv",
        "rack_scale",
        [sh],
        {
            "gpus": 288,
            "servers": 72,
            "gpu_model": "gb200-nvl72",
            "currency": "USD",
            "racks": 4,
            "book": "2026-11",
            "findings_must": ["price_above_book"],
            "findings_must_not": not_padding("price_above_book", extra=["extended_mismatch", "total_mismatch"]),
            "above_book_rows": ["integration", "warranty"],
        },
        [
            ("", "rack", "system"),
            ("", "integration", "integration"),
            ("", "installation", "installation_rack"),
            ("", "cdu", "liquid_cooling"),
            ("", "water", "liquid_cooling"),
            ("", "warranty", "warranty"),
        ],
        money.total,
        note="Four NVL72 racks with services per rack: integration $94k (2.6x the book's 18 trays x $2,000), warranty "
        "$165k for 3 years (53 % over 18 x 3 x $2,000); installation, CDU (120 kW) and water honest; 4 racks, not 72 "
        "servers",
    )


@quote
def nvl72_gb300_2racks_honest() -> Quote:
    """Two GB300 NVL72 racks with honest per-rack services on a workbook."""
    money = Money()
    sh = Sheet("Quote")
    dated_title(sh, "Cascade Rack Integration", "Rack-scale quotation", "CRI-26-0420", ("Quote date", "2026-04-20"))
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    simple(sh, money, [
        ("GB300-NVL72", "NVIDIA GB300 NVL72 rack (72x Blackwell Ultra 288GB, 36x Grace), liquid cooled", 2,
         3_520_000.0, "rack"),
        ("L11-GB300", "L11 rack integration and validation, per rack", 2, 37_500.0, "integration"),
        ("CDU-IR-140", "In-rack CDU 140 kW, per rack", 2, 34_000.0, "cdu"),
        ("WTY-GB300-3Y", "3-year warranty per rack", 2, 112_000.0, "warranty"),
    ])  # fmt: skip
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "nvl72_gb300_2racks_honest.xlsx",
        "rack_scale",
        [sh],
        {
            "gpus": 144,
            "servers": 36,
            "gpu_model": "gb300-nvl72",
            "currency": "USD",
            "racks": 2,
            "book": "2026-11",
            "findings_must": [],
            "findings_must_not": not_padding(extra=["extended_mismatch", "total_mismatch"]),
        },
        [("Quote", "rack", "system"), ("Quote", "integration", "integration"), ("Quote", "warranty", "warranty")],
        money.total,
        note="Two GB300 NVL72 racks, integration, CDU and warranty per rack within the book's per-rack prices",
    )


@quote
def reseller_nic_kit_bundle_h100_16() -> Quote:
    """A network kit sold as one line per server: 8x 400G adapters with their optics (a bundle)."""
    money = Money()
    sh = Sheet("")
    title(sh, "Lakeside AI Systems", "Quotation", "LAS-24-1201", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    server = ("Supermicro SYS-821GE-TNHR, HGX H100 8-GPU SXM5 80GB, 2x Intel Xeon Gold 6530 32C, 1TB (16x 64GB) DDR5, "
              "1x ConnectX-6 Dx 2x100GbE")  # fmt: skip
    simple(sh, money, [
        ("SYS-821GE-TNHR", server, 16, 242_000.0, "system"),
        ("NET-KIT-8X400", "Network kit: 8x 400G adapters with optics", 16, 22_000.0, "kit"),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 4, 36_900.0),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver finned top", 64, 1_340.0),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 128, 70.0),
    ])  # fmt: skip
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "reseller_nic_kit_bundle_h100_16.csv",
        "bundle",
        [sh],
        {
            **clean_expect(128, 16, "h100-sxm", per_server={"ram_gb": 1024}),
            "bundle_row": "kit",
            "findings_must_not": list(PADDING),
        },
        [("", "system", "system")],
        money.total,
        note="'Network kit: 8x 400G adapters with optics' at $22,000 per server: a bundle; read as one back-end NIC "
        "it would claim 112 missing NICs (refused); split into backend_nic x 8 and backend_server_link x 8 it prices",
    )


@quote
def dell_nic_kit_bundle_h200_32() -> Quote:
    """A Dell-style quote with a per-server 'fabric kit' bundle of NICs, optics and fibres."""
    money = Money()
    sh = Sheet("Quote")
    title(sh, "DELL TECHNOLOGIES", "Sales Quote", "3000176510.1", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    simple(sh, money, [
        ("XE9680-CFG", "PowerEdge XE9680, HGX H200 8-GPU, 2x Intel Xeon Gold 6530, 2TB (32x 64GB) DDR5", 32, 276_000.0,
         "system"),
        ("FAB-KIT-NDR8", "Compute fabric kit per server: 8x NDR 400G adapters, 8x OSFP transceivers and 8x MPO fibres",
         32, 22_600.0, "kit"),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 8, 36_900.0),
        ("MMA4Z00-NS", "NVIDIA 800G twin-port OSFP transceiver finned top", 128, 1_340.0),
        ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 128, 70.0),
    ])  # fmt: skip
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "dell_nic_kit_bundle_h200_32.xlsx",
        "bundle",
        [sh],
        {
            **clean_expect(256, 32, "h200-sxm", per_server={"ram_gb": 2048}),
            "bundle_row": "kit",
            "findings_must_not": list(PADDING),
        },
        [("Quote", "system", "system")],
        money.total,
        note="A per-server 'compute fabric kit' (8 NICs, 8 optics, 8 fibres) on one line: a bundle to split, never "
        "one NIC per server",
    )


@quote
def reseller_nvaie_below_book_h100_32() -> Quote:
    """NVIDIA AI Enterprise for five years quoted well below the book: saved at the quoted price."""
    money = Money()
    sh = Sheet("")
    title(sh, "Northwind AI Solutions", "Quotation", "NAS-24-9004", "Example Neocloud Inc.")
    sh.head(*ITEM_HEAD, qty=3, price=4, ext=5)
    simple(sh, money, [
        ("SYS-821GE-TNHR", f"Supermicro SYS-821GE-TNHR, {CLEAN_H100}", 32, 255_000.0, "system"),
        ("NVAIE-5Y", "NVIDIA AI Enterprise 5-year subscription per GPU (promotional)", 256, 10_000.0, "nvaie"),
        *fabric_rows(32, NDR_2024),
    ])  # fmt: skip
    sh.add("", "", "Total", "", "", usd(money.total))
    return Quote(
        "reseller_nvaie_below_book_h100_32.csv",
        "bundle",
        [sh],
        {
            **clean_expect(256, 32, "h100-sxm", per_server={"ram_gb": 1024, "backend_nics": 8}),
            "findings_must": ["nvaie_license"],
            "findings_must_not": not_padding("nvaie_license", extra=["total_mismatch", "missing_item"]),
            "savings_at_most": {"nvaie_license": 2_560_000.0},
            "savings_at_least": {"nvaie_license": 2_560_000.0},
        },
        [("", "system", "system"), ("", "nvaie", "software_licence")],
        money.total,
        note="NVIDIA AI Enterprise 5 years at $10,000 per GPU ($2.56 M), below the book's 5 x $4,500: saved at the "
        "quoted $2.56 M, never withheld for the book's $5.76 M",
    )


def readme(entries: Sequence[dict[str, Any]]) -> str:
    """The corpus index: one line per file with its size, model, currency and what makes it hard."""
    lines = [
        "# Quote corpus for quote review (issues 11, 22 and 38)",
        "",
        "SYNTHETIC quotes written the way vendors write real ones, for `tests/test_quote_corpus.py` and",
        "`tests/test_quote_metamorphic.py`. Generated with their expectations (`expected.yaml`) by",
        "`python tests/quote_corpus/make_corpus.py`; edit the script, not the files. None is a real quote.",
        "",
        "| file | style | servers | GPU | currency | must raise | quirks |",
        "|---|---|---|---|---|---|---|",
    ]
    for e in entries:
        x = e["expect"]
        must = ", ".join(x["findings_must"]) or "nothing"
        lines.append(
            f"| `{e['file']}` | {e['style']} | {x['servers'] or '-'} | {x['gpu_model'] or '-'} | {x['currency']} | "
            f"{must} | {e['note']} |"
        )
    return "\n".join(lines) + "\n"


def main(out: Path = HERE) -> None:
    """Write every quote, expected.yaml and README.md into ``out``."""
    entries = []
    for make in QUOTES:
        q = make()
        data = write_csv(q) if q.file.endswith(".csv") else write_xlsx(q)
        (out / q.file).write_bytes(data)
        entries.append(entry(q))
    header = (
        "# Expectations of the quote corpus, written by make_corpus.py (do not edit by hand; edit the script).\n"
        "# servers_quoted: what the user types in the app (null = the app infers it from the quote);\n"
        "# usd_per_unit: the exchange rate the user gives for a non-USD quote; quote_total: the quote's net total\n"
        "# in its own currency, excluding VAT/tax, as the file lists it (per_server_copies: how many times the\n"
        "# cluster buys what a per-server file lists); layout: header row, item rows (as the file shows them) and\n"
        "# 0-based quantity / unit price / extended columns, for the metamorphic tests.\n"
    )
    text = header + yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=120)
    (out / "expected.yaml").write_text(text, encoding="utf-8")
    (out / "README.md").write_text(readme(entries), encoding="utf-8")
    print(f"{len(entries)} quotes, {len({e['style'] for e in entries})} styles")


if __name__ == "__main__":
    main()
