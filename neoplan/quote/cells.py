"""Cells of a quote: text, money and quantity parsing; the reader's limits and its error type."""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache

from ..inputs.pricebook import DATA_DIR
from ..limits import QUOTE_FILE_BYTES
from .errors import QuoteError as QuoteError  # re-exported: raised by every reader

RULES_FILE = DATA_DIR / "quote_rules.csv"
SAMPLES_DIR = DATA_DIR / "quotes"
MAX_QUOTE_BYTES = QUOTE_FILE_BYTES  # neoplan.limits: the uploader shows and enforces the same
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
    ("S$", "SGD"), ("R$", "BRL"), ("€", "EUR"), ("£", "GBP"), ("¥", "¥"), ("￥", "¥"), ("₹", "INR"), ("₩", "KRW"),
    ("￦", "KRW"), ("ر.س", "SAR"), ("﷼", "SAR"), ("د.إ", "AED"), ("$", "USD"), ("＄", "USD"),
)  # fmt: skip
"""A bare ¥ is yuan or yen: ``"¥"`` here, decided by the document's words (:mod:`neoplan.quote.statements`)."""
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
    (re.compile(r"\byen\b|円", re.IGNORECASE), "JPY"),
    (
        re.compile(r"\byuan\b|\brenminbi\b|人民币|人民幣|(?<=\d)\s*元|[(（]\s*元\s*[)）]|[:：]\s*元", re.IGNORECASE),
        "CNY",
    ),
    (re.compile(r"(?<=\d)\s*원|[(（]\s*원\s*[)）]|\bwon\b", re.IGNORECASE), "KRW"),
    (re.compile(r"\b(saudi\s+)?riyals?\b", re.IGNORECASE), "SAR"),
    (re.compile(r"\b(uae\s+|emirati\s+)?dirhams?\b", re.IGNORECASE), "AED"),
    (re.compile(r"\b(indian\s+)?rupees?\b", re.IGNORECASE), "INR"),
)
_SIGN_CHARS = "€£¥￥₹₩￦＄円元원﷼"
_MONEY_AFFIX = re.compile(
    rf"^(?:{_ISO}|[A-Z]{{0,2}}\$|[{_SIGN_CHARS}]|人民币|人民幣|ر\.س|د\.إ)\s*|"
    rf"\s*(?:{_ISO}|[A-Z]{{0,2}}\$|[{_SIGN_CHARS}]|人民币|人民幣|ر\.س|د\.إ|,-|\.-)$"
)

_US_NUMBER = re.compile(r"^(\d{1,3}(,\d{3})+|\d+)(\.\d*)?$|^\.\d+$")
_EU_NUMBER = re.compile(r"^(\d{1,3}(\.\d{3})+|\d+)(,\d*)?$|^,\d+$")
_INDIAN_GROUPS = re.compile(r"^\d{1,2}(,\d{2})+,\d{3}(\.\d*)?$")
_SPACED_THOUSANDS = re.compile(r"^\d{1,3}([ \u00a0\u202f\u2009'’]\d{3})+([.,]\d*)?$")


@lru_cache(maxsize=1)  # keyed on nothing: compiled once from the read-only vocabulary
def _price_unit() -> re.Pattern[str]:
    """A unit after a price: ``USD 289,500.00 ea``, ``$1,200/ea``, ``$12.00 each``, ``10,000 lot``, ``1,000円/台``
    (``unit_word`` and ``unit_counter`` of ``data/quote_vocabulary.csv``)."""
    from .vocab import words

    return re.compile(
        rf"(?:\s*/\s*|\bper\s+|\s+)(?:{words('unit_word')}|node|server|system)\s*$|\s*/?\s*{words('unit_counter')}\s*$",
        re.IGNORECASE,
    )


@lru_cache(maxsize=1)  # keyed on nothing: compiled once from the read-only vocabulary
def _quantity() -> re.Pattern[str]:
    """A quantity cell: a number and an optional unit (``8 ea``, ``x2``, ``16 pcs``, ``1 lot``, ``8台``, ``1式``)."""
    from .vocab import words

    return re.compile(
        r"^[x×]?\s*(?P<n>\d{1,3}([,.]\d{3})+([.,]\d+)?|\d+([.,]\d+)?)\s*"
        rf"(?P<unit>{words('unit_word')}|x|×|systems?|servers?|nodes?|racks?|{words('unit_counter')})?$",
        re.IGNORECASE,
    )


_XLSX_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0"


# --- cells ------------------------------------------------------------------------------------------------------------

Cell = str | float


@lru_cache(maxsize=65_536)  # keyed on a cell (str | float | None), a pure function of it
def _text(cell: Cell) -> str:
    """A cell as a single-line string [max MAX_CELL_CHARS characters]."""
    if isinstance(cell, float):
        if not math.isfinite(cell):
            return ""
        return str(int(cell)) if cell.is_integer() and abs(cell) < 1e15 else repr(cell)
    return " ".join(cell.split())[:MAX_CELL_CHARS]


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


@lru_cache(maxsize=65_536)  # keyed on a cell text, pure; cleared per file (clear_caches; quote review +15 % without)
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


@lru_cache(maxsize=4_096)  # keyed on a text, a pure function of it and the read-only vocabulary
def is_free(text: str) -> bool:
    """True for a price cell that says no charge: ``Included``, ``N/C``, ``no charge``, ``含``, ``無償``, ``inklusive``
    (the ``free`` vocabulary of ``data/quote_vocabulary.csv``)."""
    from .vocab import fold, pattern  # the vocabulary module reads data/ and raises this module's QuoteError

    return bool(pattern("free", r"^\s*(?:{})\s*$").match(fold(text)))


def clear_caches() -> None:
    """Forget the parsed numbers of the previous file."""
    for cached in (_number, number_style, _text, parse_quantity, quantity_unit):
        cached.cache_clear()


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
    if not s.isascii():
        s = unicodedata.normalize("NFKC", s).strip()
    if is_free(s):
        return 0.0
    value = _number(s, decimal)
    if value is None or abs(value) > MAX_MONEY_USD:
        return None
    return value


_PLAIN_NUMBER = re.compile(r"-?\d{1,15}(\.\d{1,6})?")


@lru_cache(maxsize=65_536)  # keyed on a cell text and a decimal mark, pure; cleared per file (review +20 % without)
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
        s = _price_unit().sub("", s)
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


@lru_cache(maxsize=65_536)  # keyed on (cell, decimal mark), a pure function of them
def parse_quantity(cell: Cell, decimal: str | None = None) -> float | None:
    """A count such as ``8``, ``1,024``, ``8 ea``, ``x2``, ``16 pcs`` [units]; None if empty or not a count.

    With ``decimal=","`` (a European quote) ``1.024`` is 1024 and ``2,00`` is 2.
    """
    if isinstance(cell, float):
        return cell if math.isfinite(cell) and 0 <= cell <= MAX_QUANTITY else None
    s = cell.strip().lower()
    if not s.isascii():
        s = unicodedata.normalize("NFKC", s).replace("一式", "1式").strip()
    m = _quantity().match(s)
    if not m:
        return None
    number = m.group("n")
    if (decimal == "," and number_style(number) != ".") or number_style(number) == ",":
        value = float(number.replace(".", "").replace(",", "."))
    else:
        value = float(number.replace(",", ""))
    return value if value <= MAX_QUANTITY else None


@lru_cache(maxsize=16_384)  # keyed on a cell, a pure function of it and the read-only vocabulary
def quantity_unit(cell: Cell) -> str:
    """The unit a quantity cell names, normalised: ``"lot"`` (lot, LS, lump sum), ``"set"``, ``"system"``, ``""``
    for plain counts (``8``, ``8 ea``, ``8 pcs``)."""
    if isinstance(cell, float):
        return ""
    text = cell.strip().lower()
    text = text if text.isascii() else unicodedata.normalize("NFKC", text).replace("一式", "1式")
    m = _quantity().match(text)
    unit = (m.group("unit") or "") if m else ""
    for word, name in (("lot", "lot"), ("ls", "lot"), ("lump", "lot"), ("set", "set"), ("kit", "set"),
                       ("job", "lot"), ("system", "system"), ("server", "system"), ("node", "system"), ("式", "lot"),
                       ("식", "lot"), ("套", "set"), ("세트", "set"), ("rack", "rack")):  # fmt: skip
        if unit.startswith(word):
            return name
    return ""


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)
