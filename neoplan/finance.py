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

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy_financial as npf

from .errors import ScenarioError
from .scenario import Financing
from .timebase import MONTHS_PER_YEAR

SCULPT_ITERATIONS = 4


def monthly_rate(annual_rate: float | np.ndarray) -> np.ndarray:
    """Monthly rate equivalent to an annual effective rate [fraction per month]."""
    return (1.0 + np.asarray(annual_rate, dtype=float)) ** (1.0 / MONTHS_PER_YEAR) - 1.0


@lru_cache(maxsize=64)
def _growth(annual_rate: float, months: int) -> np.ndarray:
    """``(1 + r_m) ** t`` for t = 0 … months-1 at one annual rate (read-only; cached: NPVs reuse a few rates)."""
    out = (1.0 + monthly_rate(annual_rate)[..., None]) ** np.arange(months)
    out.flags.writeable = False
    return out


def npv(annual_rate: float | np.ndarray, cash_flows: np.ndarray) -> np.ndarray:
    """NPV of monthly ``cash_flows`` (..., months) at an annual discount rate; month 0 undiscounted [USD]."""
    cf = np.asarray(cash_flows, dtype=float)
    months = cf.shape[-1]
    if np.ndim(annual_rate) == 0:
        return (cf / _growth(float(annual_rate), months)).sum(axis=-1)
    r = monthly_rate(annual_rate)[..., None]
    return (cf / (1.0 + r) ** np.arange(months)).sum(axis=-1)


def _discount_factors(x: np.ndarray, months: int) -> np.ndarray:
    """``x ** t`` for t = 0 … months-1, one row per case (n, months), by repeated multiplication along each row.

    Each row comes from the same multiplications whatever the number of rows, so a case's result does
    not depend on the batch it is evaluated in.
    """
    out = np.empty((x.size, months))
    out[:, 0] = 1.0
    out[:, 1:] = x[:, None]
    return np.cumprod(out, axis=1, out=out)


def _npv_at(cf: np.ndarray, r: np.ndarray, t: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """NPV of monthly ``cf`` (n, months) at monthly rates ``r`` (n,), and d NPV / d r when ``t`` is given.

    Row-wise sums of products (``einsum`` without BLAS), so each row's result is independent of the others.
    """
    x = 1.0 / (1.0 + r)
    factors = _discount_factors(x, cf.shape[-1])
    value = np.einsum("ij,ij->i", cf, factors, optimize=False)
    if t is None:
        return value, None
    factors *= t
    return value, -np.einsum("ij,ij->i", cf, factors, optimize=False) * x


IRR_GRID_MONTHLY = (
    -0.7, -0.5, -0.4, -0.3, -0.25, -0.21, -0.18, -0.155, -0.135, -0.12, -0.105, -0.09, -0.075, -0.065, -0.055,
    -0.046, -0.038, -0.031, -0.025, -0.02, -0.015, -0.011, -0.007, -0.0035, 0.0, 0.0025, 0.005, 0.0075, 0.01,
    0.0125, 0.015, 0.0175, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.06, 0.075, 0.1, 0.13, 0.17, 0.25, 0.35, 0.5,
    0.7,
)
"""Monthly rates at which :func:`irr_annual` first tabulates NPV to bracket each root (between its ends)."""


def _inverse_quadratic(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, fa: np.ndarray, fb: np.ndarray, fc: np.ndarray
) -> np.ndarray:
    """Root estimate inside each bracket [a, b] from the inverse quadratic through three points.

    Falls back to linear interpolation between a and b where the quadratic is undefined or leaves the
    bracket. Call under ``np.errstate(divide="ignore", invalid="ignore")``: coincident values divide by 0.
    """
    quadratic = (
        a * fb * fc / ((fa - fb) * (fa - fc))
        + b * fa * fc / ((fb - fa) * (fb - fc))
        + c * fa * fb / ((fc - fa) * (fc - fb))
    )
    linear = a - fa * (b - a) / (fb - fa)
    linear = np.where(np.isfinite(linear), np.minimum(np.maximum(linear, a), b), 0.5 * (a + b))
    return np.where((quadratic > a) & (quadratic < b), quadratic, linear)


@lru_cache(maxsize=32)
def _irr_grid(lo: float, hi: float, months: int) -> tuple[np.ndarray, np.ndarray]:
    """(monthly rates, discount factors (months, rates)) of the first tabulation of :func:`irr_annual`."""
    rates = np.array([lo, *(g for g in IRR_GRID_MONTHLY if lo < g < hi), hi])
    factors = (1.0 + rates[None, :]) ** -np.arange(months, dtype=float)[:, None]
    rates.flags.writeable = factors.flags.writeable = False
    return rates, factors


def irr_annual(
    cash_flows: np.ndarray, *, lo: float = -0.99, hi: float = 1.0, tol: float = 1e-12, max_iterations: int = 200
) -> np.ndarray:
    """Annual IRR of monthly ``cash_flows`` (..., months): bracketed, safeguarded Newton on the monthly rate.

    Rows without a sign change in NPV between the bracket ends (monthly rates ``lo``, ``hi``) give
    ``nan`` (no IRR, e.g. a project that never pays back). NPV is first tabulated at the rates of
    ``IRR_GRID_MONTHLY`` inside the ends; each row takes the highest-rate sign change as its bracket
    and starts from the inverse quadratic through it and a neighbouring grid point. It then takes a
    Newton step when the step stays inside the bracket and at least halves the step before last, else
    bisects (``rtsafe`` of Numerical Recipes), until a bisection moves less than ``tol`` [monthly rate]
    or a Newton step less than ``√(tol / months)`` (the error a Newton step h leaves is about
    ``|f''/2f'| h² ≤ months h²``). Rows never interact, so a case gives the same IRR alone or in a
    batch. With one sign change in the flows (outflows, then inflows) the root is unique; with several,
    the highest one in the range is returned.
    """
    cf = np.atleast_2d(np.asarray(cash_flows, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        r, ok = _irr_monthly(cf, float(lo), float(hi), tol, max_iterations)
    out = np.where(ok, (1.0 + r) ** MONTHS_PER_YEAR - 1.0, np.nan)
    return out.reshape(np.shape(cash_flows)[:-1]) if np.ndim(cash_flows) > 1 else out[0]


def _irr_monthly(cf: np.ndarray, lo: float, hi: float, tol: float, max_iterations: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(monthly IRR, whether defined) of each row of ``cf`` (n, months); see :func:`irr_annual`."""
    n, months = cf.shape
    t = np.arange(months, dtype=float)
    rates, factors = _irr_grid(lo, hi, months)
    table = np.einsum("ij,jk->ik", cf, factors, optimize=False)
    sign = np.sign(table)
    ok = sign[:, 0] * sign[:, -1] < 0
    change = sign[:, :-1] * sign[:, 1:] <= 0
    j = rates.size - 2 - np.argmax(change[:, ::-1], axis=1)  # highest-rate bracket with a sign change
    rows = np.arange(n)
    a, b, fa, fb = rates[j], rates[j + 1], table[rows, j], table[rows, j + 1]
    k = np.where(j > 0, j - 1, np.minimum(j + 2, rates.size - 1))  # a third grid point next to the bracket
    r = _inverse_quadratic(a, b, rates[k], fa, fb, table[rows, k])
    r = np.where(fa == 0, a, np.where(fb == 0, b, r))
    newton_tol = max(math.sqrt(tol / months), tol)  # Newton's error after a step h is ~ |f''/2f'| h² ≤ months h²
    # the rows still solving, compacted: their index, flows, rate, bracket [a, b] (f(a) = fa), last two steps
    idx = np.nonzero(ok & (fa != 0) & (fb != 0))[0]
    state = [cf[idx], r[idx], a[idx], b[idx], fa[idx], b[idx] - a[idx], b[idx] - a[idx]]
    for _ in range(max_iterations):
        if idx.size == 0:
            break
        flows, rr, aa, bb, faa, step_before, step = state
        value, slope = _npv_at(flows, rr, t)
        assert slope is not None
        same = np.sign(value) == np.sign(faa)
        aa, faa, bb = np.where(same, rr, aa), np.where(same, value, faa), np.where(same, bb, rr)
        newton = rr - value / slope
        use_newton = (newton >= aa) & (newton <= bb) & (np.abs(2.0 * value) <= np.abs(step_before * slope))
        at_root = value == 0
        nxt = np.where(at_root, rr, np.where(use_newton, newton, 0.5 * (aa + bb)))
        moved = np.abs(nxt - rr)
        finished = at_root | (moved <= tol) | (use_newton & (moved <= newton_tol))
        state = [flows, nxt, aa, bb, faa, step, moved]
        if finished.any():
            r[idx[finished]] = nxt[finished]
            keep = ~finished
            idx, state = idx[keep], [x[keep] for x in state]
    return r, ok


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
    rise = np.empty_like(taxed)
    rise[..., :1] = taxed[..., :1]
    np.subtract(taxed[..., 1:], taxed[..., :-1], out=rise[..., 1:])
    return rate * rise


def _per_case(value: float | np.ndarray) -> float | np.ndarray:
    """A scalar as is; an array of per-case values (n,) as a column (n, 1) that broadcasts over months."""
    return np.asarray(value, dtype=float)[..., None] if np.ndim(value) else value


def depreciation(
    capex_usd: np.ndarray, months: int, go_live: float | np.ndarray, life_months: float | np.ndarray
) -> np.ndarray:
    """Straight-line depreciation per month from go-live over ``life_months`` [USD].

    ``go_live`` [month] and ``life_months`` [months] may be arrays of per-case values (n,).
    """
    t = np.arange(months, dtype=float)
    start, life = _per_case(go_live), _per_case(life_months)
    done = np.clip(t + 1.0 - start, 0.0, life) - np.clip(t - start, 0.0, life)
    return np.asarray(capex_usd)[..., None] * done / life


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
    repay_start: int | np.ndarray
    """First repayment month; an array (n,) when the cases go live in different months."""
    maturity: int

    @property
    def debt_service(self) -> np.ndarray:
        """Scheduled cash to lenders per month: interest + principal, horizon payoff excluded [USD]."""
        return self.interest_paid + self.principal


def annuity_payment(principal: np.ndarray, rate_per_month: np.ndarray, months: int) -> np.ndarray:
    """Level monthly payment repaying ``principal`` over ``months`` [USD/month].

    ``numpy_financial.pmt`` (payments at month end, ``P r / (1 − (1 + r)^−months)``); a rate of 0 repays
    ``P / months``.
    """
    positive = rate_per_month > 1e-9
    safe = np.where(positive, rate_per_month, 1.0)
    return np.where(positive, -npf.pmt(safe, months, principal), principal / months)


def repayment_window(
    financing: Financing, first_operating_month: int | np.ndarray, months: int
) -> tuple[int | np.ndarray, int]:
    """(first repayment month, last repayment month + 1) on the monthly grid.

    ``first_operating_month`` may be an array of per-case months (n,); the start is then an array too.
    """
    start = first_operating_month + financing.grace_months
    maturity = financing.term_months
    if np.any(start >= maturity):
        raise ScenarioError(
            f"financing.term_months ({maturity}) must be longer than construction plus grace "
            f"(repayment would start in month {int(np.max(start))})"
        )
    return start, min(maturity, months)


def debt_schedule(
    financing: Financing,
    capex_payments: np.ndarray,
    first_operating_month: int | np.ndarray,
    cfads: np.ndarray | None = None,
    rate: float | np.ndarray | None = None,
    debt_share: float | np.ndarray | None = None,
) -> DebtSchedule:
    """Draws, interest, repayment and balance for the chosen amortization [USD].

    ``sculpted``: debt service each month is ``cfads / target_dscr`` (n, months), so
    DSCR holds at the target; service below the month's interest capitalises the
    rest. A loan repaid early simply ends; whatever is still owed at maturity is
    due then (a balloon, which shows as a DSCR below target in that period).

    ``first_operating_month``, ``rate`` [per year] and ``debt_share`` [fraction] may be
    arrays of per-case values (n,); by default the financing's own values apply.
    Annuity and straight-line loans drawn before repayment starts are computed in closed
    form over all months at once (:func:`_level_schedule`); the rest month by month.
    """
    pay = np.atleast_2d(capex_payments)
    n, months = pay.shape
    annual = np.asarray(financing.interest_rate if rate is None else rate, dtype=float)
    r_m = np.broadcast_to(annual, (n,)) / MONTHS_PER_YEAR
    share = np.broadcast_to(np.asarray(financing.debt_share if debt_share is None else debt_share, dtype=float), (n,))
    draws = pay * share[:, None]
    first_op = np.broadcast_to(np.asarray(first_operating_month), (n,))
    start, end = repayment_window(financing, first_operating_month, months)
    start_n = np.broadcast_to(np.asarray(start), (n,))
    drawn_late = (draws != 0) & (np.arange(months) > start_n[:, None])
    if financing.amortization != "sculpted" and not drawn_late.any():
        flows = _level_schedule(financing, draws, r_m, first_op, start_n, end)
    else:
        flows = _schedule_by_month(financing, draws, r_m, first_op, start_n, end, cfads)
    interest, capitalized, principal, payoff, balance = flows
    fee = np.zeros_like(pay)
    first_draw = np.argmax(draws > 0, axis=1)  # each case pays the fee at its own first draw
    fee[np.arange(n), first_draw] = financing.upfront_fee_rate * draws.sum(axis=1)
    return DebtSchedule(draws, interest, capitalized, interest - capitalized, principal, payoff, balance, fee, start,
                        end)


def _level_schedule(
    financing: Financing,
    draws: np.ndarray,
    r_m: np.ndarray,
    first_op: np.ndarray,
    start: np.ndarray,
    end: int,
) -> tuple[np.ndarray, ...]:
    """(interest, capitalised, principal, payoff, balance) (n, months) of annuity or straight-line loans [USD].

    Closed form of the month-by-month rules of :func:`debt_schedule` for loans fully drawn by the
    first repayment month ``start``: before it the balance compounds (capitalised interest) or
    stays; from it the annuity balance is ``B q^(k+1) − P (q^(k+1) − 1) / r`` (q = 1 + r, k months
    into repayment) and the straight-line balance ``B (T − t − 1) / (T − start)``, with whatever is
    left due at maturity ``T`` (or at the horizon).
    """
    n, months = draws.shape
    t = np.arange(months)
    r = r_m[:, None]
    s = start[:, None]
    term = financing.term_months
    growth = np.where((t < first_op[:, None]) & financing.capitalize_idc, 1.0 + r, 1.0)
    compounded = np.cumprod(growth, axis=1)
    before = np.empty_like(compounded)
    before[:, 0] = 1.0
    before[:, 1:] = compounded[:, :-1]
    drawn = compounded * np.cumsum(draws / before, axis=1)  # balance if nothing were repaid
    at_start = drawn[np.arange(n), np.minimum(start, months - 1)][:, None]  # owed when repayment starts
    repaying = (t >= s) & (t < end)
    if financing.amortization == "annuity":
        step = np.cumprod(np.where(t >= s, 1.0 + r, 1.0), axis=1)  # q^(k+1) from the start month on
        payment = annuity_payment(at_start[:, 0], r_m, np.maximum(term - start, 1))[:, None]
        positive = r > 1e-9
        paid_down = np.where(positive, payment * (step - 1.0) / np.where(positive, r, 1.0), payment * (t - s + 1))
        repaid = at_start * np.where(positive, step, 1.0) - paid_down
    else:
        repaid = at_start * (term - t - 1) / np.maximum(term - s, 1)
    balance = np.where(t < s, drawn, np.where(repaying, np.maximum(repaid, 0.0), 0.0))
    if end == term:
        balance[:, end - 1] = 0.0  # whatever is left falls due at maturity
    owed = np.empty_like(balance)
    owed[:, 0] = draws[:, 0]
    owed[:, 1:] = balance[:, :-1] + draws[:, 1:]
    interest = owed * r
    capitalized = np.where(growth > 1.0, interest, 0.0)
    principal = np.where(repaying, owed - balance, 0.0)
    payoff = np.zeros_like(balance)
    payoff[:, -1] = balance[:, -1]  # anything left is repaid at the horizon
    balance[:, -1] = 0.0
    return interest, capitalized, principal, payoff, balance


def _by_month(flags: Any) -> list[bool]:
    """Per-month flags as a Python list (cheap to read inside the month loop)."""
    return [bool(f) for f in np.asarray(flags).tolist()]


def _schedule_by_month(
    financing: Financing,
    draws: np.ndarray,
    r_m: np.ndarray,
    first_op: np.ndarray,
    start: np.ndarray,
    end: int,
    cfads: np.ndarray | None,
) -> tuple[np.ndarray, ...]:
    """(interest, capitalised, principal, payoff, balance) (n, months), month by month (any amortization) [USD]."""
    n, months = draws.shape
    # the loop runs over (months, n) arrays: row t holds month t of every case
    draws_m = draws.T
    month = np.arange(months)[:, None]
    cap_m: np.ndarray = np.logical_and(month < first_op, financing.capitalize_idc)
    rep_m: np.ndarray = (month >= start) & (month < end)
    start_m: np.ndarray = month == start
    # per month: does it apply to every case, to some (then masked per case), or to none
    cap_all, cap_any = _by_month(cap_m.all(axis=1)), _by_month(cap_m.any(axis=1))
    rep_all, rep_any = _by_month(rep_m.all(axis=1)), _by_month(rep_m.any(axis=1))
    start_any = _by_month(start_m.any(axis=1))
    left = np.maximum(financing.term_months - start, 1)
    has_draw = _by_month(draws_m.any(axis=1))
    last_drawn = max((t for t, drawn in enumerate(has_draw) if drawn), default=-1)
    flow_m = None if cfads is None else np.ascontiguousarray(np.maximum(np.atleast_2d(cfads), 0.0).T)
    interest, capitalized, principal, payoff, balance = (np.zeros((months, n)) for _ in range(5))
    level_payment = np.zeros(n)
    bal = np.zeros(n)
    for t in range(months):
        if t > last_drawn and t >= end and not bal.any():
            break  # repaid: the rest of every schedule is zero
        if has_draw[t]:
            bal = bal + draws_m[t]
        owed = bal * r_m
        interest[t] = owed
        if cap_any[t]:
            capitalized[t] = owed if cap_all[t] else np.where(cap_m[t], owed, 0.0)
            bal = bal + capitalized[t]
        if start_any[t]:
            level_payment = np.where(start_m[t], annuity_payment(bal, r_m, left), level_payment)
        if rep_any[t]:
            if financing.amortization == "annuity":
                due = level_payment - owed
            elif financing.amortization == "straight_line":
                due = bal / max(financing.term_months - t, 1)
            else:
                flow = np.zeros(n) if flow_m is None else flow_m[t]
                due = flow / financing.target_dscr - owed
                short = np.maximum(-due, 0.0)  # service below interest: the rest is capitalised
                if not rep_all[t]:
                    short = np.where(rep_m[t], short, 0.0)
                capitalized[t] += short
                bal = bal + short
            if t == end - 1 and end == financing.term_months:
                due = bal
            due = np.minimum(np.maximum(due, 0.0), bal)
            principal[t] = due if rep_all[t] else np.where(rep_m[t], due, 0.0)
            bal = bal - principal[t]
        if t == months - 1:
            payoff[t] = bal  # anything left is repaid at the horizon
            bal = bal - payoff[t]
        balance[t] = bal
    return tuple(np.ascontiguousarray(m.T) for m in (interest, capitalized, principal, payoff, balance))


def residual_flows(
    capex_total: np.ndarray, dep: np.ndarray, months: int, residual_share: float | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(residual proceeds, taxable gain over book value) per month, both in the last month [USD].

    ``residual_share`` [fraction of capex] may be an array of per-case values (n,).
    """
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
    capex_total: float | np.ndarray,
    go_live: float | np.ndarray,
    life_months: float | np.ndarray,
    residual_share: float | np.ndarray,
    interest_rate: float | np.ndarray | None = None,
    debt_share: float | np.ndarray | None = None,
) -> CashFlows:
    """Assemble accounts and cash flows from revenue, opex and capex payments (all (n, months)) [USD].

    ``go_live`` [month], ``life_months`` [months], ``residual_share`` [fraction of capex], ``interest_rate``
    [per year] and ``debt_share`` [fraction] may be arrays of per-case values (n,) (stress tests).
    """
    revenue, opex, pay = (np.atleast_2d(a).astype(float) for a in (revenue, opex, capex_payments))
    revenue, opex, pay = np.broadcast_arrays(revenue, opex, pay)
    n, months = revenue.shape
    capex_total = np.broadcast_to(np.asarray(capex_total, dtype=float), (n,))
    first_operating: int | np.ndarray = int(np.ceil(go_live)) if np.ndim(go_live) == 0 else 0
    if np.ndim(go_live):
        per_case = np.ceil(go_live).astype(int)
        # one month for all cases: an int, so the debt schedule's repay_start is one too
        first_operating = int(per_case[0]) if np.all(per_case == per_case[0]) else per_case
    ebitda = revenue - opex
    dep = depreciation(capex_total, months, go_live, life_months)
    residual, gain = residual_flows(capex_total, dep, months, residual_share)

    debt = debt_schedule(financing, pay, first_operating, rate=interest_rate, debt_share=debt_share)
    tax = np.zeros_like(revenue)
    for _ in range(SCULPT_ITERATIONS if financing.amortization == "sculpted" else 1):
        if financing.amortization == "sculpted":
            debt = debt_schedule(
                financing, pay, first_operating, cfads=ebitda - tax, rate=interest_rate, debt_share=debt_share
            )
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


def dscr_table(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """DSCR of each 12-month period from each case's first full operating month (n, periods) [ratio].

    ``first_operating_month`` may be an array of per-case months (n,); period k of a case starts
    ``12 k`` months after its own first operating month. A period is cut at the loan's maturity
    (CFADS after it serves no debt); a period without scheduled debt service, or that does not
    exist for that case, has DSCR ``nan``.
    """
    service, cfads = cf.debt.debt_service, cf.cfads
    n, horizon = service.shape
    months = min(horizon, cf.debt.maturity)
    first = np.broadcast_to(np.asarray(first_operating_month), (n,))
    periods = max(-(-(months - int(first.min())) // MONTHS_PER_YEAR), 0)
    if periods == 0:
        return np.full((n, 0), np.nan)
    year = MONTHS_PER_YEAR
    month = first[:, None, None] + year * np.arange(periods)[None, :, None] + np.arange(year)[None, None, :]
    inside = month < months
    rows, at = np.arange(n)[:, None, None], np.minimum(month, horizon - 1)
    ds = np.where(inside, service[rows, at], 0.0).sum(axis=-1)
    flow = np.where(inside, cfads[rows, at], 0.0).sum(axis=-1)
    exists = inside[:, :, 0]
    return np.where(exists & (ds > 1e-6), flow / np.where(ds > 1e-6, ds, 1.0), np.nan)


def dscr_by_period(cf: CashFlows, first_operating_month: int) -> tuple[np.ndarray, np.ndarray]:
    """DSCR of each 12-month period from the first full operating month: (period start months, (n, periods)).

    A period is cut at the loan's maturity (CFADS after it serves no debt); a period without
    scheduled debt service has DSCR ``nan``.
    """
    months = min(cf.debt.debt_service.shape[1], cf.debt.maturity)
    return np.arange(first_operating_month, months, MONTHS_PER_YEAR), dscr_table(cf, first_operating_month)


def min_dscr(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """Lowest DSCR over 12-month periods from the first full operating month; ``nan`` without debt service.

    ``first_operating_month`` may be an array of per-case months (n,).
    """
    table = dscr_table(cf, first_operating_month)
    defined = ~np.isnan(table)
    lowest = np.where(defined, table, np.inf).min(axis=1, initial=np.inf)
    return np.where(defined.any(axis=1), lowest, np.nan)
