"""What a lender or an investor would stop at first: a covenant breach and a negative NPV at the headline price.

Each :class:`Alert` has a title, a one-line reason with the scenario's own numbers, and the page that explains it.
Pages show them above everything else (the dated price book's notice comes after); the model only words them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..economics import market
from ..formats import pct, ratio, usd, usd_per_gpu_hour
from ..model import Result


@dataclass(frozen=True)
class Alert:
    """A finding that changes the answer: key, title, one-line reason, and the page (``pages/…py``) that explains it."""

    key: str
    title: str
    reason: str
    page: str


def covenant_breach(result: Result) -> Alert | None:
    """The minimum yearly DSCR below the loan covenant, with the year it happens in; None if it holds (or no debt)."""
    low = result.kpis.get("min_dscr")
    covenant = result.scenario.financing.covenant_dscr
    if low is None or not math.isfinite(low) or low >= covenant:
        return None
    table = result.dscr_by_year()["dscr"]
    year = int(np.nanargmin(table)) + 1 if np.isfinite(table).any() else 1
    cover = "cash available for debt service is negative" if low < 0 else f"cash covers debt service only {ratio(low)}"
    return Alert(
        "covenant_breach",
        "Covenant breach",
        f"Minimum DSCR {ratio(low)} in operating year {year}, below the {ratio(covenant)} covenant: {cover}, so the "
        "lender can stop distributions or call the loan.",
        "pages/financing.py",
    )


def negative_npv(result: Result) -> Alert | None:
    """A negative project NPV at the headline price, with why (the sold price path against TCO); None otherwise."""
    npv = result.kpis.get("npv_usd")
    if npv is None or not math.isfinite(npv) or npv >= 0:
        return None
    p = result.scenario.pricing
    decline = market.scenario_average_decline(result.scenario, result.ops.dates.go_live_month)
    path = "prices fall" if p.price_decline_per_year is not None else "along the generation's curve prices fall"
    tco, lifetime = result.kpis.get("tco_usd_per_gpu_hour"), result.sold_usd_per_gpu_hour_lifetime
    breakeven = result.kpis.get("breakeven_usd_per_gpu_hour")
    return Alert(
        "negative_npv",
        "Negative NPV",
        f"NPV {usd(npv)} at {usd_per_gpu_hour(p.usd_per_gpu_hour)}: {path} {pct(decline, 0)} a year on average, "
        f"so a GPU-hour sells for {usd_per_gpu_hour(lifetime)} over the life against a TCO of "
        f"{usd_per_gpu_hour(tco)}; break-even at go-live is {usd_per_gpu_hour(breakeven)}.",
        "pages/pricing.py",
    )


def alerts(result: Result) -> list[Alert]:
    """Every alert of ``result``, most serious first (the covenant, then NPV)."""
    return [a for a in (covenant_breach(result), negative_npv(result)) if a is not None]
