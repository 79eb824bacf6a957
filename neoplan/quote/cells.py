"""Cells of a quote: text, money and quantity parsing; the reader's limits and its error type."""

from __future__ import annotations

import math
import re
from functools import lru_cache

from ..pricebook import DATA_DIR

RULES_FILE = DATA_DIR / "quote_rules.csv"
SAMPLES_DIR = DATA_DIR / "quotes"
MAX_QUOTE_BYTES = 5_000_000
MAX_XLSX_EXPANDED_BYTES = 60_000_000  # all workbook parts together, uncompressed [bytes]
MAX_XLSX_PART_BYTES = 25_000_000  # one workbook part (a sheet's XML, the shared strings), uncompressed [bytes]
MAX_XLSX_PARTS = 2_000
MAX_CELLS = 400_000  # cell elements read from all sheets of a workbook, filled or not
HEADER_SCAN_ROWS = 30  # rows searched for any header
DEEP_HEADER_SCAN_ROWS = 200  # rows searched for a full header (below a cover letter)
MAX_ROWS_PER_SHEET = 20_000
MAX_COLUMNS = 60
MAX_SHEETS = 30
MAX_CELL_CHARS = 500
MAX_MONEY_USD = 1e12
MAX_QUANTITY = 1e8
_CURRENCY_WORDS = re.compile(
    r"\b(usd|us|dollars?|eur|euros?|gbp|chf|jpy|cny|rmb|inr|cad|aud|sek|nok|dkk|pln|sgd|hkd)\b|[$€£¥₹]"
)
# currency signs (longest first) and ISO 4217 codes as they appear in quotes
_SIGNS = (
    ("US$", "USD"), ("AU$", "AUD"), ("CA$", "CAD"), ("NZ$", "NZD"), ("HK$", "HKD"), ("A$", "AUD"), ("C$", "CAD"),
    ("S$", "SGD"), ("R$", "BRL"), ("€", "EUR"), ("£", "GBP"), ("¥", "JPY"), ("₹", "INR"), ("₩", "KRW"), ("$", "USD"),
)  # fmt: skip
ISO_CURRENCIES = frozenset(
    "USD EUR GBP CHF JPY CNY INR CAD AUD NZD SEK NOK DKK PLN CZK HUF RON SGD HKD KRW TWD ILS AED SAR BRL MXN ZAR TRY".split()  # noqa: SIM905, E501
)
_ISO = "|".join(sorted(ISO_CURRENCIES)) + "|RMB"
_ISO_CODE = re.compile(rf"(?<![A-Za-z])({_ISO})(?![A-Za-z])")
_CURRENCY_NAMES = (
    (re.compile(r"\beuros?\b", re.IGNORECASE), "EUR"),
    (re.compile(r"\b(pounds?\s+sterling|sterling|gb\s+pounds?)\b", re.IGNORECASE), "GBP"),
    (re.compile(r"\bswiss\s+francs?\b|\bfranken\b", re.IGNORECASE), "CHF"),
    (re.compile(r"\b(us\s+)?dollars?\b", re.IGNORECASE), "USD"),
    (re.compile(r"\byen\b", re.IGNORECASE), "JPY"),
)
_MONEY_AFFIX = re.compile(rf"^(?:{_ISO}|[A-Z]{{0,2}}\$|[€£¥₹₩])\s*|\s*(?:{_ISO}|[A-Z]{{0,2}}\$|[€£¥₹₩]|,-|\.-)$")
_US_NUMBER = re.compile(r"^(\d{1,3}(,\d{3})+|\d+)(\.\d*)?$|^\.\d+$")
_EU_NUMBER = re.compile(r"^(\d{1,3}(\.\d{3})+|\d+)(,\d*)?$|^,\d+$")
_INDIAN_GROUPS = re.compile(r"^\d{1,2}(,\d{2})+,\d{3}(\.\d*)?$")
_SPACED_THOUSANDS = re.compile(r"^\d{1,3}([ \u00a0\u202f\u2009'’]\d{3})+([.,]\d*)?$")
_ZERO_WORDS = re.compile(r"^(included|incl\.?|n/?c|no charge|free|nil|bundled|at no cost)$", re.IGNORECASE)
_QUANTITY = re.compile(
    r"^[x×]?\s*(?P<n>\d{1,3}([,.]\d{3})+([.,]\d+)?|\d+([.,]\d+)?)\s*"
    r"(?P<unit>ea\.?|each|pcs?\.?|pieces?|units?|x|×|nos?\.?|stk\.?|stück|st\.?|pce?s?|szt\.?|lots?|ls|"
    r"lump\s*sum|sets?|kits?|jobs?|systems?|servers?|nodes?)?$"
)
_XLSX_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0"


class QuoteError(ValueError):
    """A quote that cannot be read; the one-line message says why and is shown as is."""


# --- cells ----------------------------------------------------------------------------------------------------------

Cell = str | float


def _text(cell: Cell) -> str:
    """A cell as a single-line string [max MAX_CELL_CHARS characters]."""
    if isinstance(cell, float):
        if not math.isfinite(cell):
            return ""
        return str(int(cell)) if cell.is_integer() and abs(cell) < 1e15 else repr(cell)
    return " ".join(cell.split())[:MAX_CELL_CHARS]


@lru_cache(maxsize=4_096)
def currency_of(text: str) -> str | None:
    """The ISO 4217 code a text names: a sign (``€``, ``£``, ``US$``, ``$``), a code (``EUR``) or a name
    (``euro``, ``pounds sterling``); None when it names none. ``$`` alone is USD."""
    m = _ISO_CODE.search(text)
    if m:
        return "CNY" if m.group(1) == "RMB" else m.group(1)
    for sign, code in _SIGNS:
        if sign in text:
            return code
    for pattern, code in _CURRENCY_NAMES:
        if pattern.search(text):
            return code
    return None


@lru_cache(maxsize=65_536)
def number_style(text: str) -> str | None:
    """The decimal mark a number text proves: ``","`` for ``1.234,50`` / ``12,50`` / ``1.234.567``, ``"."`` for
    ``1,234.50`` / ``12.50`` / ``1,234,567``; None when it proves neither (``1,234``, ``1.234``, ``1234``)."""
    s = _MONEY_AFFIX.sub("", _MONEY_AFFIX.sub("", text.strip().strip("()-−").strip()))
    s = re.sub(r"(?<=\d)[ \u00a0\u202f\u2009'’](?=\d{3})", "", s)
    if re.fullmatch(r"\d{1,3}(\.\d{3})+,\d*|\d+,\d{1,2}|\d{1,3}(\.\d{3}){2,}", s):
        return ","
    if re.fullmatch(r"\d{1,3}(,\d{3})+\.\d*|\d+\.\d{1,2}|\d{1,3}(,\d{3}){2,}", s):
        return "."
    return None


def clear_caches() -> None:
    """Forget the parsed numbers of the previous file."""
    _number.cache_clear()
    number_style.cache_clear()


def parse_money(cell: Cell, where: str = "", decimal: str | None = None) -> float | None:
    """An amount in the quote's currency, None if the cell is not money.

    Reads ``1234``, ``$1,234.00``, ``USD 1,234.00``, ``(12.50)``, ``1.234,56 €``, ``£ 1 234.50``, ``CHF 1'234.50``,
    ``-25.000,00``. ``decimal`` is the quote's decimal mark (``"."`` or ``","``, see :func:`number_style`); it
    settles ambiguous texts such as ``1.234`` (1234 with a decimal comma); without it they read as US format.
    Words meaning no charge (``included``, ``N/C``) are 0. Amounts above MAX_MONEY_USD are not money (a part
    number or a date). ``where`` is kept for callers that name the cell in messages.
    """
    del where
    if isinstance(cell, float):
        return cell if math.isfinite(cell) and abs(cell) <= MAX_MONEY_USD else None
    s = cell.strip()
    if not s:
        return None
    if _ZERO_WORDS.match(s):
        return 0.0
    value = _number(s, decimal)
    if value is None or abs(value) > MAX_MONEY_USD:
        return None
    return value


_PLAIN_NUMBER = re.compile(r"-?\d{1,15}(\.\d{1,6})?")


@lru_cache(maxsize=65_536)
def _number(text: str, decimal: str | None) -> float | None:
    """A signed number in US or European format, currency signs and codes around it removed (cached: quotes
    repeat their amounts)."""
    if _PLAIN_NUMBER.fullmatch(text) and (decimal != "," or "." not in text or len(text.partition(".")[2]) != 3):
        return float(text)
    s = text
    negative = False
    for _ in range(3):  # signs, brackets and currency affixes in any order: "-€ 1,00", "(USD 12.50)", "€ -1,00"
        before = s
        if s.startswith("(") and s.endswith(")"):
            negative, s = True, s[1:-1].strip()
        if s[:1] in ("-", "−", "–"):
            negative, s = True, s[1:].strip()
        elif s.endswith("-") and not s.endswith(",-") and not s.endswith(".-"):
            negative, s = True, s[:-1].strip()
        s = _MONEY_AFFIX.sub("", s).strip()
        s = re.sub(r"(?i)^(us\s*\$|usd\s*\$?)\s*", "", s)
        if s == before:
            break
    if _INDIAN_GROUPS.match(s):  # 2,34,56,789.00 (lakh and crore groups)
        s = s.replace(",", "")
    if _SPACED_THOUSANDS.match(s):
        s = re.sub(r"(?<=\d)[ \u00a0\u202f\u2009'’](?=\d{3})", "", s)
    style = number_style(s) or decimal or "."
    if style == "," and _EU_NUMBER.match(s):
        value = float(s.replace(".", "").replace(",", ".") or "nan")
    elif _US_NUMBER.match(s):
        value = float(s.replace(",", ""))
    elif _EU_NUMBER.match(s):
        value = float(s.replace(".", "").replace(",", "."))
    else:
        return None
    if not math.isfinite(value):
        return None
    return -value if negative else value


def parse_percent(cell: Cell) -> tuple[float, bool] | None:
    """A discount cell as (number, written with a ``%`` sign): ``57%`` → (57, True), ``0.57`` → (0.57, False)."""
    if isinstance(cell, float):
        return (cell, False) if math.isfinite(cell) and abs(cell) <= 100 else None
    s = cell.strip()
    sign = "%" in s
    value = _number(s.replace("%", "").strip(), None)
    if value is None or abs(value) > 100:
        return None
    return abs(value), sign


def parse_quantity(cell: Cell, decimal: str | None = None) -> float | None:
    """A count such as ``8``, ``1,024``, ``8 ea``, ``x2``, ``16 pcs`` [units]; None if empty or not a count.

    With ``decimal=","`` (a European quote) ``1.024`` is 1024 and ``2,00`` is 2.
    """
    if isinstance(cell, float):
        return cell if math.isfinite(cell) and 0 <= cell <= MAX_QUANTITY else None
    s = cell.strip().lower()
    m = _QUANTITY.match(s)
    if not m:
        return None
    number = m.group("n")
    if (decimal == "," and number_style(number) != ".") or number_style(number) == ",":
        value = float(number.replace(".", "").replace(",", "."))
    else:
        value = float(number.replace(",", ""))
    return value if value <= MAX_QUANTITY else None


def quantity_unit(cell: Cell) -> str:
    """The unit a quantity cell names, normalised: ``"lot"`` (lot, LS, lump sum), ``"set"``, ``"system"``, ``""``
    for plain counts (``8``, ``8 ea``, ``8 pcs``)."""
    if isinstance(cell, float):
        return ""
    m = _QUANTITY.match(cell.strip().lower())
    unit = (m.group("unit") or "") if m else ""
    for word, name in (("lot", "lot"), ("ls", "lot"), ("lump", "lot"), ("set", "set"), ("kit", "set"),
                       ("job", "lot"), ("system", "system"), ("server", "system"), ("node", "system")):  # fmt: skip
        if unit.startswith(word):
            return name
    return ""


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)
