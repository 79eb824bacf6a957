"""Number formats shared by the app, the exports, the reports and the charts: $1.74 M, $256,400, $2.13 /GPU-h, 18.4 %.

Presentation only: the model never calls these; pages (through ui.format), :mod:`neoplan.export`, the charts'
labels and the messages of :mod:`neoplan.analysis.stress` and :mod:`neoplan.quote` do. :func:`usd` is the one money
format.
"""

from __future__ import annotations

import datetime
import math
import re

NA = "n/a"
MINUS = "−"
"""The minus sign of every format (U+2212, as wide as a plus); never on a value that shows as zero."""


def _missing(value: float | None) -> bool:
    return value is None or not math.isfinite(value)


_COMPACT = ((1e9, "B"), (1e6, "M"), (1e3, "k"))
"""Compact money tiers, largest first: thousand-millions, millions, thousands."""


def usd(
    value: float | None, digits: int = 2, *, compact_from: float = 1e6, decimals: int = 0, signed: bool = False
) -> str:
    """Money [USD], the one money format of the app, the exports, the reports and the charts.

    From ``compact_from`` up it is compact, ``$1.74 M``, ``$2.10 B`` (``digits`` decimals), and with
    ``compact_from=1e3`` also ``$60 k`` (whole thousands, the charts' labels); below it, in full with ``decimals``
    decimals: ``$256,400``, ``$0.08``. ``math.inf`` never compacts (:func:`usd_exact`). Negative amounts take a
    minus sign (``−$368 k``); ``signed`` also gives gains a plus (``+$1.26 M``). Undefined is ``n/a``.
    """
    if _missing(value):
        return NA
    assert value is not None
    v = abs(value)
    body = f"${v:,.{decimals}f}"
    if v >= compact_from:
        for size, suffix in _COMPACT:
            if v >= size:
                body = f"${v / size:,.{0 if suffix == 'k' else digits}f} {suffix}"
                break
    return _signed(value, body, plus=signed)


def _signed(value: float, body: str, *, plus: bool = False) -> str:
    """``body`` (the magnitude as shown) with the sign of ``value``; none when the shown digits are all zero."""
    if not any(ch in "123456789" for ch in body):
        return body
    return (MINUS if value < 0 else "+" if plus and value > 0 else "") + body


def usd_exact(value: float | None, decimals: int = 0) -> str:
    """Money in full, to the dollar (``$256,400``) or to ``decimals`` decimals (``$2.10``)."""
    return usd(value, compact_from=math.inf, decimals=decimals)


def usd_label(value: float | None, signed: bool = False) -> str:
    """A chart's value label, compact from a thousand: ``$1.26 M``, ``$60 k``, ``$512``, ``−$368 k``; ``signed``
    marks gains ``+$60 k``."""
    return usd(value, compact_from=1e3, signed=signed)


def usd_price(value: float | None) -> str:
    """A unit price: cents below $100 (``$0.08``), else as :func:`usd` (``$2,600``, ``$1.20 M``)."""
    return usd(value, decimals=2 if value is not None and abs(value) < 100 else 0)


def usd_per_gpu_hour(value: float | None) -> str:
    """``$2.13 /GPU-h``."""
    return NA if _missing(value) else f"${value:,.2f} /GPU-h"


def usd_per_million_tokens(value: float | None) -> str:
    """``$0.145 /M tok`` (three decimals: token prices run to tenths of a cent)."""
    return NA if _missing(value) else f"${value:,.3f} /M tok"


def tokens_per_second(value: float | None) -> str:
    """``12,413 tok/s``, ``6.66 M tok/s`` above a million."""
    if _missing(value):
        return NA
    assert value is not None
    return f"{value / 1e6:,.2f} M tok/s" if abs(value) >= 1e6 else f"{value:,.0f} tok/s"


def pct(value: float | None, digits: int = 1) -> str:
    """A fraction as percent: 0.184 → ``18.4 %``, −0.05 → ``−5.0 %``."""
    if _missing(value):
        return NA
    assert value is not None
    return _signed(value, f"{abs(value) * 100:,.{digits}f} %")


def months(value: float | None) -> str:
    """Months to one decimal: ``27.4 months``."""
    return NA if _missing(value) else f"{value:,.1f} months"


def ratio(value: float | None) -> str:
    """A cover ratio: ``1.32×``, ``−0.45×`` (never ``−0.00×``)."""
    if _missing(value):
        return NA
    assert value is not None
    return _signed(value, f"{abs(value):,.2f}×")


def mw(kw: float | None) -> str:
    """Power given in kW, shown in MW: ``1.38 MW``."""
    return NA if kw is None or _missing(kw) else f"{kw / 1000:,.2f} MW"


def when(timestamp: str) -> str:
    """An ISO timestamp for people: ``2026-12-01T20:31:59+00:00`` → ``1 Dec 2026, 20:31 UTC`` (as is if unreadable)."""
    try:
        moment = datetime.datetime.fromisoformat(timestamp)
    except (TypeError, ValueError):
        return str(timestamp)
    zone = " UTC" if moment.utcoffset() == datetime.timedelta(0) else ""
    return f"{moment.day} {moment:%b %Y, %H:%M}{zone}"


def kw(value: float | None) -> str:
    """Power in kW below a megawatt, else in MW: ``4.6 kW``, ``1.25 MW``."""
    if _missing(value):
        return NA
    assert value is not None
    return f"{value:,.1f} kW" if abs(value) < 1000 else mw(value)


def count(value: float | None) -> str:
    """Integer count with thousands separators."""
    return NA if _missing(value) else f"{value:,.0f}"


# --- numbers as people type them -------------------------------------------------------------------------------

_GROUPED = re.compile(r"^\d{1,3}([,_ \u00a0\u2009\u202f]\d{3})+(\.\d*)?$")
"""Thousands in groups of three: ``1,024``, ``1 000 000.5``, ``10_000``."""
_PLAIN = re.compile(r"^(\d+\.?\d*|\.\d+)$")
_EXPONENT = re.compile(r"^(.*?)[eE]([+-]?\d{1,5})$")


def parse_number(text: str) -> float:
    """The number in ``text`` as a person types it: ``2.8``, ``-3``, ``1e12``, ``2.5E-3``, ``1,024``, ``$3,200.50``,
    ``85 %``, ``1.2×``. Thousands separators (``,`` ``_`` or a space) only between groups of three; a decimal comma
    is refused (``2,5`` is ambiguous). Raises ValueError with the reason (``enter a number``, …) otherwise; never
    returns nan or an infinity.
    """
    t = text.strip().replace(MINUS, "-")
    if not t:
        raise ValueError("enter a number")
    sign = -1.0 if t[0] == "-" else 1.0
    t = t[1:].lstrip() if t[0] in "+-" else t
    t = t.removeprefix("$").rstrip("%×xX ").strip()
    mantissa, exponent = t, 0
    match = _EXPONENT.match(t)
    if match:
        mantissa, exponent = match.group(1), int(match.group(2))
    if _GROUPED.match(mantissa):
        mantissa = re.sub(r"[,_ \u00a0\u2009\u202f]", "", mantissa)
    elif "," in mantissa:
        raise ValueError("use a point for decimals; commas only between thousands (1,024.5)")
    if not _PLAIN.match(mantissa):
        raise ValueError("enter a number (digits, a point, an exponent such as 1e6)")
    value = sign * float(f"{mantissa}e{exponent}")  # one rounding, as float() of what was typed
    if not math.isfinite(value):
        raise ValueError("enter a finite number")
    return value
