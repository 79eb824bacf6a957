"""The model's clock: time constants and what "month" and "year" mean.

- **Month** (``t`` = 0, 1, …, ``timeline.horizon_months`` − 1): the model's time step, counted from the
  purchase order (month 0); key dates (delivery, install start, go-live) are fractional months on it.
- **Project year** ``y`` = months 12 (y − 1) … 12 y − 1 from the purchase order: the rows of the yearly P&L
  and the debt table.
- **Operating year** ``k`` ≥ 1 = the k-th 12 months after go-live: what opex by year, hardware support
  after the warranty and the DSCR periods count in. Year 1 starts at go-live.
- **Labels** (:mod:`neoplan.finance.statements`): "Y1", "Y2", … name project years (P&L, debt by year); "Year 1",
  "Year 2", … name operating years (opex by year). Neither is a calendar year.

Hours: one definition, the mean Julian year of 365.25 days = 8,766 h, so a month is 730.5 h for both the
GPU-hours sold and the energy drawn (a year of energy is 12 such months).
"""

from __future__ import annotations

import numpy as np

MONTHS_PER_YEAR = 12
DAYS_PER_YEAR = 365.25
"""Mean Julian year [days]."""
HOURS_PER_YEAR = 24 * DAYS_PER_YEAR
"""Hours of a mean Julian year [h] (8,766): energy drawn in a year, and 12 months of GPU-hours."""
HOURS_PER_MONTH = HOURS_PER_YEAR / MONTHS_PER_YEAR
"""Hours of a mean Julian month [h] (730.5): the GPU-hours one GPU can sell in a month, and a month of energy."""
WEEKS_PER_MONTH = 52.1775 / MONTHS_PER_YEAR
"""Weeks of a mean month (52.1775 weeks a year)."""
DAYS_PER_MONTH = DAYS_PER_YEAR / MONTHS_PER_YEAR
"""Days of a mean month (30.4375)."""


def operating_year_index(months: int, go_live_month: float | np.ndarray) -> np.ndarray:
    """Operating year of each month, 0-based (0 = operating year 1, also before go-live) [int].

    A month belongs to the operating year its middle falls in; ``go_live_month`` may be (n, 1) columns.
    """
    t = np.arange(months, dtype=float)
    return np.maximum(np.floor((t + 0.5 - go_live_month) / MONTHS_PER_YEAR), 0).astype(int)


def operating_year_share(months: int, go_live_month: float, year: int) -> np.ndarray:
    """Share of each month inside operating year ``year`` (1 = the 12 months from go-live) [fraction, 0–1]."""
    start = go_live_month + MONTHS_PER_YEAR * (year - 1)
    t = np.arange(months, dtype=float)
    return np.clip(t + 1 - start, 0, 1) - np.clip(t + 1 - start - MONTHS_PER_YEAR, 0, 1)


def monthly_rate(annual_rate: float | np.ndarray) -> np.ndarray:
    """Monthly rate equivalent to an annual effective rate [fraction per month]."""
    return (1.0 + np.asarray(annual_rate, dtype=float)) ** (1.0 / MONTHS_PER_YEAR) - 1.0
