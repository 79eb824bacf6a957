"""A quote's currencies: what the document says, the exchange rates it states, and every line converted to USD.

Evidence of the currency is read everywhere the document writes it: price cells (``₩ 1,234``, ``1.234,00 €``), price
headers (``Unit Price (EUR)``), the amounts of totals and tax rows, a currency column, and the text around the
tables (a title block ``견적금액: ₩ 4,367,360,800``, a units line ``(단위: 원)``, ``All prices in GBP``). A quote may
price lines in two currencies (hardware in USD, local services in SAR) when it states the rate between them
(``1 USD = 3.75 SAR``) or has a currency column; each line is converted at its own currency's rate.

Rates are written many ways; :func:`stated_rates` reads ``1 USD = 3.75 SAR``, ``USD 1 = SAR 3.75``, ``3.75 SAR/USD``,
``3.75 SAR per USD`` (SAR per one USD) and the market's pair notation ``USD/SAR 3.75`` (one USD is 3.75 SAR).

:func:`conversion` decides the USD rate of every currency the lines use: USD is 1; the user's rate
(``--usd-per-unit``) is for the quote's currency (for a quote in USD and one other currency, for that other one);
a rate the document states converts the rest. A rate the user gives is never dropped: it is applied, or refused with
the reason (a quote whose prices are marked in US dollars needs none).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cells import ISO_CURRENCIES, QuoteError, currency_of

MIN_RATE, MAX_RATE = 1e-6, 1e6
"""USD per unit of a currency the review accepts (the won is ~0.0007, the Kuwaiti dinar ~3.3)."""
UNSTATED = "unstated"
"""The currency of a quote that names none, converted at the user's rate."""

_CURRENCY_ALIASES = {
    "US$": "USD", "$": "USD", "DOLLAR": "USD", "DOLLARS": "USD", "달러": "USD", "美元": "USD", "ドル": "USD",
    "€": "EUR", "EURO": "EUR", "EUROS": "EUR", "£": "GBP", "₩": "KRW", "￦": "KRW", "원": "KRW", "WON": "KRW",
    "円": "JPY", "YEN": "JPY", "元": "CNY", "人民币": "CNY", "RMB": "CNY", "RIYAL": "SAR", "RIYALS": "SAR",
    "ر.س": "SAR", "DIRHAM": "AED", "DIRHAMS": "AED", "د.إ": "AED", "RUPEE": "INR", "RUPEES": "INR", "₹": "INR",
}  # fmt: skip
_CCY = "|".join(
    sorted((re.escape(k) for k in (*ISO_CURRENCIES, *_CURRENCY_ALIASES) if k != "$"), key=len, reverse=True)
)
_NUM = r"\d{1,3}(?:[,.\s]\d{3})+(?![\d])(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_RATE_PATTERNS = (
    # 1 USD = 3.75 SAR / 1 USD = SAR 3.75 / USD 1 = SAR 3.75 / 1 US$ = 1,380 원
    re.compile(rf"(?<![\d.,])(?:1|one)\s*(?P<a>{_CCY}|\$)\s*=\s*(?P<n>{_NUM})\s*(?P<b>{_CCY})", re.I),
    re.compile(rf"(?<![\d.,])1\s*(?P<a>{_CCY}|\$)\s*=\s*(?P<b>{_CCY})\s*(?P<n>{_NUM})", re.I),
    re.compile(rf"(?P<a>{_CCY})\s*1\s*=\s*(?P<b>{_CCY})\s*(?P<n>{_NUM})", re.I),
    # 3.75 SAR/USD, 3.75 SAR per USD: SAR per one USD
    re.compile(rf"(?P<n>{_NUM})\s*(?P<b>{_CCY})\s*(?:/|per|for\s+(?:one|1))\s*(?:1\s*|one\s+)?(?P<a>{_CCY}|\$)", re.I),
    # USD/SAR 3.75, USD/SAR: 3.75, USD/SAR rate 3.75: the pair notation (one of the first is so many of the second)
    re.compile(rf"(?<![A-Za-z])(?P<a>{_CCY})\s*/\s*(?P<b>{_CCY})(?![A-Za-z])\s*(?:rate|kurs|taux)?\s*[:=@]?\s*"
               rf"(?P<n>{_NUM})", re.I),
)  # fmt: skip
_RATE_HINT = re.compile(r"=|/|\bper\b|rate|kurs|taux|cambio|환율|汇率|匯率|為替|レート", re.I)
_MONEY_NEAR = re.compile(
    rf"(?:(?<![A-Za-z])(?:{_CCY})|[$€£¥￥₩￦₹])\s?\d[\d,.\s]{{2,}}|\d[\d,.]{{2,}}\s?(?:(?:{_CCY})(?![A-Za-z])|[€£₩원円元])"
)


def _code(token: str) -> str | None:
    """The ISO code of a currency token (``usd``, ``€``, ``원``, ``riyals``); None when it is none."""
    upper = token.strip().upper()
    if upper in ISO_CURRENCIES:
        return upper
    return _CURRENCY_ALIASES.get(upper) or _CURRENCY_ALIASES.get(token.strip())


def _number(text: str) -> float | None:
    """A rate as written: ``3.75``, ``3,75`` (decimal comma), ``1,380`` / ``1.380,50`` / ``1 380`` (thousands)."""
    s = re.sub(r"\s", "", text)
    if re.fullmatch(r"\d+,\d{1,2}|\d+,\d{4,}", s) or re.fullmatch(r"\d{1,3}(\.\d{3})+,\d+", s):
        s = s.replace(".", "").replace(",", ".")
    else:
        s = s.replace(",", "")
    try:
        value = float(s)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


@dataclass(frozen=True)
class StatedRate:
    """An exchange rate the quote states: one ``base`` is ``units`` of ``quote``, on (``sheet``, ``row``)."""

    base: str
    quote: str
    units: float
    sheet: str
    row: int
    text: str

    def usd_per_unit(self, code: str) -> float | None:
        """USD per one ``code`` by this rate (it must name USD and ``code``), else None."""
        if self.base == "USD" and self.quote == code:
            return 1.0 / self.units
        if self.quote == "USD" and self.base == code:
            return self.units
        return None

    @property
    def source(self) -> str:
        """Where the rate is written and what it says: ``row 5 ('1 USD = 3.75 SAR')``."""
        where = f"{self.sheet}!{self.row}" if self.sheet else f"row {self.row}"
        return f"{where} ({self.text[:60]!r})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record."""
        return {"base": self.base, "quote": self.quote, "units": self.units, "sheet": self.sheet, "row": self.row,
                "text": self.text[:120]}  # fmt: skip


def stated_rates(text: str, sheet: str = "", row: int = 0) -> list[StatedRate]:
    """The exchange rates a line of text states (see the module docstring); [] when it states none."""
    if not _RATE_HINT.search(text) or not any(ch.isdigit() for ch in text):
        return []
    out: list[StatedRate] = []
    for pattern in _RATE_PATTERNS:
        for m in pattern.finditer(text):
            a, b, n = _code(m.group("a")), _code(m.group("b")), _number(m.group("n"))
            if a and b and n and a != b:
                out.append(StatedRate(a, b, n, sheet, row, text.strip()[:200]))
        if out:
            return out[:4]
    return out


def money_currencies(text: str) -> list[str]:
    """Currencies a text writes next to an amount (``₩ 3,970,328,000``, ``4.367.360.800 원``, ``USD 12,000``)."""
    out = []
    for m in _MONEY_NEAR.finditer(text):
        token = re.sub(r"[\d,.\s]", "", m.group(0))
        code = _code(token) or currency_of(token)
        if code and code in ISO_CURRENCIES:
            out.append(code)
    return out


# --- conversion -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Conversion:
    """The USD rate of each currency the reviewed lines use, and where each comes from."""

    currency: str
    """The quote's currency (``unstated`` when it names none and the user gave a rate)."""
    rates: Mapping[str, float]
    """USD per unit of each currency [USD]."""
    sources: Mapping[str, str]
    """Where each rate comes from: ``you (--usd-per-unit)``, a row of the quote, ``USD``."""
    notes: tuple[str, ...] = ()

    @property
    def usd_per_unit(self) -> float:
        """USD per unit of the quote's currency."""
        return self.rates.get(self.currency, 1.0)

    def rate_of(self, code: str) -> float:
        """USD per unit of a line's currency (the quote's when the line names none)."""
        return self.rates.get(code or self.currency, self.usd_per_unit)


def check_rate(value: Any, currency: str) -> float:
    """The user's rate as a float; QuoteError naming the currency when it is no positive number in range."""
    if (
        isinstance(value, bool)
        or not (isinstance(value, int | float) and math.isfinite(value))
        or not (MIN_RATE <= value <= MAX_RATE)
    ):
        raise QuoteError(f"the USD rate must be a positive number (USD per {currency}), got {value!r}")
    return float(value)


def _target(currency: str, used: Sequence[str]) -> str | None:
    """The currency the user's rate is for: the quote's, or for a USD quote with one other currency, that one."""
    if currency != "USD":
        return currency
    others = sorted({c for c in used if c != "USD"})
    return others[0] if len(others) == 1 else None


def _user_rate(
    usd_per_unit: float, currency: str, used: Sequence[str], evidence: str, rates: dict[str, float],
    sources: dict[str, str], notes: list[str],
) -> str:  # fmt: skip
    """Apply the user's rate (or refuse it with the reason); the quote's currency as it then reads."""
    target = _target(currency, used)
    if target is None and currency == "USD" and not evidence:
        notes.append(
            f"the quote does not name its currency: its prices are converted at your rate of {usd_per_unit:g} USD "
            "per unit (give the currency with --currency to name it)"
        )
        rates[UNSTATED], sources[UNSTATED] = usd_per_unit, "you (--usd-per-unit)"
        return UNSTATED
    if target is None:
        if abs(usd_per_unit - 1.0) <= 1e-9:
            return currency
        raise QuoteError(
            f"the quote's prices are in USD ({evidence}): a rate of {usd_per_unit:g} USD per unit does not apply; if "
            "they are in another currency, give it with --currency (e.g. --currency KRW) together with the rate"
        )
    stated = sources.get(target)
    if stated is not None and not math.isclose(rates[target], usd_per_unit, rel_tol=0.01):
        notes.append(
            f"the quote states {1 / rates[target]:,.4g} {target} per USD ({stated}); your rate of {usd_per_unit:g} "
            f"USD per {target} is used"
        )
    rates[target], sources[target] = usd_per_unit, "you (--usd-per-unit)"
    return currency


def _document_rates(stated: Sequence[StatedRate], rates: dict[str, float], sources: dict[str, str]) -> None:
    """Rates the document states, to USD directly or through a currency already known."""
    for _ in range(2):  # a second pass chains EUR → SAR through USD
        for r in stated:
            for code in (r.base, r.quote):
                if code in rates:
                    continue
                usd = r.usd_per_unit(code)
                other = r.quote if code == r.base else r.base
                if usd is None and other in rates:
                    usd = rates[other] * (r.units if code == r.base else 1.0 / r.units)
                if usd is not None and MIN_RATE <= usd <= MAX_RATE:
                    rates[code], sources[code] = usd, f"the quote, {r.source}"


def conversion(
    currency: str,
    used: Sequence[str],
    stated: Sequence[StatedRate],
    usd_per_unit: float | None,
    evidence: str = "",
) -> Conversion:
    """The USD rate of every currency in ``used`` (the lines' currencies; the quote's when a line names none).

    ``usd_per_unit`` is the user's rate (USD per unit of the quote's currency, see the module docstring);
    ``evidence`` says where the quote's currency was read ("" when nothing names it). QuoteError when a currency has
    no rate (naming what to give) or the user's rate cannot apply (saying why).
    """
    rates: dict[str, float] = {"USD": 1.0}
    sources: dict[str, str] = {"USD": "USD"}
    notes: list[str] = []
    _document_rates(stated, rates, sources)
    if usd_per_unit is not None:
        rate = check_rate(usd_per_unit, currency)
        currency = _user_rate(rate, currency, used, evidence, rates, sources, notes)
    missing = sorted({c or currency for c in [*used, currency]} - set(rates))
    if missing:
        _refuse(currency, missing, used)
    return Conversion(currency, rates, sources, tuple(notes))


def _refuse(currency: str, missing: Sequence[str], used: Sequence[str]) -> None:
    several = sorted({c for c in [*used, currency] if c})
    if len(several) > 1:
        names = " and ".join(several)
        raise QuoteError(
            f"prices are in several currencies ({names}) and the quote states no exchange rate for "
            f"{' and '.join(missing)}: give the USD rate of {missing[0]} (--usd-per-unit, USD per {missing[0]}) or "
            "ask for the quote in one currency"
        )
    raise QuoteError(
        f"the quote is in {missing[0]}: give the USD rate of the quote's date (--usd-per-unit, USD per 1 {missing[0]})"
    )
