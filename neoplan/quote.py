"""OEM quote review: import a quote, classify its lines, find the padding, price the recommended design.

A quote comes as CSV or XLSX, the way OEMs and NVIDIA partners send them::

    data = Path("quote.xlsx").read_bytes()
    review = review_quote(read_quote(data, "quote.xlsx"), servers_quoted=1)
    review.to_dict()          # {lines, classified, unmatched, findings, quote_total_usd, recommended_total_usd, …}
    scenario = apply_recommendations(review)   # the quote's cluster with the article's optimized BoM

Import
------
* The header row may sit anywhere in the first :data:`HEADER_SCAN_ROWS` rows of a sheet; columns are found by
  name variants (part number / SKU / PN, description, qty / quantity, unit price, extended / total price).
  XLSX workbooks are read sheet by sheet (read-only, cached values); sheets without such a header (cover
  letters, terms, summaries) are skipped. A formula cell counts with the value Excel last saved for it; a
  workbook written by a script and never opened in a spreadsheet has no such values, and those cells read
  as empty.
* Money is read in **US format only**: ``1234``, ``$1,234.00``, ``USD 1,234.00``, ``(1,234.00)`` (negative).
  European format (``1.234,00``, ``12,50``) is out of scope: a price cell in that format raises
  :class:`QuoteError` naming the line. Prices in another currency (€, £, EUR, …) are refused the same way.
* Blank, subtotal / total, tax, comment and section-title rows are skipped (section titles are kept as the
  ``section`` of the lines below them); a row with a price but no quantity counts as quantity 1.
* ``servers_quoted`` multiplies every quantity: 1 for a quote of the whole cluster, N for a quote that prices
  one server when N are bought. One multiplier applies to the whole quote (mixed per-server and per-cluster
  sections are out of scope).
* Files larger than :data:`MAX_QUOTE_BYTES`, empty, binary or without a price column raise
  :class:`QuoteError` with a one-line message.

Review
------
Each line's part number and description are matched against ``data/quote_rules.csv`` (regex → component,
category, price-book key; first match wins). Unmatched lines are listed, never dropped. Findings name the
lines they rest on, the reason (SemiAnalysis, *AI Neocloud Playbook*, 2024-10-03; BRIEF.md §2) and the saving
[USD] at the quote's own unit prices for what is removed and at price-book prices for what replaces it. A
negative saving is what following the advice costs (e.g. adding missing optics). Findings may overlap (two
findings can remove the same optics); the headline saving is the quote minus the recommended design, compared
component by component over the components the quote prices.
"""

from __future__ import annotations

import csv
import io
import math
import re
import zipfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .model import Result, evaluate
from .pricebook import DATA_DIR, PriceBook, default_platforms, default_price_book
from .scenario import Scenario, ScenarioError, load_scenario

RULES_FILE = DATA_DIR / "quote_rules.csv"
SAMPLES_DIR = DATA_DIR / "quotes"
MAX_QUOTE_BYTES = 5_000_000
MAX_XLSX_EXPANDED_BYTES = 200_000_000
HEADER_SCAN_ROWS = 30
MAX_ROWS_PER_SHEET = 20_000
MAX_COLUMNS = 60
MAX_SHEETS = 30
MAX_CELL_CHARS = 500
MAX_MONEY_USD = 1e12
MAX_QUANTITY = 1e8
DEFAULT_PRICE_TOLERANCE = 0.15
RAM_GB_PER_SERVER_RECOMMENDED = 1024.0
BACKEND_NICS_RECOMMENDED = 8
UFM_REQUIRED_ABOVE_GPUS = 2048
MISMATCH_SHARE = 0.005
CENT_USD = 0.01
CATEGORIES = (
    "compute",
    "backend_network",
    "frontend_network",
    "oob_network",
    "storage",
    "management",
    "other",
    "software",
    "discount",
)

FINDINGS = {
    "cpu_top_bin": (
        "Top-bin CPUs",
        "LLM training barely uses the CPU: a mid-range Intel Xeon does the job (SemiAnalysis, AI Neocloud "
        "Playbook, 2024-10-03).",
    ),
    "ram_over_1tb": (
        "More than 1 TB RAM per server",
        "1 TB of DDR5 per HGX server is enough; RAM is the 4th most expensive item of the node.",
    ),
    "dpu_bluefield": (
        "BlueField-3 DPUs",
        "Drop the BlueField-3 DPUs and use one plain ConnectX NIC for the front end: a BlueField-3 costs more "
        "than an extra 54-core CPU and a neocloud does not need its offloads.",
    ),
    "frontend_spectrum": (
        "NVIDIA Spectrum front end",
        "The front end (internet, scheduler, storage) needs 25-50 Gbit/s per GPU on generic Ethernet switches "
        "(Arista, Cisco, OEM/ODM) with third-party optics; NVIDIA Spectrum SN4600-class switches and LinkX "
        "optics cost more for no gain.",
    ),
    "oob_spectrum": (
        "NVIDIA Spectrum out-of-band",
        "The out-of-band network only carries 1 GbE management of BMCs, PDUs and switches: any generic 1 GbE "
        "switch does; a Spectrum SN2201 is hard to justify.",
    ),
    "nvaie_license": (
        "NVIDIA AI Enterprise licences",
        "NVIDIA AI Enterprise / Base Command Manager costs $4,500 per GPU per year at MSRP; the article "
        "recommends dropping it (drivers, SLURM or Kubernetes and monitoring are free to run).",
    ),
    "nics_below_8": (
        "Fewer than 8 back-end NICs per server",
        "Fewer than 8 back-end NICs halves back-end bandwidth; most customers will not accept less than "
        "8×400G per HGX server.",
    ),
    "price_above_book": (
        "Unit price above the price book",
        "The unit price is well above the price book's street price for the same item: ask for a better price "
        "or a third-party equivalent.",
    ),
    "missing_item": (
        "Missing item",
        "The quote lacks parts the design needs to work; budget them now so that the comparison is like for "
        "like and the cluster can be cabled on delivery.",
    ),
    "optics_everywhere": (
        "Optics on every switch-to-switch link",
        "A virtual modular switch puts the spine rack between the leaf racks so leaf-to-spine links are "
        "passive DAC: cheaper and more reliable than optics (lasers are the main failure part); -24.9% "
        "back-end cost at 1,024 GPUs.",
    ),
    "backend_nonblocking": (
        "Non-blocking back end",
        "For small clusters the article recommends 2:1 leaf oversubscription: pod-local traffic (TP/EP/PP) "
        "stays on the leaves and only data-parallel traffic crosses the spines; at 1,024 GPUs spines fall "
        "16 → 8 and the back end costs 31.6% less than the reference, with spare leaf ports to add spines later.",
    ),
    "extended_mismatch": (
        "Quantity × unit price ≠ extended price",
        "The line's arithmetic does not add up; one of the figures is wrong. Ask the OEM which one holds.",
    ),
    "cpu_amd": (
        "AMD CPUs in the GPU server",
        "The article prefers Intel in HGX servers: NCCL and virtualization are easier; on AMD you need "
        "NCCL_IB_PCI_RELAXED_ORDERING and NPS tuning.",
    ),
}
"""Finding code → (title, reason). Reasons paraphrase BRIEF.md §2 (SemiAnalysis, 2024-10-03)."""

_SWAP_FINDINGS = ("cpu_top_bin", "frontend_spectrum", "oob_spectrum")
_DROP_FINDINGS = ("nvaie_license", "dpu_bluefield")
_ROLES = ("part", "description", "quantity", "unit", "extended")
_ROLE_EXACT = {
    "part": {
        "part",
        "part number",
        "part no",
        "part #",
        "part num",
        "pn",
        "p n",
        "p/n",
        "sku",
        "mfr part",
        "mfr part #",
        "mfr part number",
        "mfr #",
        "manufacturer part number",
        "mpn",
        "item number",
        "item no",
        "item #",
        "product code",
        "product number",
        "product id",
        "catalog number",
        "model",
        "model number",
        "material",
        "vendor part",
        "part id",
    },
    "description": {
        "description",
        "desc",
        "item description",
        "product description",
        "item",
        "product",
        "details",
        "name",
        "item name",
        "component",
        "line description",
        "configuration",
        "product name",
    },
    "quantity": {"qty", "quantity", "qty ordered", "units", "count", "quant", "qnty", "no of units", "ordered"},
    "unit": {
        "unit price",
        "price",
        "unit cost",
        "price each",
        "each",
        "unit list price",
        "unit net price",
        "net unit price",
        "unit sell price",
        "sell price",
        "price per unit",
        "list price",
        "net price",
        "cost",
        "unit",
        "rate",
    },
    "extended": {
        "extended price",
        "ext price",
        "extended",
        "total",
        "total price",
        "line total",
        "amount",
        "ext",
        "extended net price",
        "extended list price",
        "total amount",
        "net amount",
        "ext amount",
        "extended cost",
        "total cost",
        "line amount",
        "ext net price",
        "total net price",
    },
}
_ROLE_FUZZY = (
    ("quantity", re.compile(r"\bqty\b|quantit")),
    ("extended", re.compile(r"extend|\btotal\b|amount|\bext\b")),
    ("unit", re.compile(r"price|cost")),
    ("part", re.compile(r"\bpart\b|\bsku\b|\bp ?n\b")),
    ("description", re.compile(r"descr")),
)
_CURRENCY_WORDS = re.compile(r"\b(usd|us|dollars?)\b|\$")
_FOREIGN_CURRENCY = re.compile(r"[€£¥₹]|\b(EUR|GBP|CNY|RMB|JPY|INR|CHF)\b", re.IGNORECASE)
_US_NUMBER = re.compile(r"^(\d{1,3}(,\d{3})+|\d+)(\.\d*)?$|^\.\d+$")
_EU_NUMBER = re.compile(r"^\d{1,3}(\.\d{3})+(,\d*)?$|^\d+,\d{1,2}$")
_SPACED_THOUSANDS = re.compile(r"^\d{1,3}([ \u00a0\u202f\u2009]\d{3})+(\.\d*)?$")
_ZERO_WORDS = re.compile(r"^(included|incl\.?|n/?c|no charge|free|nil|bundled|at no cost)$", re.IGNORECASE)
_QUANTITY = re.compile(r"^[x×]?\s*(\d{1,3}(,\d{3})+|\d+)(\.\d+)?\s*(ea\.?|each|pcs?\.?|units?|x|×|nos?\.?)?$")
_TOTAL_ANYWHERE = re.compile(r"\b(sub[\s-]?total|grand[\s-]?total)\b", re.IGNORECASE)
_TOTAL_EDGE = re.compile(
    r"^\s*(quote\s+|net\s+|section\s+)?total\b|\btotal\s*[:(]?\s*(\(?usd\)?|\$)?\s*:?\s*$", re.IGNORECASE
)
_GRAND_TOTAL = re.compile(r"grand[\s-]?total|^\s*(quote\s+|net\s+)?total\b", re.IGNORECASE)
_TAX = re.compile(r"^\s*(sales\s+)?(tax|vat|gst)\b", re.IGNORECASE)
_SIZE = {
    "GB": re.compile(r"(\d+(?:\.\d+)?)\s*GB\b", re.IGNORECASE),
    "TB": re.compile(r"(\d+(?:\.\d+)?)\s*TB\b", re.IGNORECASE),
    "year": re.compile(r"(\d+)\s*-?\s*(?:yr|year)s?\b", re.IGNORECASE),
}
_XLSX_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


class QuoteError(ValueError):
    """A quote that cannot be read; the one-line message says why and is shown as is."""


# --- rules ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One classification rule of ``data/quote_rules.csv``."""

    pattern: re.Pattern[str]
    component: str
    category: str
    price_key: str
    findings: tuple[str, ...]
    recommended_key: str
    size_unit: str
    book_size: float
    line: int


def read_rules(path: Path = RULES_FILE, book: PriceBook | None = None) -> tuple[Rule, ...]:
    """Rules in file order; raises QuoteError naming the line of a bad rule (regex, key, category, code)."""
    book = book or default_price_book()
    text = path.read_text(encoding="utf-8")
    numbered = [(i, ln) for i, ln in enumerate(text.splitlines(), start=1) if ln.strip() and not ln.startswith("#")]
    reader = csv.DictReader([ln for _, ln in numbered])
    rules = []
    for (line, _), raw in zip(numbered[1:], reader, strict=True):
        rules.append(_rule(raw, line, book, path.name))
    _check_components(rules, path.name)
    return tuple(rules)


def _rule(raw: Mapping[str, str], line: int, book: PriceBook, file: str) -> Rule:
    where = f"{file} line {line}"
    try:
        pattern = re.compile(raw["pattern"], re.IGNORECASE)
    except re.error as exc:
        raise QuoteError(f"{where}: bad pattern ({exc})") from None
    for col in ("price_key", "recommended_key"):
        if raw[col] and raw[col] not in book:
            raise QuoteError(f"{where}: {col} {raw[col]!r} is not in the price book")
    if raw["category"] not in CATEGORIES:
        raise QuoteError(f"{where}: category must be one of {', '.join(CATEGORIES)}, got {raw['category']!r}")
    findings = tuple(c for c in raw["findings"].split(";") if c)
    unknown = [c for c in findings if c not in FINDINGS]
    if unknown:
        raise QuoteError(f"{where}: unknown finding code {unknown[0]!r}")
    if raw["size_unit"] and raw["size_unit"] not in _SIZE:
        raise QuoteError(f"{where}: size_unit must be one of {', '.join(_SIZE)}, got {raw['size_unit']!r}")
    return Rule(
        pattern=pattern,
        component=raw["component"],
        category=raw["category"],
        price_key=raw["price_key"],
        findings=findings,
        recommended_key=raw["recommended_key"],
        size_unit=raw["size_unit"],
        book_size=float(raw["book_size"] or 1.0),
        line=line,
    )


def _check_components(rules: Sequence[Rule], file: str) -> None:
    """Every component has one category, and every price key one component (both sides compare by component)."""
    category: dict[str, str] = {}
    component: dict[str, str] = {}
    for r in rules:
        if category.setdefault(r.component, r.category) != r.category:
            raise QuoteError(
                f"{file} line {r.line}: component {r.component!r} already has category {category[r.component]!r}"
            )
        if r.price_key and component.setdefault(r.price_key, r.component) != r.component:
            raise QuoteError(
                f"{file} line {r.line}: price key {r.price_key!r} already belongs to component "
                f"{component[r.price_key]!r}"
            )


@lru_cache(maxsize=1)
def default_rules() -> tuple[Rule, ...]:
    """The shipped rules (cached)."""
    return read_rules()


def classify(text: str, rules: Sequence[Rule]) -> Rule | None:
    """The first rule whose pattern occurs in ``text`` (part number + description), or None."""
    return next((r for r in rules if r.pattern.search(text)), None)


def component_of_key(rules: Sequence[Rule]) -> dict[str, tuple[str, str]]:
    """Price key → (component, category), from the rules (used to group the model's capex lines)."""
    out: dict[str, tuple[str, str]] = {}
    for r in rules:
        if r.price_key:
            out.setdefault(r.price_key, (r.component, r.category))
    return out


# --- cells ----------------------------------------------------------------------------------------------------------

Cell = str | float


def _text(cell: Cell) -> str:
    """A cell as a single-line string [max MAX_CELL_CHARS characters]."""
    if isinstance(cell, float):
        if not math.isfinite(cell):
            return ""
        return str(int(cell)) if cell.is_integer() and abs(cell) < 1e15 else repr(cell)
    return " ".join(cell.split())[:MAX_CELL_CHARS]


def parse_money(cell: Cell, where: str = "") -> float | None:
    """A US-format amount [USD]: ``1234``, ``$1,234.00``, ``USD 1,234.00``, ``(12.50)``; None if not money.

    Words meaning no charge (``included``, ``N/C``) are 0. European format (``1.234,00``) and other currencies
    raise QuoteError (out of scope). Amounts above MAX_MONEY_USD are not money (a part number or a date).
    """
    if isinstance(cell, float):
        return cell if math.isfinite(cell) and abs(cell) <= MAX_MONEY_USD else None
    s = cell.strip()
    if not s:
        return None
    if _ZERO_WORDS.match(s):
        return 0.0
    if _FOREIGN_CURRENCY.search(s) and re.search(r"\d", s):
        raise QuoteError(f"{where}: {s!r} is not in US dollars; convert the quote to USD first")
    negative = s.startswith("(") and s.endswith(")")
    if negative:
        s = s[1:-1].strip()
    s = _strip_currency(s)
    if s[:1] in ("-", "−") or s.endswith("-"):
        negative = True
        s = _strip_currency(s.strip("-−").strip())
    if _SPACED_THOUSANDS.match(s):
        s = re.sub(r"[ \u00a0\u202f\u2009]", "", s)
    if _US_NUMBER.match(s):
        value = float(s.replace(",", ""))
    elif _EU_NUMBER.match(s):
        raise QuoteError(
            f"{where}: {cell.strip()!r} looks like European number format (1.234,00), which is out of scope; "
            "export the quote with US format (1,234.00)"
        )
    else:
        return None
    if value > MAX_MONEY_USD:
        return None
    return -value if negative else value


def _strip_currency(text: str) -> str:
    """``$ 1,234``, ``USD 1,234``, ``1,234 USD`` → ``1,234``."""
    text = re.sub(r"(?i)^(us\s*\$|usd\s*\$?|\$)\s*", "", text)
    return re.sub(r"(?i)\s*(usd|us\$|\$)$", "", text).strip()


def parse_quantity(cell: Cell) -> float | None:
    """A count such as ``8``, ``1,024``, ``8 ea``, ``x2`` [units]; None if empty or not a count."""
    if isinstance(cell, float):
        return cell if math.isfinite(cell) and 0 <= cell <= MAX_QUANTITY else None
    s = cell.strip().lower()
    m = _QUANTITY.match(s)
    if not m:
        return None
    value = float((m.group(1) + (m.group(3) or "")).replace(",", ""))
    return value if value <= MAX_QUANTITY else None


def _header_name(cell: Cell) -> str:
    """A header cell reduced to lowercase words: ``Unit Price (US$)`` → ``unit price``."""
    if not isinstance(cell, str) or len(cell) > 60:
        return ""
    s = cell.lower().replace("#", " # ")
    s = re.sub(r"[^a-z0-9#/ ]+", " ", s)
    s = _CURRENCY_WORDS.sub(" ", s)
    return " ".join(s.split())


def header_roles(row: Sequence[Cell]) -> dict[str, int]:
    """Column index of each role found in ``row`` (part, description, quantity, unit, extended)."""
    scored: list[tuple[int, str, int]] = []  # (score, role, column)
    for col, cell in enumerate(row[:MAX_COLUMNS]):
        name = _header_name(cell)
        if not name:
            continue
        net = 1 if re.search(r"\bnet\b", name) else 0
        for role in _ROLES:
            if name in _ROLE_EXACT[role]:
                scored.append((3 + net, role, col))
        for role, pattern in _ROLE_FUZZY:
            if pattern.search(name):
                scored.append((1 + net, role, col))
                break
    roles: dict[str, int] = {}
    used: set[int] = set()
    for _score, role, col in sorted(scored, key=lambda t: (-t[0], t[2])):
        if role not in roles and col not in used:
            roles[role] = col
            used.add(col)
    return roles


def _is_header(roles: Mapping[str, int]) -> bool:
    return len(roles) >= 2 and ("description" in roles or "part" in roles)


def find_header(rows: Sequence[Sequence[Cell]]) -> tuple[int, dict[str, int]] | None:
    """(row index, roles) of the best header in the first HEADER_SCAN_ROWS rows, or None."""
    best: tuple[int, dict[str, int]] | None = None
    for i, row in enumerate(rows[:HEADER_SCAN_ROWS]):
        roles = header_roles(row)
        if _is_header(roles) and (best is None or _header_score(roles) > _header_score(best[1])):
            best = (i, roles)
    return best


def _header_score(roles: Mapping[str, int]) -> int:
    return len(roles) + (2 if "unit" in roles or "extended" in roles else 0)


# --- reading --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RawLine:
    """One priced line as read from the file; quantities and prices as quoted [units, USD]."""

    sheet: str
    row: int
    section: str
    part_number: str
    description: str
    quantity: float
    unit_price_usd: float | None
    extended_usd: float | None
    quantity_assumed: bool = False


@dataclass(frozen=True)
class ParsedQuote:
    """The lines of a quote file, with what was skipped and why."""

    name: str
    lines: tuple[RawLine, ...]
    skipped: Mapping[str, int]
    warnings: tuple[str, ...]
    sheets: tuple[str, ...]


@dataclass
class _SheetResult:
    lines: list[RawLine] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    stated_total_usd: float | None = None


def read_quote(data: bytes, name: str = "quote") -> ParsedQuote:
    """Parse a quote file's bytes (CSV or XLSX, told apart by content); raises QuoteError on a bad file."""
    label = Path(name).name or "quote"
    if len(data) > MAX_QUOTE_BYTES:
        raise QuoteError(f"{label}: file is {len(data) / 1e6:.1f} MB, over the {MAX_QUOTE_BYTES / 1e6:.0f} MB limit")
    if not data.strip():
        raise QuoteError(f"{label}: the file is empty")
    if data.startswith(_XLSX_MAGIC):
        sheets = _xlsx_sheets(data, label)
    elif data.startswith(_OLE_MAGIC):
        raise QuoteError(f"{label}: old Excel .xls format is not supported; save it as .xlsx or CSV")
    else:
        sheets = [("", _csv_rows(_decode(data, label), label))]
    return _parse_sheets(sheets, label)


def read_quote_file(path: str | Path) -> ParsedQuote:
    """Read a quote file from disk (size checked before reading); raises QuoteError."""
    path = Path(path)
    if not path.is_file():
        raise QuoteError(f"{path}: no such file")
    size = path.stat().st_size
    if size > MAX_QUOTE_BYTES:
        raise QuoteError(f"{path.name}: file is {size / 1e6:.1f} MB, over the {MAX_QUOTE_BYTES / 1e6:.0f} MB limit")
    return read_quote(path.read_bytes(), path.name)


def _decode(data: bytes, label: str) -> str:
    """Text of a CSV file (UTF-8, else Windows-1252); binary content raises QuoteError."""
    if b"\x00" in data:
        raise QuoteError(f"{label}: not a CSV or XLSX file (binary content)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    control = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\r\n") + text.count("\ufffd")
    if control > max(2, 0.01 * len(text)):
        raise QuoteError(f"{label}: not a CSV or XLSX file (binary content)")
    return text


def _csv_rows(text: str, label: str) -> list[list[Cell]]:
    """Rows of a CSV text with the delimiter whose header is best (comma, semicolon, tab or pipe)."""
    best: tuple[int, str] = (-2, ",")
    for delimiter in (",", ";", "\t", "|"):
        header = find_header(_split_csv(text, delimiter, label, HEADER_SCAN_ROWS))
        score = -1 if header is None else _header_score(header[1])
        if score > best[0]:
            best = (score, delimiter)
    return _split_csv(text, best[1], label, MAX_ROWS_PER_SHEET)


def _split_csv(text: str, delimiter: str, label: str, limit: int) -> list[list[Cell]]:
    """Up to ``limit`` rows of ``text`` split at ``delimiter``; an unreadable CSV raises QuoteError."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[list[Cell]] = []
    try:
        for raw in reader:
            rows.append([c[: MAX_CELL_CHARS * 4] for c in raw[:MAX_COLUMNS]])
            if len(rows) >= limit:
                break
    except csv.Error as exc:
        raise QuoteError(f"{label}: not a readable CSV file (line {reader.line_num}: {exc})") from None
    return rows


def _xlsx_cell(value: Any) -> Cell:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return float(value)
    return str(value)


def _xlsx_sheets(data: bytes, label: str) -> list[tuple[str, list[list[Cell]]]]:
    """(sheet name, rows) of every worksheet, read-only with cached formula values."""
    import warnings

    import openpyxl

    _check_zip(data, label)
    sheets = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl warns about styles and extensions it does not read
            wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
            try:
                for ws in wb.worksheets[:MAX_SHEETS]:
                    if not hasattr(ws, "iter_rows"):
                        continue
                    rows = [
                        [_xlsx_cell(v) for v in row]
                        for row in ws.iter_rows(max_row=MAX_ROWS_PER_SHEET, max_col=MAX_COLUMNS, values_only=True)
                    ]
                    sheets.append((str(ws.title), rows))
            finally:
                wb.close()
    except QuoteError:
        raise
    except Exception as exc:  # a corrupt upload: openpyxl, zipfile and the XML parser raise many types
        raise QuoteError(f"{label}: not a readable XLSX file ({type(exc).__name__})") from None
    return sheets


def _check_zip(data: bytes, label: str) -> None:
    """Refuse a corrupt ZIP or one that expands to more than MAX_XLSX_EXPANDED_BYTES (a zip bomb)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            expanded = sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise QuoteError(f"{label}: not a readable XLSX file ({type(exc).__name__})") from None
    if expanded > MAX_XLSX_EXPANDED_BYTES:
        raise QuoteError(
            f"{label}: the XLSX expands to {expanded / 1e6:.0f} MB, over the "
            f"{MAX_XLSX_EXPANDED_BYTES / 1e6:.0f} MB limit"
        )


def _parse_sheets(sheets: Sequence[tuple[str, list[list[Cell]]]], label: str) -> ParsedQuote:
    lines: list[RawLine] = []
    skipped: Counter[str] = Counter()
    warnings: list[str] = []
    no_price: list[str] = []
    found = []
    for sheet, rows in sheets:
        header = find_header(rows)
        where = f"{label}, sheet {sheet!r}" if sheet else label
        if header is None:
            skipped["sheet without a quote table"] += 1 if sheet else 0
            continue
        if "unit" not in header[1] and "extended" not in header[1]:
            no_price.append(where)
            continue
        found.append(sheet)
        result = _parse_table(rows, header[0], header[1], sheet, where)
        lines += result.lines
        skipped.update(result.skipped)
        warnings += result.warnings
        stated = result.stated_total_usd
        sheet_sum, running = sum(map(_line_total, result.lines)), sum(map(_line_total, lines))
        if stated is not None and not any(_close(stated, v) for v in (sheet_sum, running)):
            warnings.append(
                f"{where}: the quote's total (${stated:,.2f}) differs from the sum of its lines (${sheet_sum:,.2f})"
            )
    if not found:
        if no_price:
            raise QuoteError(f"{no_price[0]}: no price column (unit price or extended price) in the header row")
        raise QuoteError(
            f"{label}: no header row (description or part number, quantity, price) in the first "
            f"{HEADER_SCAN_ROWS} rows{' of any sheet' if len(sheets) > 1 else ''}"
        )
    if not any(ln.unit_price_usd is not None or ln.extended_usd is not None for ln in lines):
        raise QuoteError(f"{label}: the quote table has no priced lines")
    return ParsedQuote(label, tuple(lines), dict(skipped), tuple(warnings), tuple(found))


def _cell(row: Sequence[Cell], roles: Mapping[str, int], role: str) -> Cell:
    col = roles.get(role)
    return row[col] if col is not None and col < len(row) else ""


def _parse_table(
    rows: Sequence[Sequence[Cell]], header_row: int, roles: Mapping[str, int], sheet: str, where: str
) -> _SheetResult:
    out = _SheetResult()
    section = ""
    stated_total: float | None = None
    for i in range(header_row + 1, len(rows)):
        row = rows[i]
        line_no = i + 1
        at = f"{where} row {line_no}"
        texts = [_text(c) for c in row]
        part, desc = _text(_cell(row, roles, "part")), _text(_cell(row, roles, "description"))
        label = desc or part or next((t for t in texts if t and not _is_number_text(t)), "")
        if not any(texts):
            out.skipped["blank"] += 1
            continue
        if header_roles(row) == dict(roles):
            out.skipped["repeated header"] += 1
            continue
        qty_cell = _cell(row, roles, "quantity")
        qty = parse_quantity(qty_cell)
        unit = parse_money(_cell(row, roles, "unit"), at)
        ext = parse_money(_cell(row, roles, "extended"), at)
        if label.startswith("#"):
            out.skipped["comment"] += 1
            continue
        if _is_total(label, qty):
            out.skipped["subtotal or total"] += 1
            if _GRAND_TOTAL.search(label) and (ext if ext is not None else unit) is not None:
                stated_total = ext if ext is not None else unit
            continue
        if _TAX.match(label) and qty is None:
            out.skipped["tax"] += 1
            continue
        if unit is None and ext is None and qty is None:
            section = label[:120] if label else section
            out.skipped["section title or note"] += 1
            continue
        if not (part or desc):
            out.skipped["unlabelled amount"] += 1
            continue
        assumed = qty is None
        if assumed and _text(qty_cell):
            out.warnings.append(f"{at}: quantity {_text(qty_cell)[:20]!r} is not a number; taken as 1")
        for role, value in (("unit", unit), ("extended", ext)):
            shown = _text(_cell(row, roles, role))
            if value is None and shown:
                out.warnings.append(f"{at}: price {shown[:20]!r} is not a US-format amount; left blank")
        out.lines.append(RawLine(sheet, line_no, section, part, desc, 1.0 if qty is None else qty, unit, ext, assumed))
    out.stated_total_usd = stated_total
    return out


def _close(a: float, b: float) -> bool:
    """Equal within MISMATCH_SHARE or a dollar."""
    return abs(a - b) <= max(1.0, MISMATCH_SHARE * abs(a))


def _is_number_text(text: str) -> bool:
    return bool(re.fullmatch(r"[\s$()\-.,0-9usdUSD]*", text))


def _is_total(label: str, qty: float | None) -> bool:
    """A subtotal/total row: 'Subtotal', 'Grand total' anywhere, or 'Total …' / '… total' without a quantity."""
    if _TOTAL_ANYWHERE.search(label):
        return True
    return qty is None and bool(_TOTAL_EDGE.search(label))


def _line_total(line: RawLine) -> float:
    """What the quote charges for the line as quoted [USD]: extended price, else quantity × unit price."""
    if line.extended_usd is not None:
        return line.extended_usd
    return line.quantity * (line.unit_price_usd or 0.0)


# --- review ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuoteLine:
    """A quote line, classified and scaled to the cluster.

    ``quantity`` and prices are as quoted; ``cluster_quantity`` and ``total_usd`` are multiplied by the
    servers quoted. ``book_quantity`` counts price-book units (e.g. 64 GB DIMMs, server-years) for the cluster.
    """

    id: int
    sheet: str
    row: int
    section: str
    part_number: str
    description: str
    quantity: float
    unit_price_usd: float | None
    extended_usd: float | None
    quantity_assumed: bool
    cluster_quantity: float
    total_usd: float
    component: str | None
    category: str | None
    price_key: str | None
    rule_findings: tuple[str, ...]
    recommended_key: str | None
    book_unit_price_usd: float | None
    book_quantity: float

    @property
    def classified(self) -> bool:
        """True when a rule matched the line."""
        return self.component is not None

    @property
    def text(self) -> str:
        """Part number and description, as matched by the rules."""
        return f"{self.part_number} {self.description}".strip()

    @property
    def label(self) -> str:
        """A short name for messages."""
        return (self.description or self.part_number)[:70]

    @property
    def effective_unit_usd(self) -> float | None:
        """What the quote charges per unit [USD]: extended ÷ quantity where both exist, else the unit price."""
        if self.extended_usd is not None and self.quantity > 0:
            return self.extended_usd / self.quantity
        return self.unit_price_usd

    @property
    def priced(self) -> bool:
        """True when the quote gives a unit or extended price (bundled parts often have none)."""
        return self.unit_price_usd is not None or self.extended_usd is not None

    @property
    def cost_usd(self) -> float:
        """The line's cluster cost [USD]: as quoted, or at book prices where the quote gives no price."""
        if self.priced:
            return self.total_usd
        return self.cluster_quantity * (self.book_unit_price_usd or 0.0)

    @property
    def source(self) -> str:
        """Where the line sits in the file: ``row 12`` or ``Compute!12``."""
        return f"{self.sheet}!{self.row}" if self.sheet else f"row {self.row}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record [USD, units]."""
        return {
            "id": self.id,
            "sheet": self.sheet,
            "row": self.row,
            "section": self.section,
            "part_number": self.part_number,
            "description": self.description,
            "quantity": self.quantity,
            "unit_price_usd": self.unit_price_usd,
            "extended_usd": self.extended_usd,
            "quantity_assumed": self.quantity_assumed,
            "priced": self.priced,
            "cluster_quantity": self.cluster_quantity,
            "total_usd": self.total_usd,
            "classified": self.classified,
            "component": self.component,
            "category": self.category,
            "price_key": self.price_key,
            "book_unit_price_usd": self.book_unit_price_usd,
            "book_quantity": self.book_quantity,
        }


@dataclass(frozen=True)
class Finding:
    """A flagged issue: the code, the line ids it rests on, the saving [USD] and why."""

    code: str
    lines: tuple[int, ...]
    saving_usd: float
    detail: str

    @property
    def title(self) -> str:
        """Short name of the finding."""
        return FINDINGS[self.code][0]

    @property
    def reason(self) -> str:
        """Why it matters (BRIEF.md / the article)."""
        return FINDINGS[self.code][1]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record."""
        return {
            "code": self.code,
            "title": self.title,
            "lines": list(self.lines),
            "saving_usd": _finite(self.saving_usd),
            "reason": self.reason,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class ComparisonRow:
    """One component of the quote against the recommended design [book units, USD]."""

    category: str
    component: str
    quote_quantity: float
    quote_usd: float
    recommended_quantity: float
    recommended_usd: float
    in_scope: bool

    @property
    def saving_usd(self) -> float:
        """Quote minus recommended [USD] (0 when out of scope)."""
        return self.quote_usd - self.recommended_usd if self.in_scope else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record."""
        return {
            "category": self.category,
            "component": self.component,
            "quote_quantity": self.quote_quantity,
            "quote_usd": _finite(self.quote_usd),
            "recommended_quantity": self.recommended_quantity,
            "recommended_usd": _finite(self.recommended_usd),
            "in_scope": self.in_scope,
            "saving_usd": _finite(self.saving_usd),
        }


@dataclass(frozen=True)
class QuoteReview:
    """A reviewed quote: classified lines, findings, and the comparison with the recommended design."""

    name: str
    servers_quoted: int
    price_tolerance: float
    lines: tuple[QuoteLine, ...]
    findings: tuple[Finding, ...]
    comparison: tuple[ComparisonRow, ...]
    servers: int | None
    gpus: int | None
    gpu_model: str | None
    recommended: Scenario | None
    skipped: Mapping[str, int]
    warnings: tuple[str, ...]
    sheets: tuple[str, ...]

    @property
    def classified(self) -> list[QuoteLine]:
        """Lines a rule matched."""
        return [ln for ln in self.lines if ln.classified]

    @property
    def unmatched(self) -> list[QuoteLine]:
        """Lines no rule matched (listed, never dropped)."""
        return [ln for ln in self.lines if not ln.classified]

    @property
    def quote_total_usd(self) -> float:
        """Everything the quote charges, for the cluster [USD]."""
        return sum(ln.total_usd for ln in self.lines)

    @property
    def compared_quote_usd(self) -> float:
        """The part of the quote compared with the design: components the model prices, plus discounts [USD]."""
        return sum(r.quote_usd for r in self.comparison if r.in_scope)

    @property
    def recommended_total_usd(self) -> float | None:
        """The recommended design over the same components [USD]; None without a GPU count."""
        if self.recommended is None:
            return None
        return sum(r.recommended_usd for r in self.comparison if r.in_scope)

    @property
    def saving_usd(self) -> float | None:
        """Compared quote minus recommended design [USD]; None without a GPU count."""
        rec = self.recommended_total_usd
        return None if rec is None else self.compared_quote_usd - rec

    @property
    def findings_saving_usd(self) -> float:
        """Sum of the findings' savings [USD] (findings may overlap; see the module docstring)."""
        return sum(f.saving_usd for f in self.findings)

    def findings_of(self, line_id: int) -> list[str]:
        """Codes of the findings that rest on line ``line_id``."""
        return [f.code for f in self.findings if line_id in f.lines]

    def by_category(self) -> dict[str, tuple[float, float]]:
        """In-scope (quote, recommended) cost by category [USD]."""
        out: dict[str, tuple[float, float]] = {}
        for r in self.comparison:
            if r.in_scope:
                q, rec = out.get(r.category, (0.0, 0.0))
                out[r.category] = (q + r.quote_usd, rec + r.recommended_usd)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``python -m neoplan quote FILE --json`` (USD, counts; undefined = null).

        ``lines`` holds every line; ``classified`` is the count of lines a rule matched; ``unmatched`` lists the
        lines no rule matched.
        """
        return {
            "name": self.name,
            "servers_quoted": self.servers_quoted,
            "servers": self.servers,
            "gpus": self.gpus,
            "gpu_model": self.gpu_model,
            "lines": [ln.to_dict() for ln in self.lines],
            "classified": len(self.classified),
            "unmatched": [ln.to_dict() for ln in self.unmatched],
            "findings": [f.to_dict() for f in self.findings],
            "quote_total_usd": _finite(self.quote_total_usd),
            "compared_quote_usd": _finite(self.compared_quote_usd),
            "recommended_total_usd": _finite(self.recommended_total_usd),
            "saving_usd": _finite(self.saving_usd),
            "findings_saving_usd": _finite(self.findings_saving_usd),
            "comparison": [r.to_dict() for r in self.comparison],
            "price_tolerance": self.price_tolerance,
            "skipped_rows": dict(self.skipped),
            "warnings": list(self.warnings),
        }


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def review_quote(
    quote: ParsedQuote,
    servers_quoted: int = 1,
    *,
    price_tolerance: float = DEFAULT_PRICE_TOLERANCE,
    base: str = "optimized",
    book: PriceBook | None = None,
    rules: Sequence[Rule] | None = None,
) -> QuoteReview:
    """Classify ``quote``, find the padding and compare with the ``base`` design at the quote's size.

    ``servers_quoted`` [count] multiplies every quantity; ``price_tolerance`` [fraction] is how far over the
    price book a unit price may be before ``price_above_book`` fires.
    """
    if not (isinstance(servers_quoted, int) and 1 <= servers_quoted <= 100_000):
        raise QuoteError(f"servers quoted must be a whole number from 1 to 100,000, got {servers_quoted!r}")
    if not (0 <= price_tolerance <= 10):
        raise QuoteError(f"price tolerance must be between 0 and 10 (a fraction), got {price_tolerance!r}")
    book = book or default_price_book()
    rules = rules if rules is not None else default_rules()
    lines = tuple(_classify_line(i, raw, servers_quoted, rules, book) for i, raw in enumerate(quote.lines, start=1))
    servers, gpus, gpu_model, size_notes = _size(lines, servers_quoted)
    warnings = list(quote.warnings) + size_notes
    recommended = (
        _recommended_scenario(quote.name, lines, gpus, gpu_model, servers, base) if gpus and gpu_model else None
    )
    result = None
    if recommended is not None:
        try:
            result = evaluate(recommended)
        except ScenarioError as exc:
            warnings.append(f"the {base} design cannot be built at {gpus:,} GPUs ({exc}); no comparison")
            recommended = None
    findings = find_all(lines, servers, gpus, book, price_tolerance)
    comparison = compare(lines, result, rules)
    return QuoteReview(
        name=quote.name,
        servers_quoted=servers_quoted,
        price_tolerance=price_tolerance,
        lines=lines,
        findings=tuple(findings),
        comparison=tuple(comparison),
        servers=servers,
        gpus=gpus,
        gpu_model=gpu_model,
        recommended=recommended,
        skipped=quote.skipped,
        warnings=tuple(warnings),
        sheets=quote.sheets,
    )


def load_quote(path: str | Path, servers_quoted: int = 1, **kwargs: Any) -> QuoteReview:
    """Read and review a quote file in one step; raises QuoteError."""
    return review_quote(read_quote_file(path), servers_quoted, **kwargs)


def _size_of(text: str, unit: str) -> float | None:
    """The first size in ``text`` in ``unit`` (GB, TB or year) [unit]."""
    m = _SIZE[unit].search(text) if unit else None
    if m is None:
        return None
    value = float(m.group(1))
    return value if 0 < value < 1e6 else None


def _classify_line(
    line_id: int, raw: RawLine, servers_quoted: int, rules: Sequence[Rule], book: PriceBook
) -> QuoteLine:
    text = f"{raw.part_number} {raw.description}"
    rule = classify(text, rules)
    qty = raw.quantity * servers_quoted
    total = _line_total(raw) * servers_quoted
    ratio = 1.0
    book_unit: float | None = None
    if rule is not None and rule.price_key:
        size = _size_of(text, rule.size_unit)
        ratio = size / rule.book_size if size else 1.0
        book_unit = book.price(rule.price_key) * ratio
    return QuoteLine(
        id=line_id,
        sheet=raw.sheet,
        row=raw.row,
        section=raw.section,
        part_number=raw.part_number,
        description=raw.description,
        quantity=raw.quantity,
        unit_price_usd=raw.unit_price_usd,
        extended_usd=raw.extended_usd,
        quantity_assumed=raw.quantity_assumed,
        cluster_quantity=qty,
        total_usd=total,
        component=rule.component if rule else None,
        category=rule.category if rule else None,
        price_key=(rule.price_key or None) if rule else None,
        rule_findings=rule.findings if rule else (),
        recommended_key=(rule.recommended_key or None) if rule else None,
        book_unit_price_usd=book_unit,
        book_quantity=qty * ratio,
    )


def _size(lines: Sequence[QuoteLine], servers_quoted: int) -> tuple[int | None, int | None, str | None, list[str]]:
    """(servers, GPUs, GPU platform key, notes) from the quote's GPU baseboard lines."""
    platforms = {p.baseboard_price_key: p for p in default_platforms().values()}
    boards: dict[str, float] = defaultdict(float)
    for ln in lines:
        if ln.component == "gpu_baseboard" and ln.price_key in platforms:
            boards[ln.price_key] += ln.cluster_quantity
    notes = []
    if not boards:
        notes.append(
            "no GPU baseboard line (HGX H100/H200/B200) found: the cluster size is unknown, so the "
            "quote is not compared with a design"
        )
        return None, None, None, notes
    key = max(boards, key=lambda k: boards[k])
    if len(boards) > 1:
        notes.append(f"several GPU platforms quoted ({', '.join(sorted(boards))}); compared as {key}")
    servers = round(sum(boards.values()))
    platform = platforms[key]
    if servers < 1:
        return None, None, None, [*notes, "GPU baseboard quantity is 0: the cluster size is unknown"]
    if servers == 1 and servers_quoted == 1:
        notes.append("the quote prices a single server: set servers quoted to the number of servers bought")
    return servers, servers * platform.gpus_per_node, platform.key, notes


def _recommended_scenario(
    name: str, lines: Sequence[QuoteLine], gpus: int, gpu_model: str, servers: int | None, base: str
) -> Scenario:
    """The ``base`` design at the quote's GPU count and platform, keeping the quote's local NVMe per server."""
    node: dict[str, Any] = {}
    nvme_tb = sum(ln.book_quantity for ln in lines if ln.price_key == "nvme_7_68tb") * 7.68
    if servers and nvme_tb > 0:
        node["nvme_tb"] = round(min(nvme_tb / servers, 500.0), 2)
    data: dict[str, Any] = {
        "base": base,
        "name": f"Recommended for {name}"[:120],
        "description": f"{base} design at the size of the quote {name} ({gpus:,} GPUs), from the Quote review.",
        "cluster": {"gpus": gpus, "gpu_model": gpu_model},
    }
    if node:
        data["node"] = node
    try:
        return load_scenario(data)
    except ScenarioError as exc:
        raise QuoteError(f"cannot build the recommended design for this quote: {exc}") from None


def apply_recommendations(review: QuoteReview) -> Scenario:
    """The quote turned into a scenario: its GPU count and platform with the recommended (optimized) BoM."""
    if review.recommended is None:
        raise QuoteError("the quote has no GPU baseboard line, so its cluster size is unknown")
    return review.recommended


# --- findings -------------------------------------------------------------------------------------------------------


def _with(
    lines: Iterable[QuoteLine], *, component: str | None = None, code: str | None = None, key: str | None = None
) -> list[QuoteLine]:
    return [
        ln
        for ln in lines
        if (component is None or ln.component == component)
        and (code is None or code in ln.rule_findings)
        and (key is None or ln.price_key == key)
    ]


def _qty(lines: Iterable[QuoteLine]) -> float:
    """Book units of ``lines`` [count]."""
    return sum(ln.book_quantity for ln in lines)


def _cost(lines: Iterable[QuoteLine]) -> float:
    """Cluster cost of ``lines`` [USD]."""
    return sum(ln.cost_usd for ln in lines)


def _ids(lines: Iterable[QuoteLine]) -> tuple[int, ...]:
    return tuple(ln.id for ln in lines)


def _avg_unit(lines: Sequence[QuoteLine], book: PriceBook, fallback_key: str) -> float:
    """Average cost per book unit of ``lines`` [USD], or the book price of ``fallback_key`` without lines."""
    qty = _qty(lines)
    return _cost(lines) / qty if qty > 0 else book.price(fallback_key)


def _short(description: str) -> str:
    """A book description up to its first parenthesis: ``Mid-range Intel Xeon``."""
    return description.split(" (")[0]


def _usd(value: float) -> str:
    return f"${value:,.0f}"


def _n(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def find_all(
    lines: Sequence[QuoteLine], servers: int | None, gpus: int | None, book: PriceBook, price_tolerance: float
) -> list[Finding]:
    """Every finding of a quote, in a stable order."""
    family = "xdr" if _with(lines, key="nic_backend_800g") or _with(lines, key="ib_switch_q3400") else "ndr"
    out: list[Finding] = []
    out += find_swaps(lines, book, "cpu_top_bin")
    out += find_ram(lines, servers)
    out += find_dpus(lines, servers, book)
    out += find_swaps(lines, book, "frontend_spectrum")
    out += find_swaps(lines, book, "oob_spectrum")
    out += find_nvaie(lines)
    out += find_nics(lines, servers, book, family)
    out += find_missing(lines, servers, gpus, book, family)
    out += find_optics_everywhere(lines, book, family)
    out += find_nonblocking(lines, servers, book)
    out += find_flagged(lines, "cpu_amd")
    out += find_above_book(lines, price_tolerance)
    out += find_mismatch(lines)
    return out


def find_swaps(lines: Sequence[QuoteLine], book: PriceBook, code: str) -> list[Finding]:
    """Lines the rules flag with ``code`` swapped for their recommended key: quote cost − book replacement [USD]."""
    hit = _with(lines, code=code)
    if not hit:
        return []
    saving = 0.0
    groups: dict[tuple[str, str | None, float], list[QuoteLine]] = defaultdict(list)
    for ln in hit:
        replacement = book.price(ln.recommended_key) if ln.recommended_key else 0.0
        saving += ln.cost_usd - ln.book_quantity * replacement
        unit = ln.cost_usd / ln.cluster_quantity if ln.cluster_quantity else 0.0
        groups[(_brief(ln.label), ln.recommended_key, round(unit, 2))].append(ln)
    parts = []
    for (label, rec_key, unit), group in groups.items():
        target = _brief(_short(book.row(rec_key).description), 60, at_comma=False) if rec_key else "nothing"
        replacement = book.price(rec_key) if rec_key else 0.0
        qty = sum(ln.cluster_quantity for ln in group)
        parts.append(f"{_n(qty)} × {label} at {_usd(unit)} → {target} at {_usd(replacement)}")
    return [Finding(code, _ids(hit), saving, "; ".join(parts))]


def _brief(label: str, width: int = 48, at_comma: bool = True) -> str:
    """A line label up to its first comma, at most ``width`` characters: ``NVIDIA Spectrum SN4600 64x200GbE…``."""
    head = label.split(",")[0].strip() if at_comma else label
    return head if len(head) <= width else head[: width - 1].rsplit(" ", 1)[0] + "…"


def find_flagged(lines: Sequence[QuoteLine], code: str) -> list[Finding]:
    """Lines the rules flag with ``code`` where the advice has no price (saving 0)."""
    hit = _with(lines, code=code)
    if not hit:
        return []
    return [Finding(code, _ids(hit), 0.0, "; ".join(f"{_n(ln.cluster_quantity)} × {ln.label}" for ln in hit))]


def find_ram(lines: Sequence[QuoteLine], servers: int | None) -> list[Finding]:
    """RAM above 1 TB per server: the excess DIMM capacity at the quote's price per GB [USD]."""
    ram = _with(lines, component="ram")
    if not ram or not servers:
        return []
    gb = sum(ln.book_quantity for ln in ram) * 64.0  # book units are 64 GB DIMMs
    per_server_gb = gb / servers
    if per_server_gb <= RAM_GB_PER_SERVER_RECOMMENDED + 1e-6:
        return []
    excess_gb = gb - servers * RAM_GB_PER_SERVER_RECOMMENDED
    usd_per_gb = _cost(ram) / gb
    detail = (
        f"{per_server_gb / 1024:g} TB per server → 1 TB: {_n(excess_gb / 64)} fewer 64 GB DIMMs over "
        f"{servers:,} servers at {_usd(usd_per_gb * 64)} per 64 GB"
    )
    return [Finding("ram_over_1tb", _ids(ram), excess_gb * usd_per_gb, detail)]


def find_dpus(lines: Sequence[QuoteLine], servers: int | None, book: PriceBook) -> list[Finding]:
    """BlueField DPUs dropped; servers without a plain front-end NIC get one ConnectX (book price) [USD]."""
    dpus = _with(lines, code="dpu_bluefield")
    if not dpus:
        return []
    dpu_ids = set(_ids(dpus))
    plain = sum(ln.book_quantity for ln in _with(lines, component="frontend_nic") if ln.id not in dpu_ids)
    need = (servers if servers else math.ceil(_qty(dpus) / 2)) - plain
    nics = max(0.0, need)
    nic_usd = book.price("nic_frontend_2x100g")
    saving = _cost(dpus) - nics * nic_usd
    detail = (
        f"Drop {_n(_qty(dpus))} BlueField-3 ({_usd(_cost(dpus))}); add {_n(nics)} dual-port 100GbE ConnectX "
        f"at {_usd(nic_usd)}"
    )
    return [Finding("dpu_bluefield", _ids(dpus), saving, detail)]


def find_nvaie(lines: Sequence[QuoteLine]) -> list[Finding]:
    """NVIDIA AI Enterprise lines dropped: their whole cost [USD] (the opex it also saves each year is noted)."""
    hit = _with(lines, code="nvaie_license")
    if not hit:
        return []
    years = _qty(hit)
    detail = f"{_n(years)} GPU-years of NVIDIA AI Enterprise quoted for {_usd(_cost(hit))}; drop them"
    return [Finding("nvaie_license", _ids(hit), _cost(hit), detail)]


def find_nics(lines: Sequence[QuoteLine], servers: int | None, book: PriceBook, family: str) -> list[Finding]:
    """Fewer than 8 back-end NICs per server: the cost of adding NICs and their optics (negative saving) [USD]."""
    if not servers:
        return []
    nics = _with(lines, component="backend_nic")
    have = _qty(nics)
    if have >= servers:  # whole NICs per GPU server; a stray NIC of a management node does not count
        have = servers * math.floor(have / servers + 1e-9)
    per_server = have / servers
    if per_server >= BACKEND_NICS_RECOMMENDED - 1e-9:
        return []
    missing = servers * BACKEND_NICS_RECOMMENDED - have
    nic_key, optic_key = (
        ("nic_backend_800g", "xcvr_xdr_osfp_800g_server")
        if family == "xdr"
        else ("nic_backend_400g", "xcvr_ndr_osfp_400g_server")
    )
    cost = missing * (_avg_unit(nics, book, nic_key) + book.price(optic_key))
    detail = (
        f"{per_server:g} back-end NICs per server; {_n(missing)} more NICs and server-side optics would cost "
        f"{_usd(cost)}"
    )
    boards = _with(lines, component="gpu_baseboard")
    return [Finding("nics_below_8", _ids(nics or boards), -cost, detail)]


def _optical_links(lines: Sequence[QuoteLine]) -> tuple[float, float, float]:
    """(server-side optical links, switch-side optical ports, switch-to-switch optical links) [count]."""
    server = _qty(_with(lines, component="backend_server_link", key="xcvr_ndr_osfp_400g_server")) + _qty(
        _with(lines, component="backend_server_link", key="xcvr_xdr_osfp_800g_server")
    )
    twin = _qty(_with(lines, key="xcvr_ndr_osfp_800g_twin")) + _qty(_with(lines, key="xcvr_xdr_osfp_1600g_twin"))
    ports = 2 * twin
    return server, ports, max(0.0, (ports - server) / 2)


def _switch_copper(lines: Sequence[QuoteLine]) -> list[QuoteLine]:
    return [ln for ln in _with(lines, component="backend_switch_link") if "xcvr" not in (ln.price_key or "")]


def find_missing(
    lines: Sequence[QuoteLine], servers: int | None, gpus: int | None, book: PriceBook, family: str
) -> list[Finding]:
    """Parts the quoted design needs but lacks, at book prices (negative saving) [USD].

    Server-side optics or splitter cables for every back-end NIC of the GPU servers (whole NICs per server;
    a stray NIC of a management node is not counted); one fibre per optical link; UFM above 2,048 GPUs when
    the quote has InfiniBand switches.
    """
    out = []
    nics = _with(lines, component="backend_nic")
    n_nics = _qty(nics)
    if servers and n_nics >= servers:
        n_nics = servers * math.floor(n_nics / servers + 1e-9)
    server_links = _with(lines, component="backend_server_link")
    ends = sum(ln.book_quantity * (2 if "splitter" in (ln.price_key or "") else 1) for ln in server_links)
    if n_nics > 0 and ends < n_nics - 1e-9:
        key = "xcvr_xdr_osfp_800g_server" if family == "xdr" else "xcvr_ndr_osfp_400g_server"
        missing = n_nics - ends
        cost = missing * book.price(key)
        out.append(
            Finding(
                "missing_item",
                _ids(nics),
                -cost,
                f"{_n(n_nics)} back-end NICs but only {_n(ends)} server-side transceivers or splitter-"
                f"cable ends: {_n(missing)} × {book.row(key).description} at {_usd(book.price(key))}",
            )
        )
    server, _ports, switch_links = _optical_links(lines)
    needed = server + switch_links
    fibres = _with(lines, component="backend_fibre")
    have = _qty(fibres)
    if needed > 0 and have < needed - 1e-9:
        cost = (needed - have) * book.price("fibre_mpo12_apc")
        optics = _with(lines, component="backend_server_link") + _with(lines, component="backend_switch_link")
        out.append(
            Finding(
                "missing_item",
                _ids(fibres or optics),
                -cost,
                f"{_n(needed)} optical links need one MPO-12/APC fibre each; the quote has {_n(have)}: "
                f"{_n(needed - have)} more at {_usd(book.price('fibre_mpo12_apc'))}",
            )
        )
    switches = _with(lines, component="backend_switch")
    if gpus and gpus > UFM_REQUIRED_ABOVE_GPUS and switches and not _with(lines, component="subnet_manager"):
        endpoints = n_nics or gpus
        cost = endpoints * book.price("ufm_licence_per_endpoint")
        out.append(
            Finding(
                "missing_item",
                _ids(switches),
                -cost,
                f"UFM is a hard requirement above {UFM_REQUIRED_ABOVE_GPUS:,} GPUs and the quote has none: "
                f"{_n(endpoints)} endpoint licences at {_usd(book.price('ufm_licence_per_endpoint'))}",
            )
        )
    return out


def find_optics_everywhere(lines: Sequence[QuoteLine], book: PriceBook, family: str) -> list[Finding]:
    """Rail-optimized quote whose switch-to-switch links are all optical: optics + fibre → twin DAC [USD]."""
    server, _ports, links = _optical_links(lines)
    if links <= 0 or server <= 0 or _switch_copper(lines):
        return []
    twins = _with(lines, component="backend_switch_link")
    fibres = _with(lines, component="backend_fibre")
    twin_unit = _avg_unit(twins, book, "xcvr_ndr_osfp_800g_twin")
    fibre_unit = _avg_unit(fibres, book, "fibre_mpo12_apc")
    dac_key = "lacc_xdr_1600g_twin" if family == "xdr" else "dac_ndr_800g_twin"
    dacs = math.ceil(links / 2)
    saving = links * (twin_unit + fibre_unit) - dacs * book.price(dac_key)
    detail = (
        f"{_n(links)} switch-to-switch links on optics ({_n(links)} twin-port transceivers + {_n(links)} "
        f"fibres) → {dacs:,} twin-port DAC at {_usd(book.price(dac_key))} with the spine rack between the leaf "
        "racks (virtual modular switch)"
    )
    return [Finding("optics_everywhere", _ids(twins + fibres), saving, detail)]


def _radix(key: str | None) -> int:
    from .fabric import default_network_catalogue

    return next((it.radix for it in default_network_catalogue().values() if it.price_key == key and it.radix), 64)


def find_nonblocking(lines: Sequence[QuoteLine], servers: int | None, book: PriceBook) -> list[Finding]:
    """A non-blocking multi-pod back end: at 2:1 half the spines and half the leaf-spine links go [USD].

    Leaves are estimated as rail-optimized non-blocking leaves: NICs per server × scalable units of
    ``radix/2`` servers; the rest of the quoted InfiniBand switches are spines. Fires below 1.5:1 when the
    cluster has more than one scalable unit.
    """
    switches = _with(lines, component="backend_switch")
    n_nics = _qty(_with(lines, component="backend_nic"))
    if not switches or n_nics <= 0 or not servers:
        return []
    radix = _radix(switches[0].price_key)
    down = radix // 2
    if servers <= down:
        return []
    leaves = max(1, round(n_nics / servers)) * math.ceil(servers / down)
    spines = _qty(switches) - leaves
    if spines <= 0:
        return []
    oversubscription = (leaves * down) / (spines * radix)
    if oversubscription >= 1.5:
        return []
    links_removed = math.floor(leaves * down / 2)
    spines_removed = math.floor(spines / 2)
    switch_unit = _avg_unit(switches, book, switches[0].price_key or "ib_switch_qm9700")
    copper = _switch_copper(lines)
    if copper:
        per_link = _avg_unit(copper, book, "dac_ndr_800g_twin") / 2
        media = "DAC"
    else:
        twins = _with(lines, component="backend_switch_link")
        per_link = _avg_unit(twins, book, "xcvr_ndr_osfp_800g_twin") + _avg_unit(
            _with(lines, component="backend_fibre"), book, "fibre_mpo12_apc"
        )
        media = "optics and fibre"
    saving = spines_removed * switch_unit + links_removed * per_link
    detail = (
        f"~{leaves:,} leaves and {_n(spines)} spines ({oversubscription:.1f}:1) → 2:1 with "
        f"{_n(spines - spines_removed)} spines: {spines_removed:,} switches and {links_removed:,} leaf-spine links "
        f"({media}) fewer"
    )
    return [Finding("backend_nonblocking", _ids(switches), saving, detail)]


_SWAPPED_OR_DROPPED = (*_SWAP_FINDINGS, *_DROP_FINDINGS)


def find_above_book(lines: Sequence[QuoteLine], tolerance: float) -> list[Finding]:
    """One finding per line whose unit price exceeds the book by more than ``tolerance`` [USD over book].

    Lines that a swap or drop finding already removes are left out (their saving counts there).
    """
    out = []
    for ln in lines:
        unit = ln.effective_unit_usd
        book_unit = ln.book_unit_price_usd
        if unit is None or not book_unit or any(c in _SWAPPED_OR_DROPPED for c in ln.rule_findings):
            continue
        if unit > (1 + tolerance) * book_unit:
            over = unit / book_unit - 1
            detail = (
                f"{ln.label}: {_usd(unit)} per unit vs {_usd(book_unit)} in the price book ({ln.price_key}), "
                f"{over:.0%} over; {_n(ln.cluster_quantity)} units"
            )
            out.append(Finding("price_above_book", (ln.id,), ln.cluster_quantity * (unit - book_unit), detail))
    return out


def find_mismatch(lines: Sequence[QuoteLine]) -> list[Finding]:
    """Lines whose quantity × unit price differs from the extended price by more than cent rounding explains
    (a cent per unit, at least $1); saving = any overcharge [USD]."""
    out = []
    for ln in lines:
        if ln.unit_price_usd is None or ln.extended_usd is None or ln.quantity_assumed:
            continue
        expected = ln.quantity * ln.unit_price_usd
        gap = ln.extended_usd - expected
        if abs(gap) > max(1.0, CENT_USD * ln.quantity):  # more than unit prices rounded to the cent explain
            multiplier = ln.cluster_quantity / ln.quantity if ln.quantity else 1.0
            detail = (
                f"{ln.label}: {_n(ln.quantity)} × {_usd(ln.unit_price_usd)} = {_usd(expected)}, but the extended "
                f"price says {_usd(ln.extended_usd)}"
            )
            out.append(Finding("extended_mismatch", (ln.id,), max(0.0, gap) * multiplier, detail))
    return out


# --- comparison -----------------------------------------------------------------------------------------------------


def compare(lines: Sequence[QuoteLine], result: Result | None, rules: Sequence[Rule]) -> list[ComparisonRow]:
    """Quote vs design per component [book units, USD]; in scope = components the quote prices and the model knows.

    The design side groups ``result.capex_lines`` by the component of their price key (from the rules).
    Without a ``result`` (no GPU count) only the quote side is filled and nothing is in scope.
    """
    key_component = component_of_key(rules)
    comparable = {comp for comp, _ in key_component.values()} | {"discount"}
    quote: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for ln in lines:
        if ln.component is not None and ln.category is not None:
            q = quote[(ln.category, ln.component)]
            q[0] += ln.book_quantity
            q[1] += ln.total_usd
    design: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for cl in result.capex_lines if result is not None else []:
        comp, cat = key_component.get(cl.key, (cl.key, cl.category))
        d = design[(cat, comp)]
        d[0] += cl.quantity
        d[1] += cl.total_usd
    order = {c: i for i, c in enumerate(CATEGORIES)}
    keys = sorted(set(quote) | set(design), key=lambda k: (order.get(k[0], 99), k[1]))
    return [
        ComparisonRow(
            category=cat,
            component=comp,
            quote_quantity=quote[(cat, comp)][0] if (cat, comp) in quote else 0.0,
            quote_usd=quote[(cat, comp)][1] if (cat, comp) in quote else 0.0,
            recommended_quantity=design[(cat, comp)][0] if (cat, comp) in design else 0.0,
            recommended_usd=design[(cat, comp)][1] if (cat, comp) in design else 0.0,
            in_scope=result is not None and (cat, comp) in quote and comp in comparable,
        )
        for cat, comp in keys
    ]


# --- a design written as a quote ------------------------------------------------------------------------------------

QUOTE_COLUMNS = ("Part Number", "Description", "Qty", "Unit Price (USD)", "Extended Price (USD)")


def design_quote_rows(result: Result, categories: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """A model design written as quote lines (price-book descriptions and prices), e.g. to send out for bids.

    One row per capex line of ``result`` in ``categories`` (all if None), plus one year of NVIDIA AI
    Enterprise per GPU when the scenario pays for it. Reading these rows back reproduces the design.
    """
    wanted = set(categories) if categories is not None else None
    rows = []
    for cl in result.capex_lines:
        if wanted is not None and cl.category not in wanted:
            continue
        rows.append(_quote_row(result.book.row(cl.key).description, cl.quantity, cl.unit_price_usd))
    if result.scenario.opex.ai_enterprise and (wanted is None or "software" in wanted):
        key = "nvidia_ai_enterprise_gpu_year"
        rows.append(_quote_row(f"{result.book.row(key).description}, 1-year", result.gpus, result.book.price(key)))
    return rows


def _quote_row(description: str, quantity: float, unit_usd: float) -> dict[str, Any]:
    return {
        "Part Number": "",
        "Description": description,
        "Qty": quantity,
        "Unit Price (USD)": unit_usd,
        "Extended Price (USD)": quantity * unit_usd,
    }


def rows_to_csv(rows: Sequence[Mapping[str, Any]], comment: str = "") -> bytes:
    """Quote rows as CSV bytes (UTF-8), an optional comment row first; cells are formula-safe."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if comment:
        writer.writerow([safe_cell("# " + comment)])
    columns = list(rows[0]) if rows else list(QUOTE_COLUMNS)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([safe_cell(row.get(c)) for c in columns])
    return buf.getvalue().encode("utf-8")


# --- export ---------------------------------------------------------------------------------------------------------


def safe_cell(value: Any) -> Any:
    """A value safe to put in a spreadsheet cell: text starting with = + - @ (tab, CR) gets a leading apostrophe.

    Numbers stay numbers; None becomes ""; characters XML forbids are removed.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return value if math.isfinite(value) else ""
    text = _ILLEGAL_XML.sub("", str(value))
    return "'" + text if text.startswith(_FORMULA_START) else text


ANNOTATED_COLUMNS = (
    "line",
    "source",
    "section",
    "part_number",
    "description",
    "quantity",
    "unit_price_usd",
    "extended_usd",
    "cluster_quantity",
    "total_usd",
    "classified",
    "component",
    "category",
    "price_key",
    "book_unit_price_usd",
    "findings",
)


def annotated_records(review: QuoteReview) -> list[dict[str, Any]]:
    """One record per quote line with its class, book price and the findings that rest on it."""
    return [
        {
            "line": ln.id,
            "source": ln.source,
            "section": ln.section,
            "part_number": ln.part_number,
            "description": ln.description,
            "quantity": ln.quantity,
            "unit_price_usd": ln.unit_price_usd,
            "extended_usd": ln.extended_usd,
            "cluster_quantity": ln.cluster_quantity,
            "total_usd": ln.total_usd,
            "classified": "yes" if ln.classified else "no",
            "component": ln.component or "",
            "category": ln.category or "",
            "price_key": ln.price_key or "",
            "book_unit_price_usd": ln.book_unit_price_usd,
            "findings": ", ".join(review.findings_of(ln.id)),
        }
        for ln in review.lines
    ]


def finding_records(review: QuoteReview) -> list[dict[str, Any]]:
    """One record per finding, lines as a comma-separated list."""
    return [
        {
            "code": f.code,
            "title": f.title,
            "saving_usd": f.saving_usd,
            "lines": ", ".join(map(str, f.lines)),
            "detail": f.detail,
            "reason": f.reason,
        }
        for f in review.findings
    ]


def to_csv_bytes(review: QuoteReview) -> bytes:
    """The annotated quote as CSV (UTF-8), formula-injection safe."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(ANNOTATED_COLUMNS)
    for rec in annotated_records(review):
        writer.writerow([safe_cell(rec[c]) for c in ANNOTATED_COLUMNS])
    return buf.getvalue().encode("utf-8")


def to_xlsx_bytes(review: QuoteReview) -> bytes:
    """The annotated quote as XLSX: sheets Lines, Findings, Comparison; every text cell written as text."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Lines"
    _write_sheet(ws, ANNOTATED_COLUMNS, annotated_records(review))
    findings = finding_records(review)
    _write_sheet(wb.create_sheet("Findings"), ("code", "title", "saving_usd", "lines", "detail", "reason"), findings)
    comparison = [r.to_dict() for r in review.comparison]
    _write_sheet(wb.create_sheet("Comparison"), tuple(comparison[0]) if comparison else ("category",), comparison)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _write_sheet(ws: Any, columns: Sequence[str], records: Iterable[Mapping[str, Any]]) -> None:
    ws.append([safe_cell(c) for c in columns])
    for rec in records:
        ws.append([safe_cell(rec.get(c)) for c in columns])
    for row in ws.iter_rows():
        for cell in row:
            if isinstance(cell.value, str):
                cell.data_type = "s"  # never a formula, whatever the text


# --- text summary ---------------------------------------------------------------------------------------------------


def text_summary(review: QuoteReview) -> str:
    """Plain-text summary of a review for ``python -m neoplan quote FILE`` (amounts in USD)."""
    size = (
        f"{review.gpus:,} GPUs in {review.servers:,} servers ({review.gpu_model})"
        if review.gpus and review.servers
        else "unknown (no GPU baseboard line)"
    )
    rows = [
        (
            "quote",
            f"{review.name}: {len(review.lines)} lines, {len(review.classified)} classified, "
            f"{len(review.unmatched)} unmatched; {sum(review.skipped.values())} rows skipped",
        ),
        ("size", f"{size}; servers quoted ×{review.servers_quoted}"),
        ("quote total", _usd(review.quote_total_usd)),
    ]
    if review.saving_usd is not None and review.recommended_total_usd is not None:
        share = review.saving_usd / review.compared_quote_usd if review.compared_quote_usd else 0.0
        rows.append(
            (
                "recommended",
                f"{_usd(review.recommended_total_usd)} for the components the quote prices "
                f"({_usd(review.compared_quote_usd)} in the quote)",
            )
        )
        rows.append(("saving", f"{_usd(review.saving_usd)} ({share:.1%})"))
    width = max(len(k) for k, _ in rows)
    out = [f"{k:<{width}}  {v}" for k, v in rows]
    out.append(f"findings ({len(review.findings)}; savings may overlap, negative = cost to fix)")
    out += [
        f"  {f.code:<20} {_usd(f.saving_usd):>14}  lines {', '.join(map(str, f.lines))}: {f.detail}"
        for f in review.findings
    ]
    if review.unmatched:
        out.append("unmatched lines")
        out += [f"  line {ln.id} ({ln.source}): {ln.label}  {_usd(ln.total_usd)}" for ln in review.unmatched]
    out += [f"warning: {w}" for w in review.warnings]
    return "\n".join(out)


# --- samples --------------------------------------------------------------------------------------------------------


def sample_quotes() -> list[Path]:
    """The synthetic sample quotes shipped in ``data/quotes/`` (CSV and XLSX), sorted by name."""
    return sorted(p for p in SAMPLES_DIR.glob("*") if p.suffix.lower() in (".csv", ".xlsx"))


__all__ = [
    "MAX_QUOTE_BYTES",
    "ComparisonRow",
    "Finding",
    "ParsedQuote",
    "QuoteError",
    "QuoteLine",
    "QuoteReview",
    "Rule",
    "annotated_records",
    "apply_recommendations",
    "classify",
    "compare",
    "default_rules",
    "design_quote_rows",
    "load_quote",
    "parse_money",
    "parse_quantity",
    "read_quote",
    "read_quote_file",
    "read_rules",
    "review_quote",
    "rows_to_csv",
    "safe_cell",
    "sample_quotes",
    "text_summary",
    "to_csv_bytes",
    "to_xlsx_bytes",
]
