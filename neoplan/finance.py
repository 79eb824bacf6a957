"""Monthly project finance: debt, depreciation, tax, cash flows and returns.

Conventions (numpy-financial style, stated once):

* Monthly grid, month 0 = purchase order; the cash flow of month ``t`` sits at
  time ``t`` months. NPV discounts month ``t`` by ``(1 + r_m) ** t`` (month 0 not
  at all), with the monthly rate ``r_m = (1 + r) ** (1/12) - 1`` from an annual ``r``.
* Annual IRR = ``(1 + monthly IRR) ** 12 - 1``. Outflows are negative.
* Every array has shape ``(n, months)``: ``n`` cases evaluated at once (n = 1 for
  one scenario). Loops run over months only, never over cases.
* Debt is drawn pro rata with capex payments. Interest accrues monthly at
  ``rate / 12`` on the balance after the month's draw. Before the first full
  operating month interest is capitalised (or paid, if ``capitalize_idc`` is
  false); repayment starts ``grace_months`` after that and ends at
  ``term_months``. Debt still outstanding at the horizon is repaid then.
* Upfront fee: paid at the first draw, expensed for tax. Depreciation:
  straight line from go-live over the useful life. Tax: monthly on taxable
  income with losses carried forward (no carry-back). The residual value is
  received in the last month; its gain over book value is taxed.
* CFADS (cash flow available for debt service) = EBITDA − tax paid. DSCR is
  measured on 12-month periods from the first full operating month.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy_financial as npf

from .scenario import Financing

SCULPT_ITERATIONS = 4


def monthly_rate(annual_rate: float | np.ndarray) -> np.ndarray:
    """Monthly rate equivalent to an annual effective rate [fraction per month]."""
    return (1.0 + np.asarray(annual_rate, dtype=float)) ** (1.0 / 12.0) - 1.0


def npv(annual_rate: float | np.ndarray, cash_flows: np.ndarray) -> np.ndarray:
    """NPV of monthly ``cash_flows`` (..., months) at an annual discount rate; month 0 undiscounted [USD]."""
    cf = np.asarray(cash_flows, dtype=float)
    r = monthly_rate(annual_rate)[..., None]
    t = np.arange(cf.shape[-1])
    return (cf / (1.0 + r) ** t).sum(axis=-1)


def irr_annual(cash_flows: np.ndarray, *, lo: float = -0.99, hi: float = 1.0, bisections: int = 12,
               newton_steps: int = 10) -> np.ndarray:
    """Annual IRR of monthly ``cash_flows`` (..., months): bisection on the monthly rate, then safeguarded Newton.

    Rows without a sign change in NPV between the bracket ends (monthly rates ``lo``, ``hi``)
    give ``nan`` (no IRR, e.g. a project that never pays back). For cash flows with one sign
    change (outflows, then inflows) the root is unique.
    """
    cf = np.atleast_2d(np.asarray(cash_flows, dtype=float))
    t = np.arange(cf.shape[-1])

    def f(r: np.ndarray) -> np.ndarray:
        return (cf * (1.0 + r[:, None]) ** -t).sum(axis=-1)

    a = np.full(cf.shape[0], lo)
    b = np.full(cf.shape[0], hi)
    fa, fb = f(a), f(b)
    ok = np.sign(fa) * np.sign(fb) < 0
    for _ in range(bisections):
        m = 0.5 * (a + b)
        fm = f(m)
        left = np.sign(fa) * np.sign(fm) <= 0
        b, a, fa = np.where(left, m, b), np.where(left, a, m), np.where(left, fa, fm)
    r = 0.5 * (a + b)
    for _ in range(newton_steps):
        disc = (1.0 + r[:, None]) ** -t
        value = (cf * disc).sum(axis=-1)
        slope = (-t * cf * disc / (1.0 + r[:, None])).sum(axis=-1)
        step = np.where(slope != 0, value / np.where(slope != 0, slope, 1.0), 0.0)
        r = np.clip(r - step, a, b)
    out = np.where(ok, (1.0 + r) ** 12 - 1.0, np.nan)
    return out.reshape(np.shape(cash_flows)[:-1]) if np.ndim(cash_flows) > 1 else out[0]


def payback_months(cash_flows: np.ndarray) -> np.ndarray:
    """Months from month 0 until cumulative cash first turns non-negative after being negative.

    Linear within the month it crosses; ``nan`` if it never does.
    """
    cf = np.atleast_2d(np.asarray(cash_flows, dtype=float))
    cum = np.cumsum(cf, axis=-1)
    was_negative = np.maximum.accumulate(cum < 0, axis=-1)
    crossed = was_negative & (cum >= 0)
    any_cross = crossed.any(axis=-1)
    t = np.argmax(crossed, axis=-1)
    rows = np.arange(cf.shape[0])
    prev = cum[rows, np.maximum(t - 1, 0)]
    step = cf[rows, t]
    frac = np.where(step > 0, -prev / np.where(step > 0, step, 1.0), 0.0)
    out = np.where(any_cross, t - 1 + frac, np.nan)  # month t's flow sits at time t, as in npv
    return out.reshape(np.shape(cash_flows)[:-1]) if np.ndim(cash_flows) > 1 else out[0]


def tax_with_loss_carry_forward(taxable: np.ndarray, rate: float) -> np.ndarray:
    """Tax per month on ``taxable`` income (..., months), losses carried forward, none back [USD].

    Closed form of the carry-forward recursion: the income taxed up to month t is
    the running maximum of cumulative taxable income (floored at 0), so the tax of
    month t is ``rate`` × the rise of that running maximum.
    """
    x = np.asarray(taxable, dtype=float)
    taxed = np.maximum.accumulate(np.maximum(np.cumsum(x, axis=-1), 0.0), axis=-1)
    return rate * np.diff(taxed, axis=-1, prepend=0.0)


def depreciation(capex_usd: np.ndarray, months: int, go_live: float, life_months: int) -> np.ndarray:
    """Straight-line depreciation per month from go-live over ``life_months`` [USD]."""
    t = np.arange(months, dtype=float)
    done = np.clip(t + 1.0 - go_live, 0.0, life_months) - np.clip(t - go_live, 0.0, life_months)
    return np.asarray(capex_usd)[..., None] * done / life_months


@dataclass(frozen=True)
class DebtSchedule:
    """Monthly debt flows (n, months) [USD]; balance is at the end of each month."""

    draws: np.ndarray
    interest: np.ndarray
    interest_capitalized: np.ndarray
    interest_paid: np.ndarray
    principal: np.ndarray
    payoff: np.ndarray
    balance: np.ndarray
    fee: np.ndarray
    repay_start: int
    maturity: int

    @property
    def debt_service(self) -> np.ndarray:
        """Scheduled cash to lenders per month: interest + principal, horizon payoff excluded [USD]."""
        return self.interest_paid + self.principal


def annuity_payment(principal: np.ndarray, rate_per_month: np.ndarray, months: int) -> np.ndarray:
    """Level monthly payment repaying ``principal`` over ``months`` (``numpy_financial.pmt``; rate 0 allowed)."""
    positive = rate_per_month > 1e-9
    safe = np.where(positive, rate_per_month, 1.0)
    return np.where(positive, -npf.pmt(safe, months, principal), principal / months)


def repayment_window(financing: Financing, first_operating_month: int, months: int) -> tuple[int, int]:
    """(first repayment month, last repayment month + 1) on the monthly grid."""
    start = first_operating_month + financing.grace_months
    maturity = financing.term_months
    if start >= maturity:
        raise ValueError(
            f"financing.term_months ({maturity}) must be longer than construction plus grace "
            f"(repayment would start in month {start})"
        )
    return start, min(maturity, months)


def debt_schedule(
    financing: Financing,
    capex_payments: np.ndarray,
    first_operating_month: int,
    cfads: np.ndarray | None = None,
    rate: float | np.ndarray | None = None,
) -> DebtSchedule:
    """Draws, interest, repayment and balance for the chosen amortization [USD].

    ``sculpted``: debt service each month is ``cfads / target_dscr`` (n, months), so
    DSCR holds at the target; service below the month's interest capitalises the
    rest. A loan repaid early simply ends; whatever is still owed at maturity is
    due then (a balloon, which shows as a DSCR below target in that period).
    """
    pay = np.atleast_2d(capex_payments)
    n, months = pay.shape
    r_m = np.broadcast_to(np.asarray(financing.interest_rate if rate is None else rate, dtype=float), (n,)) / 12.0
    draws = financing.debt_share * pay
    start, end = repayment_window(financing, first_operating_month, months)
    interest = np.zeros_like(pay)
    capitalized = np.zeros_like(pay)
    principal = np.zeros_like(pay)
    payoff = np.zeros_like(pay)
    balance = np.zeros_like(pay)
    level_payment = np.zeros(n)
    bal = np.zeros(n)
    for t in range(months):
        bal = bal + draws[:, t]
        interest[:, t] = bal * r_m
        if t < first_operating_month and financing.capitalize_idc:
            capitalized[:, t] = interest[:, t]
            bal = bal + interest[:, t]
        if t == start:
            left = max(financing.term_months - start, 1)
            level_payment = annuity_payment(bal, r_m, left)
        if start <= t < end:
            if financing.amortization == "annuity":
                due = level_payment - interest[:, t]
            elif financing.amortization == "straight_line":
                due = bal / max(financing.term_months - t, 1)
            else:
                flow = np.zeros(n) if cfads is None else np.atleast_2d(cfads)[:, t]
                due = np.maximum(flow, 0.0) / financing.target_dscr - interest[:, t]
                short = np.maximum(-due, 0.0)  # service below interest: the rest is capitalised
                capitalized[:, t] += short
                bal = bal + short
            if t == end - 1 and end == financing.term_months:
                due = bal
            principal[:, t] = np.clip(due, 0.0, bal)
        bal = bal - principal[:, t]
        if t == months - 1:
            payoff[:, t] = bal  # anything left is repaid at the horizon
            bal = bal - payoff[:, t]
        balance[:, t] = bal
    paid = interest - capitalized
    fee = np.zeros_like(pay)
    first = int(np.argmax(draws.sum(axis=0) > 0)) if draws.any() else 0
    fee[:, first] = financing.upfront_fee_rate * draws.sum(axis=1)
    return DebtSchedule(draws, interest, capitalized, paid, principal, payoff, balance, fee, start, end)


def residual_flows(
    capex_total: np.ndarray, dep: np.ndarray, months: int, residual_share: float
) -> tuple[np.ndarray, np.ndarray]:
    """(residual proceeds, taxable gain over book value) per month, both in the last month [USD]."""
    n = dep.shape[0]
    residual = np.zeros((n, months))
    residual[:, -1] = residual_share * capex_total
    gain = residual.copy()
    gain[:, -1] -= capex_total - dep.sum(axis=1)
    return residual, gain


def project_flows(
    ebitda: np.ndarray,
    capex_payments: np.ndarray,
    dep: np.ndarray,
    residual: np.ndarray,
    gain: np.ndarray,
    tax_rate: float,
) -> tuple[np.ndarray, np.ndarray]:
    """(unlevered tax, project free cash flow) per month [USD]: the project as if all-equity."""
    tax = tax_with_loss_carry_forward(ebitda - dep + gain, tax_rate)
    return tax, ebitda - capex_payments - tax + residual


@dataclass(frozen=True)
class CashFlows:
    """The monthly accounts and cash flows of the project (n, months) [USD]."""

    revenue: np.ndarray
    opex: np.ndarray
    ebitda: np.ndarray
    depreciation: np.ndarray
    ebit: np.ndarray
    interest: np.ndarray
    fees: np.ndarray
    taxable_income: np.ndarray
    tax: np.ndarray
    net_income: np.ndarray
    capex: np.ndarray
    residual: np.ndarray
    debt: DebtSchedule
    project_tax: np.ndarray
    project_fcf: np.ndarray
    equity_fcf: np.ndarray

    @property
    def cfads(self) -> np.ndarray:
        """Cash flow available for debt service: EBITDA − tax paid [USD]."""
        return self.ebitda - self.tax


def cash_flows(
    financing: Financing,
    *,
    revenue: np.ndarray,
    opex: np.ndarray,
    capex_payments: np.ndarray,
    capex_total: np.ndarray,
    go_live: float,
    life_months: int,
    residual_share: float,
    interest_rate: float | np.ndarray | None = None,
) -> CashFlows:
    """Assemble accounts and cash flows from revenue, opex and capex payments (all (n, months)) [USD]."""
    revenue, opex, pay = (np.atleast_2d(a).astype(float) for a in (revenue, opex, capex_payments))
    revenue, opex, pay = np.broadcast_arrays(revenue, opex, pay)
    n, months = revenue.shape
    capex_total = np.broadcast_to(np.asarray(capex_total, dtype=float), (n,))
    first_operating = int(np.ceil(go_live))
    ebitda = revenue - opex
    dep = depreciation(capex_total, months, go_live, life_months)
    residual, gain = residual_flows(capex_total, dep, months, residual_share)

    debt = debt_schedule(financing, pay, first_operating, rate=interest_rate)
    tax = np.zeros_like(revenue)
    for _ in range(SCULPT_ITERATIONS if financing.amortization == "sculpted" else 1):
        if financing.amortization == "sculpted":
            debt = debt_schedule(financing, pay, first_operating, cfads=ebitda - tax, rate=interest_rate)
        taxable = ebitda - dep - debt.interest - debt.fee + gain
        tax = tax_with_loss_carry_forward(taxable, financing.tax_rate)
    project_tax, project_fcf = project_flows(ebitda, pay, dep, residual, gain, financing.tax_rate)
    equity_fcf = (
        ebitda - pay + debt.draws - debt.interest_paid - debt.principal - debt.payoff - debt.fee - tax + residual
    )
    return CashFlows(
        revenue=revenue,
        opex=opex,
        ebitda=ebitda,
        depreciation=dep,
        ebit=ebitda - dep,
        interest=debt.interest,
        fees=debt.fee,
        taxable_income=taxable,
        tax=tax,
        net_income=taxable - tax,
        capex=pay,
        residual=residual,
        debt=debt,
        project_tax=project_tax,
        project_fcf=project_fcf,
        equity_fcf=equity_fcf,
    )


def dscr_by_period(cf: CashFlows, first_operating_month: int) -> tuple[np.ndarray, np.ndarray]:
    """DSCR of each 12-month period from the first full operating month: (period start months, (n, periods)).

    A period is cut at the loan's maturity (CFADS after it serves no debt); a period without
    scheduled debt service has DSCR ``nan``.
    """
    service, cfads = cf.debt.debt_service, cf.cfads
    months = min(service.shape[1], cf.debt.maturity)
    starts = np.arange(first_operating_month, months, 12)
    ratios = []
    for start in starts:
        stop = min(start + 12, months)
        ds = service[:, start:stop].sum(axis=1)
        flow = cfads[:, start:stop].sum(axis=1)
        ratios.append(np.where(ds > 1e-6, flow / np.where(ds > 1e-6, ds, 1.0), np.nan))
    table = np.stack(ratios, axis=1) if ratios else np.full((service.shape[0], 0), np.nan)
    return starts, table


def min_dscr(cf: CashFlows, first_operating_month: int) -> np.ndarray:
    """Lowest DSCR over 12-month periods from the first full operating month; ``nan`` without debt service."""
    _, table = dscr_by_period(cf, first_operating_month)
    if table.shape[1] == 0 or np.all(np.isnan(table)):
        return np.full(table.shape[0], np.nan)
    return np.nanmin(np.where(np.isnan(table), np.inf, table), axis=1)
