"""Debt cover: DSCR by year of repayment, LLCR, covenant headroom, and the sentence on a loan sized below its cap.

DSCR is measured on 12-month periods from each case's first repayment month (the grace months' interest, paid
before it, is in no period), to the last month with debt service due (the last maturity, the horizon, or sooner when
the debt is repaid sooner): CFADS ÷ debt service due in the period
(interest paid and principal, the balance due at maturity included; prepayments and the horizon's payoff excluded).
CFADS and service smaller than :data:`~neoplan.finance.waterfall.CASH_TOLERANCE_USD` are rounding and count as 0.
LLCR at the start of each period: CFADS to the last maturity discounted at the debt's average rate ÷ the debt owed
then. The lock-up and covenant *tests* of the waterfall are quarterly on trailing 12 months
(:mod:`neoplan.finance.waterfall`); these yearly ratios are the lender's summary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..inputs.business import Financing
from ..timebase import MONTHS_PER_YEAR
from .waterfall import CASH_TOLERANCE_USD

if TYPE_CHECKING:
    from .accounts import CashFlows


def _index(size: int) -> np.ndarray:
    return np.arange(size)


def _per_case(value: int | np.ndarray, n: int) -> np.ndarray:
    """Whole months (one for every case, or one per case) as one int per case (n,)."""
    a = np.asarray(value, dtype=int)
    return a if a.shape == (n,) else np.broadcast_to(a, (n,))


def repayment_periods(cf: CashFlows) -> tuple[np.ndarray, np.ndarray]:
    """(first repayment month, the month after the last one with debt service due) of each case (n,): repayment
    ends at the last maturity, the horizon, or earlier when the debt is repaid sooner (a sculpted loan repaid as its
    contracts pay, a prepaid one)."""
    debt = cf.debt
    n, horizon = debt.interest.shape
    due = debt.debt_service > CASH_TOLERANCE_USD
    last = np.where(due.any(axis=1), horizon - 1 - due[:, ::-1].argmax(axis=1), -1)
    end = np.minimum(np.minimum(_per_case(debt.maturity, n), horizon), last + 1)
    return _per_case(debt.repay_start, n), end


def _cleaned(a: np.ndarray) -> np.ndarray:
    """``a`` with amounts below the cash tolerance set to 0 (rounding residues after a shutdown)."""
    return np.where(np.abs(a) < CASH_TOLERANCE_USD, 0.0, a)


def dscr_table(cf: CashFlows, first_month: int | np.ndarray | None = None) -> np.ndarray:
    """DSCR of each 12-month period from each case's first repayment month (n, periods) [ratio] (module docstring).

    ``first_month`` (one, or per case (n,)) replaces the first repayment month as the start of the periods. A period
    without debt service due, or that does not exist for that case, has DSCR ``nan``.
    """
    debt = cf.debt
    n, horizon = debt.interest.shape
    start, end = repayment_periods(cf)
    first = start if first_month is None else _per_case(first_month, n)
    year = MONTHS_PER_YEAR
    periods = max(-(-int((end - first).max(initial=0)) // year), 0)
    if periods == 0:
        return np.full((n, 0), np.nan)
    month = first[:, None] + _index(periods * year)
    inside = month < end[:, None]
    at = _index(n)[:, None], np.minimum(month, horizon - 1)
    ds, flow = (
        np.where(inside, _cleaned(a)[at], 0.0).reshape(n, periods, year).sum(axis=-1)
        for a in (debt.debt_service, cf.cfads)
    )
    exists = first[:, None] + year * _index(periods) < end[:, None]
    return np.divide(flow, ds, out=np.full(ds.shape, np.nan), where=exists & (ds > CASH_TOLERANCE_USD))


def dscr_by_period(cf: CashFlows, first_month: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """DSCR of each 12-month period of repayment: (period start months of the first case, (n, periods))."""
    table = dscr_table(cf, first_month)
    start = int(np.ravel(repayment_periods(cf)[0])[0]) if first_month is None else int(first_month)
    return start + MONTHS_PER_YEAR * np.arange(table.shape[1]), table


def min_dscr(cf: CashFlows, first_month: int | np.ndarray | None = None) -> np.ndarray:
    """Lowest DSCR over the 12-month periods of repayment (n,); ``nan`` without debt service."""
    return np.fmin.reduce(dscr_table(cf, first_month), axis=1, initial=np.nan)  # fmin skips nan


def loan_rate(cf: CashFlows) -> np.ndarray:
    """The average interest rate of each case's debt (n,) [fraction per month]: interest ÷ balance owed, over its
    life (one tranche at a fixed rate: that rate)."""
    return np.asarray(cf.debt.rate_per_month, dtype=float)


def llcr_table(cf: CashFlows, first_month: int | np.ndarray | None = None) -> np.ndarray:
    """Loan life cover ratio at the start of each 12-month DSCR period (n, periods) [ratio] (:func:`dscr_table`).

    At the start of month m: PV of CFADS from month m to the last maturity (cut at the horizon), discounted at
    :func:`loan_rate` (month m by one month), ÷ the debt owed then (the balance after month m − 1 plus month m's
    draw); ``nan`` where no debt is owed or the period does not exist for that case.
    """
    debt = cf.debt
    n, horizon = debt.balance.shape
    start, end = repayment_periods(cf)
    first = start if first_month is None else _per_case(first_month, n)
    periods = dscr_table(cf, first).shape[1]
    starts = np.minimum(first[:, None] + MONTHS_PER_YEAR * _index(periods), horizon - 1)
    rows = _index(n)[:, None]
    before = np.where(starts > 0, debt.balance[rows, np.maximum(starts - 1, 0)], 0.0)
    owed = before + debt.draws[rows, starts]
    r = loan_rate(cf)[:, None]
    t = _index(horizon)
    weighted = np.where(t < end[:, None], _cleaned(cf.cfads) * (1.0 + r) ** -(t + 1.0), 0.0)
    from_month = np.cumsum(weighted[:, ::-1], axis=1)[:, ::-1]
    value = from_month[rows, starts] * (1.0 + r) ** starts
    exists = (first[:, None] + MONTHS_PER_YEAR * _index(periods) < end[:, None]) & (owed > CASH_TOLERANCE_USD)
    return np.divide(value, owed, out=np.full(owed.shape, np.nan), where=exists)


def llcr(cf: CashFlows, first_month: int | np.ndarray | None = None) -> np.ndarray:
    """Loan life cover ratio at the first repayment month (n,) [ratio]; ``nan`` without debt then."""
    table = llcr_table(cf, first_month)
    return table[:, 0] if table.shape[1] else np.full(table.shape[0], np.nan)


def covenant_headroom(min_dscr_value: np.ndarray | float, covenant_dscr: float) -> np.ndarray:
    """Share by which CFADS can fall in the weakest year before its DSCR breaches ``covenant_dscr`` [fraction].

    ``1 − covenant / min DSCR``: 0.2 means a 20 % fall in that year's CFADS still meets the covenant; a
    negative value is a breach already; ``nan`` without a DSCR (no debt service) or with a min DSCR ≤ 0.
    """
    low = np.asarray(min_dscr_value, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(low > 0, 1.0 - covenant_dscr / low, np.nan)


def sculpted_size_warnings(financing: Financing, cf: CashFlows, capex_usd: float) -> list[str]:
    """A sentence when a loan sized on a cash flow (sculpted on CFADS, or on contracts) lends less than the share
    of capex asked for (one case): sizing dscr is explained by :func:`neoplan.finance.lender.sizing_sentence`."""
    on_contracts = financing.sizing == "contracted_revenue"
    sculpted = financing.amortization == "sculpted" and financing.sizing == "capex_share"
    if not (sculpted or on_contracts) or not capex_usd > 0:
        return []
    drawn = float(cf.debt.drawn_usd[0])
    asked = financing.debt_share * capex_usd
    if not asked > 0 or drawn >= asked * (1.0 - 1e-9):
        return []
    what = "Debt sized on contracted revenue" if on_contracts else "Sculpted debt sized"
    basis = "the contracted cash flow" if on_contracts else "CFADS"
    return [
        f"{what} at ${drawn:,.0f} ({drawn / capex_usd:.1%} of capex), below the "
        f"{financing.debt_share:.0%} debt share: {basis} ÷ {financing.target_dscr:g} repays no more by maturity."
    ]
