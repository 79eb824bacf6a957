"""Number formats shared by the app, the exports, the reports and the charts: $1.74 M, $256,400, $2.13 /GPU-h, 18.4 %.

Presentation only: the model never calls these; pages (through ui.format), :mod:`neoplan.export`, the charts'
labels and the messages of :mod:`neoplan.stress` and :mod:`neoplan.quote` do. :func:`usd` is the one money format.
"""

from __future__ import annotations

import math

NA = "n/a"


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
    sign = "−" if value < 0 else "+" if signed and value > 0 else ""
    v = abs(value)
    if v >= compact_from:
        for size, suffix in _COMPACT:
            if v >= size:
                return f"{sign}${v / size:,.{0 if suffix == 'k' else digits}f} {suffix}"
    return f"{sign}${v:,.{decimals}f}"


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
