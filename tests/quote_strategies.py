"""Hypothesis strategies that write OEM-style quotes nobody here wrote by hand (issue 22).

:func:`quote_specs` draws what a quote offers — its style (Dell base line with configuration sub-items, reseller
lines with the configuration in the description, per-server and total quantity columns, HPE list / discount /
net), the language of its column headers (English, Chinese, Japanese, Korean, German, French, Spanish), its
currency and how the document says it, the servers, GPU model and configuration (padded or not), free lines
("Included", "N/C", 0.00, no charge), discount lines under any name, alternatives (Option A/B as sheets or as
sections) and random price multipliers that push lines far off the price book; :func:`render` writes it as CSV or
XLSX bytes. The spec keeps what the quote says independently of any reader (its line totals, options), so the
properties can check the review against it.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

import openpyxl
from hypothesis import strategies as st

LANGUAGES = ("en", "zh", "ja", "ko", "de", "fr", "es")
HEADERS = {
    "en": ["Part Number", "Description", "Qty", "Unit Price", "Extended Price"],
    "zh": ["型号", "描述", "数量", "单价", "金额"],
    "ja": ["品番", "品名・仕様", "数量", "単価", "金額"],
    "ko": ["품번", "품명", "수량", "단가", "금액"],
    "de": ["Artikelnummer", "Bezeichnung", "Menge", "Einzelpreis", "Gesamtpreis"],
    "fr": ["Référence", "Désignation", "Qté", "Prix unitaire HT", "Montant HT"],
    "es": ["Referencia", "Descripción", "Cantidad", "Precio unitario", "Importe"],
}
PER_SERVER_HEADERS = {
    "en": ["Part number", "Description", "Qty/Server", "Total Qty", "Unit Price", "Total Price"],
    "zh": ["型号", "描述", "单台数量", "总数量", "单价", "金额"],
    "ja": ["品番", "品名", "1台あたり数量", "合計数量", "単価", "金額"],
    "ko": ["품번", "품명", "서버당 수량", "총 수량", "단가", "금액"],
    "de": ["Artikelnummer", "Bezeichnung", "Menge pro Server", "Gesamtmenge", "Einzelpreis", "Gesamtpreis"],
    "fr": ["Référence", "Désignation", "Qté par serveur", "Quantité totale", "Prix unitaire", "Montant"],
    "es": ["Referencia", "Descripción", "Cantidad por servidor", "Cantidad total", "Precio unitario", "Importe"],
}
HPE_HEADER = ["Product #", "Description", "Qty", "Unit List Price", "Disc %", "Unit Net Price", "Ext Net Price"]
TOTAL_WORD = {"en": "Total", "zh": "合计", "ja": "合計", "ko": "합계", "de": "Summe", "fr": "Total HT", "es": "Total"}
OPTION_WORD = {
    "en": ("Option A", "Option B"),
    "zh": ("方案一", "方案二"),
    "ja": ("オプションA", "オプションB"),
    "ko": ("옵션 A", "옵션 B"),
    "de": ("Variante A", "Variante B"),
    "fr": ("Variante A", "Variante B"),
    "es": ("Opción A", "Opción B"),
}
SELECT_ONE = {"en": "Two alternatives: please select one option.", "zh": "以下两种方案二选一。",
              "ja": "以下のいずれかを選択してください。", "ko": "두 가지 옵션 중 하나를 선택하십시오 (택1).",
              "de": "Bitte eine der Varianten wählen.", "fr": "Deux options au choix.",
              "es": "Elegir una de las opciones."}  # fmt: skip
CURRENCIES = {"USD": 1.0, "EUR": 1.08, "CNY": 0.14, "JPY": 0.0067}
CURRENCY_LINE = {"USD": "All prices in USD", "EUR": "Alle Preise in EUR", "CNY": "币种：人民币（CNY）",
                 "JPY": "金額単位：円"}  # fmt: skip
GPU_BOARDS = {"H100": 214_000.0, "H200": 252_000.0, "B200": 330_000.0}
DISCOUNT_WORDS = ("Special bid discount", "Promotional credit", "Volume rebate", "Adjustment", "Project price credit")
FREE_WORDS = ("Included", "N/C", "no charge", "0.00", "")


@dataclass
class Line:
    """One item of a spec: quantities per server (``per``) or for the order, and the unit price [USD]."""

    part: str
    description: str
    quantity: float
    unit_usd: float | None
    sub_item: bool = False
    free_word: str = ""
    per: float | None = None

    @property
    def extended_usd(self) -> float:
        return 0.0 if self.sub_item or self.unit_usd is None else round(self.quantity * self.unit_usd, 2)


@dataclass
class Spec:
    """A generated quote: its options (each a list of lines), its style, header language and currency."""

    style: str
    language: str
    currency: str
    servers: int
    options: list[list[Line]]
    option_layout: str = "sheets"  # or "sections"
    title: list[str] = field(default_factory=list)
    xlsx: bool = False
    stated: int | None = None
    """The server count the title block states ("Configuration quantity: N nodes"); may disagree with the lines."""

    @property
    def rate(self) -> float:
        """USD per unit of the quote's currency."""
        return CURRENCIES[self.currency]

    def option_total_usd(self, k: int) -> float:
        """What option ``k`` (0-based) charges, as the spec wrote it [USD]."""
        return sum(ln.extended_usd for ln in self.options[k])


def _money(value_usd: float, currency: str) -> Any:
    value = value_usd / CURRENCIES[currency]
    if currency == "USD":
        return f"(${-value:,.2f})" if value < 0 else f"${value:,.2f}"
    if currency == "EUR":
        text = f"{abs(value):,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")
        return f"{'-' if value < 0 else ''}{text} €"
    if currency == "CNY":
        return f"-¥{-value:,.2f}" if value < 0 else f"¥{value:,.2f}"
    return f"{value:,.0f}"


@st.composite
def _node(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "gpu": draw(st.sampled_from(sorted(GPU_BOARDS))),
        "cpu": draw(st.sampled_from([("Intel Xeon Gold 6530 32C", 2150.0), ("Intel Xeon Platinum 8480+ 56C", 4700.0)])),
        "dimms": draw(st.sampled_from([16, 32])),
        "nics": draw(st.sampled_from([4, 8])),
        "dpus": draw(st.integers(0, 2)),
    }


def _price(draw: st.DrawFn, book: float) -> float:
    return round(book * draw(st.sampled_from([0.25, 0.8, 1.0, 1.0, 1.3, 4.0])), 2)


@st.composite
def _option(draw: st.DrawFn, style: str, servers: int) -> list[Line]:
    """The lines of one configuration."""
    node = draw(_node())
    gpus = 8 * servers
    cpu_name, cpu_usd = node["cpu"]
    parts = [
        ("GPU-HGX", f"NVIDIA HGX {node['gpu']} 8-GPU SXM baseboard", 1, GPU_BOARDS[node["gpu"]]),
        ("CPU", cpu_name, 2, cpu_usd),
        ("MEM-64G", "64GB DDR5-5600 RDIMM", node["dimms"], 260.0),
        ("MCX75310AAS-NEAT", "NVIDIA ConnectX-7 400G NDR single-port OSFP adapter", node["nics"], 1650.0),
    ]
    if node["dpus"]:
        parts.append(("900-9D3B6-00CV-AA0", "NVIDIA BlueField-3 B3220 DPU 2x200GbE", node["dpus"], 2600.0))
    lines: list[Line] = []
    if style == "reseller":
        config = ", ".join(f"{q}x {d}" if q > 1 else d for _, d, q, _ in parts)
        unit = sum(q * p for _, _, q, p in parts) + 12_000
        lines.append(Line("SYS-821GE-TNHR", f"Supermicro SYS-821GE-TNHR, {config}", servers, _price(draw, unit)))
    elif style == "dell":
        lines.append(Line("210-BDZB", "PowerEdge XE9680 Rack Server", servers, _price(draw, 280_000.0)))
        lines += [Line(p, d, q, None, sub_item=True) for p, d, q, _ in parts]
    else:  # per_server and hpe: one priced line per component
        lines.append(Line("SYS-821GE-TNHR", "Supermicro SYS-821GE-TNHR 8U barebone chassis", servers, 7_900.0,
                          per=1))  # fmt: skip
        lines += [Line(p, d, q * servers, _price(draw, u), per=q) for p, d, q, u in parts]
    lines.append(Line("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", max(1, servers // 4), 36_000.0))
    lines.append(Line("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver, flat top", gpus, _price(draw, 850.0)))
    if draw(st.booleans()):
        free = draw(st.sampled_from(FREE_WORDS))
        unit = None if free in ("Included", "N/C", "no charge", "") else 0.0
        years = draw(st.sampled_from([1, 3, 5]))
        text = f"NVIDIA AI Enterprise {years}-year subscription per GPU"
        if draw(st.booleans()):
            lines.append(Line("NVAIE", text, gpus, unit, free_word=free or "Included"))
        else:
            lines.append(Line("NVAIE", text, gpus, _price(draw, 4_500.0 * years)))
    if draw(st.booleans()):
        lines.append(Line("RAIL", "Rail kit", servers, None, free_word=draw(st.sampled_from(FREE_WORDS[:3]))))
    if draw(st.booleans()):
        total = sum(ln.extended_usd for ln in lines)
        share = draw(st.sampled_from([0.01, 0.05, 0.2]))
        lines.append(Line("", draw(st.sampled_from(DISCOUNT_WORDS)), 1, -round(total * share, 2)))
    return lines


@st.composite
def quote_specs(draw: st.DrawFn, languages: tuple[str, ...] = LANGUAGES, max_options: int = 2) -> Spec:
    """A generated quote (see the module docstring)."""
    style = draw(st.sampled_from(["dell", "reseller", "per_server", "hpe"]))
    language = "en" if style == "hpe" else draw(st.sampled_from(languages))
    currency = draw(st.sampled_from(["USD", "EUR", "CNY", "JPY"]))
    servers = draw(st.integers(1, 64))
    n_options = draw(st.integers(1, max_options))
    options = [draw(_option(style, servers)) for _ in range(n_options)]
    layout = draw(st.sampled_from(["sheets", "sections"])) if n_options > 1 else "sheets"
    stated = draw(st.sampled_from([None, servers, servers * 2])) if servers > 1 else None
    return Spec(style, language, currency, servers, options, layout, xlsx=draw(st.booleans()) or layout == "sheets",
                stated=stated)  # fmt: skip


# --- writing ---------------------------------------------------------------------------------------------------------


def _rows(spec: Spec, lines: list[Line]) -> list[list[Any]]:
    """The item rows of one configuration, written in the spec's style."""
    out: list[list[Any]] = []
    for ln in lines:
        if ln.sub_item:
            price: list[Any] = ["", ""]
        elif ln.unit_usd is None or (ln.unit_usd == 0 and ln.free_word):
            price = [ln.free_word, ln.free_word]
        else:
            price = [_money(ln.unit_usd, spec.currency), _money(ln.extended_usd, spec.currency)]
        description = ("   " if ln.sub_item else "") + ln.description
        if spec.style == "per_server":
            per = ln.per if ln.per is not None else ""
            total = ln.quantity
            out.append([ln.part, description, per, total, *price])
        elif spec.style == "hpe":
            net = price[0]
            list_price = _money(ln.unit_usd / 0.6, spec.currency) if ln.unit_usd else net
            out.append([ln.part, description, ln.quantity, list_price, "40" if ln.unit_usd else "", net, price[1]])
        else:
            out.append([ln.part, description, ln.quantity, *price])
    return out


def _header(spec: Spec) -> list[str]:
    if spec.style == "per_server":
        return PER_SERVER_HEADERS[spec.language]
    if spec.style == "hpe":
        return HPE_HEADER
    return HEADERS[spec.language]


def _total_row(spec: Spec, label: str, amount_usd: float) -> list[Any]:
    width = len(_header(spec))
    return ["", label, *[""] * (width - 3), _money(amount_usd, spec.currency)]


def sheets(spec: Spec) -> list[tuple[str, list[list[Any]]]]:
    """The spec as (sheet name, rows): options on sheets under a cover, or as sections of one sheet."""
    title = [["SYNTHETIC SAMPLE made for neoplan tests; not a real quote"], [CURRENCY_LINE[spec.currency]]]
    if spec.stated:
        title.append([f"Configuration quantity: {spec.stated} nodes"])
    words = OPTION_WORD[spec.language]
    total = TOTAL_WORD[spec.language]
    if len(spec.options) == 1:
        rows = [*title, _header(spec), *_rows(spec, spec.options[0])]
        return [("Quote", [*rows, _total_row(spec, total, spec.option_total_usd(0))])]
    if spec.option_layout == "sheets":
        out = [("Cover", [*title, [SELECT_ONE[spec.language]]])]
        for k, lines in enumerate(spec.options):
            rows = [[words[k]], [CURRENCY_LINE[spec.currency]], _header(spec), *_rows(spec, lines)]
            out.append((words[k], [*rows, _total_row(spec, f"{total} {words[k]}", spec.option_total_usd(k))]))
        return out
    rows = [*title, _header(spec)]
    width = len(_header(spec))
    for k, lines in enumerate(spec.options):
        rows += [["", words[k], *[""] * (width - 2)], *_rows(spec, lines)]
        rows += [_total_row(spec, f"{total} {words[k]}", spec.option_total_usd(k)), []]
    return [("Quote", rows)]


def render(spec: Spec) -> tuple[bytes, str]:
    """The spec as file bytes and a file name (CSV when it fits one sheet and the spec says so, else XLSX)."""
    book = sheets(spec)
    if len(book) == 1 and not spec.xlsx:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(book[0][1])
        return buf.getvalue().encode("utf-8"), "generated.csv"
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in book:
        ws = wb.create_sheet(name)
        for row in rows:
            ws.append(row)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue(), "generated.xlsx"
