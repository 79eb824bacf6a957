"""Number formats shared by the app, the exports and the reports: $1.74 M, $256,400, $2.13 /GPU-h, 18.4 %.

Presentation only: the model never calls these; pages (through ui.format), export.py and reports do.
"""

from __future__ import annotations

import math

NA = "n/a"


def _missing(value: float | None) -> bool:
    return value is None or not math.isfinite(value)


def usd(value: float | None, digits: int = 2) -> str:
    """Money, compact above a million: ``$1.74 M``, ``$34.56 M``, ``$2.1 B``, else ``$256,400``."""
    if _missing(value):
        return NA
    assert value is not None
    sign = "−" if value < 0 else ""
    v = abs(value)
    if v >= 1e9:
        return f"{sign}${v / 1e9:,.{digits}f} B"
    if v >= 1e6:
        return f"{sign}${v / 1e6:,.{digits}f} M"
    return f"{sign}${v:,.0f}"


def usd_exact(value: float | None) -> str:
    """Money to the dollar: ``$256,400``."""
    if _missing(value):
        return NA
    assert value is not None
    return f"{'−' if value < 0 else ''}${abs(value):,.0f}"


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
    return f"{'−' if value < 0 else ''}{abs(value) * 100:,.{digits}f} %"


def months(value: float | None) -> str:
    """Months to one decimal: ``27.4 months``."""
    return NA if _missing(value) else f"{value:,.1f} months"


def ratio(value: float | None) -> str:
    """A cover ratio: ``1.32×``."""
    return NA if _missing(value) else f"{value:,.2f}×"


def mw(kw: float | None) -> str:
    """Power given in kW, shown in MW: ``1.38 MW``."""
    return NA if kw is None or _missing(kw) else f"{kw / 1000:,.2f} MW"


def kw(value: float | None) -> str:
    """Power in kW below a megawatt, else in MW: ``4.6 kW``, ``1.25 MW``."""
    if _missing(value):
        return NA
    assert value is not None
    return f"{value:,.1f} kW" if abs(value) < 1000 else mw(value)


def count(value: float | None) -> str:
    """Integer count with thousands separators."""
    return NA if _missing(value) else f"{value:,.0f}"
