"""What a lender reads beside the returns: warnings on sponsor support, debt left at the horizon and a loan that
outlives its hardware. One case each (arrays (1, months) of :class:`neoplan.finance.project.CashFlows`); money in USD.
"""

from __future__ import annotations

import numpy as np

from .. import formats
from ..timebase import MONTHS_PER_YEAR
from .project import CashFlows, loan_rate

SUPPORT_TOLERANCE = 1e-6
"""Sponsor support smaller than this share of the equity first put in is rounding, not support [fraction]."""


def month_ranges(months: np.ndarray) -> str:
    """Months as runs: ``50–53, 61, 64–71``."""
    runs: list[str] = []
    values = [int(m) for m in months]
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        runs.append(f"{values[i]}" if i == j else f"{values[i]}–{values[j]}")
        i = j + 1
    return ", ".join(runs)


def sponsor_support(equity_fcf: np.ndarray) -> tuple[float, np.ndarray]:
    """(cash equity puts in after distributions began [USD, ≥ 0], the months it does) of one case's equity flows."""
    flows = np.asarray(equity_fcf, dtype=float).reshape(-1)
    paid_out = np.flatnonzero(flows > 0)
    if paid_out.size == 0:
        return 0.0, np.zeros(0, dtype=int)
    later = np.arange(flows.size) > paid_out[0]
    calls = np.flatnonzero(later & (flows < 0))
    return float(-flows[calls].sum()), calls


def sponsor_support_warnings(cf: CashFlows, kpis: dict[str, float | None], hurdle_rate: float) -> list[str]:
    """A sentence when equity puts cash in again after distributions began (debt service beyond the cash flow, a
    reserve, a refresh): the amount, the months, and the equity NPV and MIRR to read beside the IRR."""
    equity = cf.equity_fcf[0]
    amount, months = sponsor_support(equity)
    first_in = -float(equity[: max(int(np.argmax(equity > 0)), 1)].clip(max=0.0).sum())
    if not amount > SUPPORT_TOLERANCE * max(first_in, 1.0):
        return []
    irr, npv, mirr = kpis.get("equity_irr"), kpis.get("equity_npv_usd"), kpis.get("equity_mirr")
    start = int(np.argmax(equity > 0))
    rate = float(loan_rate(cf)[0]) * MONTHS_PER_YEAR
    return [
        f"Sponsor support: after distributions begin in month {start}, equity puts in {formats.usd(amount)} more in "
        f"{months.size} month(s) ({month_ranges(months)}), cash the project does not earn then (debt service above "
        "CFADS, the reserve, a refresh). An IRR over such flows counts early distributions against later calls: read "
        f"the equity IRR ({_pct(irr)}) beside the equity NPV at the {formats.pct(hurdle_rate)} hurdle "
        f"({formats.usd(npv)}) and the MIRR ({_pct(mirr)}; outflows discounted at the loan's "
        f"{formats.pct(rate)} all-in rate, inflows reinvested at the hurdle)."
    ]


def _pct(value: float | None) -> str:
    """A rate for a sentence; n/a when undefined."""
    return formats.NA if value is None or not np.isfinite(value) else formats.pct(value)


def horizon_debt_warnings(cf: CashFlows, horizon_months: int, term_end_month: int) -> list[str]:
    """A sentence when debt is still outstanding at the horizon, before the loan's ``term_end_month``: the amount,
    and how the model repays it (the sale proceeds first, equity the rest; no refinancing)."""
    debt = cf.debt
    payoff, swept = float(debt.payoff[0, -1]), float(debt.swept[0, -1])
    owed = payoff + swept
    if not owed > 1e-6 * max(float(debt.drawn_usd[0]), 1.0):
        return []
    return [
        f"Debt of {formats.usd(owed)} is still outstanding at the {horizon_months}-month horizon, before the loan "
        f"matures in month {term_end_month}: the model repays it in the last month, {formats.usd(swept)} from the "
        f"sale proceeds and {formats.usd(payoff)} by equity (no refinancing is assumed); the DSCR and LLCR cover only "
        "the months inside the horizon."
    ]


def term_past_life_warnings(
    cf: CashFlows, end_of_life_month: float, end_of_life: str, term_end_month: int
) -> list[str]:
    """A sentence when the loan's term runs past the hardware's useful life inside the horizon: what repays it."""
    debt = cf.debt
    horizon = debt.balance.shape[1]
    if not term_end_month > end_of_life_month or not float(debt.drawn_usd[0]) > 0 or end_of_life_month >= horizon:
        return []
    sale = int(end_of_life_month)
    swept = float(debt.swept[0, sale])
    owed = float(debt.balance[0, sale]) + swept + float(debt.payoff[0, sale])
    after = (
        "the refresh cluster's cash serves the rest"
        if end_of_life == "refresh"
        else "with no revenue after the shutdown, equity pays the rest"
    )
    return [
        f"The loan's term runs to month {term_end_month}, past the end of the hardware's useful life in month "
        f"{end_of_life_month:.1f}: the sale then repays {formats.usd(swept)} of the {formats.usd(owed)} outstanding "
        f"(a sweep) and {after}; shorten financing.term_months to the useful life or less."
    ]
