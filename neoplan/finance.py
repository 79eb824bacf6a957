"""Monthly project finance: debt, depreciation, tax, cash flows and returns.

Conventions (stated once; the README and the Financing page repeat them):

* Monthly grid, month 0 = purchase order. Every flow of month ``t`` (revenue, opex, capex, draws, debt
  service, tax) sits at time ``t`` months, at the end of that month; month 0 is "now". NPV discounts month
  ``t`` by ``(1 + r_m) ** t`` (month 0 not at all), with ``r_m = (1 + r) ** (1/12) - 1`` from an annual
  effective discount rate ``r`` (the hurdle rate).
* Annual IRR = ``(1 + monthly IRR) ** 12 - 1``; the economically meaningful root (:func:`neoplan.irr.irr_annual`), with
  the sign of MOIC − 1, or none. Outflows are negative.
* Every array has shape ``(n, months)``: ``n`` cases evaluated at once (n = 1 for
  one scenario). Loops run over months only, never over cases.
* Debt: the interest rate is a nominal annual rate compounding monthly (``rate / 12`` a month, as loans
  quote it), unlike the discount rate. Debt is drawn pro rata with capex payments; interest accrues on the
  balance after the month's draw. Before the first full operating month interest is capitalised (or paid,
  if ``capitalize_idc`` is false); repayment starts ``grace_months`` after that month and the loan matures
  ``term_months`` after its first draw. Debt still outstanding at the horizon is repaid then. A sculpted
  loan is sized so that CFADS / target DSCR repays it by maturity (:func:`sculpted_debt_share`).
* Tax: monthly on taxable income with losses carried forward (no carry-back). Depreciation: straight line
  from go-live over the useful life. Interest during construction is capitalised into the asset and
  depreciated with it; the upfront fee (paid at the first draw) is amortised over the loan term
  (:class:`FinancingCosts`). The residual value is received at the end of life or in the last month;
  its gain over book value is taxed.
* CFADS (cash flow available for debt service) = EBITDA − tax paid. DSCR is measured on 12-month periods
  from the first full operating month; LLCR at that month, at the loan rate (:func:`llcr`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .errors import ScenarioError
from .scenario import Financing
from .timebase import MONTHS_PER_YEAR, monthly_rate

SCULPT_ITERATIONS = 12
"""Most passes of the sculpted loan ↔ tax loop (the loan is sized on CFADS after tax, tax depends on its interest)."""
SCULPT_TOLERANCE = 1e-10
"""The loop stops once no case's debt size moves by more than this share of it between two passes."""


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


def payback_months(cash_flows: np.ndarray, annual_rate: float | None = None) -> np.ndarray:
    """Months from month 0 until cumulative cash turns non-negative for good (payback reached).

    The last month cumulative cash crosses from negative to non-negative, linear within that month; ``nan``
    if it ends the horizon negative (not paid back, even if it was positive for a while) or is never
    negative. With ``annual_rate`` [per year] the flows are discounted first as in :func:`npv`
    (discounted payback).
    """
    cf = np.atleast_2d(np.asarray(cash_flows, dtype=float))
    n, months = cf.shape
    if annual_rate is not None:
        cf = cf / _growth(float(annual_rate), months)
    cum = np.cumsum(cf, axis=-1)
    negative = cum < 0
    t = months - np.argmax(negative[:, ::-1], axis=-1)  # the month after the last negative one
    reached = negative.any(axis=-1) & (t < months)
    t = np.minimum(t, months - 1)
    rows = np.arange(n)
    prev = cum[rows, t - 1]
    step = cf[rows, t]
    with np.errstate(over="ignore"):  # rows not paid back may divide by a tiny step: masked below
        frac = np.where(step > 0, -prev / np.where(step > 0, step, 1.0), 0.0)
    out = np.where(reached, t - 1 + frac, np.nan)  # month t's flow sits at time t, as in npv
    return out.reshape(np.shape(cash_flows)[:-1]) if np.ndim(cash_flows) > 1 else out[0]


def payback_months_pair(cash_flows: np.ndarray, annual_rate: float) -> tuple[np.ndarray, np.ndarray]:
    """(payback, discounted payback at ``annual_rate``) of each row of ``cash_flows`` (n, months) [months].

    :func:`payback_months` without and with the rate, in one batch: rows never interact, so the same numbers.
    """
    cf = np.atleast_2d(np.asarray(cash_flows, dtype=float))
    n, months = cf.shape
    both = payback_months(np.concatenate([cf, cf / _growth(float(annual_rate), months)]))
    return both[:n], both[n:]


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


def _each(value: Any, n: int, dtype: type | None = None) -> np.ndarray:
    """``value`` (a scalar or per-case values) as one value per case (n,); read it only: may be ``value`` itself."""
    a = np.asarray(value, dtype=dtype)
    if a.shape == (n,):
        return a
    return np.full(n, a) if a.ndim == 0 else np.broadcast_to(a, (n,))


def _per_case(value: float | np.ndarray) -> float | np.ndarray:
    """A scalar as is; an array of per-case values (n,) as a column (n, 1) that broadcasts over months."""
    return np.asarray(value, dtype=float)[..., None] if np.ndim(value) else value


def depreciation(
    capex_usd: np.ndarray,
    months: int,
    go_live: float | np.ndarray,
    life_months: float | np.ndarray,
    *,
    refresh_capex_usd: np.ndarray | None = None,
) -> np.ndarray:
    """Straight-line depreciation per month from go-live over ``life_months`` [USD].

    ``go_live`` [month] and ``life_months`` [months] may be arrays of per-case values (n,). With
    ``refresh_capex_usd`` (n,) [USD] a new cluster of that capex goes live at each end of life inside the
    horizon (go-live + k × life) and depreciates the same way from its own go-live.
    """
    t = np.arange(months, dtype=float)
    start, life = _per_case(go_live), _per_case(life_months)

    def share(begin: float | np.ndarray) -> np.ndarray:
        elapsed = np.minimum(np.maximum(t + 1.0 - begin, 0.0), life)  # np.clip's values, without its overhead
        return (elapsed - np.minimum(np.maximum(t - begin, 0.0), life)) / life

    out = np.asarray(capex_usd)[..., None] * share(start)
    k = 1
    while refresh_capex_usd is not None and np.any(start + k * life < months):
        out = out + np.asarray(refresh_capex_usd)[..., None] * share(start + k * life)
        k += 1
    return out


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
    maturity: int | np.ndarray
    """Last repayment month + 1: first draw + term, cut at the horizon; an array (n,) when cases differ."""
    first_draw: int | np.ndarray = 0
    """Month of the first draw, from which the term runs; an array (n,) when cases differ."""

    @property
    def debt_service(self) -> np.ndarray:
        """Scheduled cash to lenders per month: interest + principal, horizon payoff excluded [USD]."""
        return self.interest_paid + self.principal

    @property
    def drawn_usd(self) -> np.ndarray:
        """Debt drawn by each case (n,) [USD]; for a sculpted loan, its size after sizing."""
        return self.draws.sum(axis=1)


def annuity_payment(principal: np.ndarray, rate_per_month: np.ndarray, months: int | np.ndarray) -> np.ndarray:
    """Level monthly payment repaying ``principal`` over ``months`` [USD/month].

    As ``numpy_financial.pmt`` (payments at month end, ``P r / (1 − (1 + r)^−months)``); a rate of 0 repays
    ``P / months``.
    """
    positive = rate_per_month > 1e-9
    safe = np.where(positive, rate_per_month, 1.0)
    # npf.pmt(safe, months, principal) inlined, the same operations in the same order, without its overhead
    rate, nper, pv = np.array(safe), np.array(months), np.array(principal)
    growth = (1 + rate) ** nper
    at_zero = rate == 0
    masked = np.where(at_zero, 1, rate)
    factor = np.where(at_zero, nper, (1 + masked * 0) * (growth - 1) / masked)
    pmt = -(0 + pv * growth) / factor
    return np.where(positive, -pmt, principal / months)


def _one_or_each(values: np.ndarray) -> int | np.ndarray:
    """An int when every case has the same month, else the per-case months (n,)."""
    return int(values[0]) if np.all(values == values[0]) else values


def first_draw_month(draws: np.ndarray) -> np.ndarray:
    """Month of each case's first draw (n,); 0 for a case that draws nothing."""
    return np.argmax(np.atleast_2d(draws) > 0, axis=1)


def repayment_window(
    financing: Financing, first_operating_month: int | np.ndarray, months: int, first_draw: int | np.ndarray = 0
) -> tuple[int | np.ndarray, int | np.ndarray]:
    """(first repayment month, last repayment month + 1) on the monthly grid.

    The term runs from the first draw: the loan matures ``term_months`` after it, cut at the horizon.
    ``first_operating_month`` and ``first_draw`` may be arrays of per-case months (n,); the results are
    then arrays too (an int where every case agrees).
    """
    start = np.asarray(first_operating_month) + financing.grace_months
    maturity = np.asarray(first_draw) + financing.term_months
    if np.any(start >= maturity):
        starts, ends = (np.ravel(a) for a in np.broadcast_arrays(start, maturity))
        i = int(np.argmax(starts >= ends))
        raise ScenarioError(
            f"financing.term_months ({financing.term_months}) must be longer than construction plus grace: "
            f"repayment would start in month {int(starts[i])}, at or after maturity in month {int(ends[i])} "
            "(the term runs from the first draw)"
        )
    end = np.minimum(maturity, months)
    as_int = np.ndim(start) == 0 and np.ndim(end) == 0
    return (int(start), int(end)) if as_int else (start, end)


def sculpted_debt_share(
    financing: Financing,
    capex_payments: np.ndarray,
    cfads: np.ndarray,
    r_m: np.ndarray,
    first_op: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    debt_share: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(share of capex drawn (n,), PV of the service profile (n,)) of a sculpted loan.

    The loan is sized so that debt service = CFADS / ``target_dscr`` in every repayment month (CFADS
    floored at 0) repays it exactly by maturity (or by the horizon, if that comes first): the balance when
    repayment starts may be at most the present value of that service at the loan rate, PV / target. That
    balance is the draws compounded by the interest capitalised before operation, so the share drawn is
    ``min(debt_share, PV / target / Σ capex_t × growth_t)``.
    """
    months = capex_payments.shape[1]
    t = np.arange(months)
    s, e = start[:, None], end[:, None]
    window = (t >= s) & (t < e)
    discount = (1.0 + r_m[:, None]) ** -np.where(window, t - s + 1, 0).astype(float)
    pv = np.where(window, np.maximum(cfads, 0.0) * discount, 0.0).sum(axis=1)
    compounding = np.maximum(first_op[:, None] - t, 0) if financing.capitalize_idc else np.zeros((1, months))
    per_share = np.where(t < s, capex_payments * (1.0 + r_m[:, None]) ** compounding, 0.0).sum(axis=1)
    capacity = np.where(per_share > 0, pv / financing.target_dscr / np.where(per_share > 0, per_share, 1.0), 0.0)
    return np.minimum(debt_share, np.maximum(capacity, 0.0)), pv


def debt_schedule(
    financing: Financing,
    capex_payments: np.ndarray,
    first_operating_month: int | np.ndarray,
    cfads: np.ndarray | None = None,
    rate: float | np.ndarray | None = None,
    debt_share: float | np.ndarray | None = None,
) -> DebtSchedule:
    """Draws, interest, repayment and balance for the chosen amortization [USD].

    Interest: the nominal annual ``rate`` compounds monthly (``rate / 12`` a month) on the balance after
    the month's draw; it is paid (or capitalised) in the same month. The term runs from the first draw.

    ``sculpted``: the loan is sized by :func:`sculpted_debt_share` (at most ``debt_share`` of capex) and
    each month's service is CFADS × balance-at-start / PV(CFADS), i.e. CFADS / DSCR* with DSCR* ≥ the
    target (= the target when the size is set by the cover, not by the share); it repays the loan exactly
    at maturity, with no balloon. Without ``cfads`` a sculpted loan has nothing to be sized on: no debt.

    ``first_operating_month``, ``rate`` [per year] and ``debt_share`` [fraction] may be arrays of per-case
    values (n,); by default the financing's own values apply. Annuity and straight-line loans drawn before
    repayment starts are computed in closed form over all months at once (:func:`_level_schedule`); the
    rest month by month.
    """
    pay = np.atleast_2d(capex_payments)
    n, months = pay.shape
    annual = np.asarray(financing.interest_rate if rate is None else rate, dtype=float)
    r_m = _each(annual, n) / MONTHS_PER_YEAR
    share = _each(financing.debt_share if debt_share is None else debt_share, n, float)
    first_op = _each(first_operating_month, n)
    first_draw = _one_or_each(first_draw_month(pay * np.where(share > 0, 1.0, 0.0)[:, None]))
    start, end = repayment_window(financing, first_operating_month, months, first_draw)
    start_n, end_n = _each(start, n), _each(end, n)
    maturity_n = _each(np.asarray(first_draw) + financing.term_months, n)
    pv = np.zeros(n)
    if financing.amortization == "sculpted":
        flow = np.zeros_like(pay) if cfads is None else np.broadcast_to(np.atleast_2d(cfads), pay.shape)
        share, pv = sculpted_debt_share(financing, pay, flow, r_m, first_op, start_n, end_n, share)
    draws = pay * share[:, None]
    drawn_late = (draws != 0) & (np.arange(months) > start_n[:, None])
    if financing.amortization != "sculpted" and not drawn_late.any():
        flows = _level_schedule(financing, draws, r_m, first_op, start_n, end_n, maturity_n)
    else:
        flows = _schedule_by_month(financing, draws, r_m, first_op, start_n, end_n, maturity_n, cfads, pv)
    interest, capitalized, principal, payoff, balance = flows
    fee = np.zeros_like(pay)
    fee[np.arange(n), _each(first_draw, n)] = financing.upfront_fee_rate * draws.sum(axis=1)
    return DebtSchedule(draws, interest, capitalized, interest - capitalized, principal, payoff, balance, fee, start,
                        end, first_draw)


def _level_schedule(
    financing: Financing,
    draws: np.ndarray,
    r_m: np.ndarray,
    first_op: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    maturity: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """(interest, capitalised, principal, payoff, balance) (n, months) of annuity or straight-line loans [USD].

    Closed form of the month-by-month rules of :func:`debt_schedule` for loans fully drawn by the
    first repayment month ``start``: before it the balance compounds (capitalised interest) or
    stays; from it the annuity balance is ``B q^(k+1) − P (q^(k+1) − 1) / r`` (q = 1 + r, k months
    into repayment) and the straight-line balance ``B (T − t − 1) / (T − start)``, with whatever is
    left due at maturity ``T`` (or at the horizon). ``end`` = ``maturity`` cut at the horizon (n,).
    """
    n, months = draws.shape
    t = np.arange(months)
    r = r_m[:, None]
    s, e, term = start[:, None], end[:, None], maturity[:, None]
    growth = np.where((t < first_op[:, None]) & financing.capitalize_idc, 1.0 + r, 1.0)
    compounded = np.cumprod(growth, axis=1)
    before = np.empty_like(compounded)
    before[:, 0] = 1.0
    before[:, 1:] = compounded[:, :-1]
    drawn = compounded * np.cumsum(draws / before, axis=1)  # balance if nothing were repaid
    at_start = drawn[np.arange(n), np.minimum(start, months - 1)][:, None]  # owed when repayment starts
    repaying = (t >= s) & (t < e)
    if financing.amortization == "annuity":
        step = np.cumprod(np.where(t >= s, 1.0 + r, 1.0), axis=1)  # q^(k+1) from the start month on
        payment = annuity_payment(at_start[:, 0], r_m, np.maximum(maturity - start, 1))[:, None]
        positive = r > 1e-9
        paid_down = np.where(positive, payment * (step - 1.0) / np.where(positive, r, 1.0), payment * (t - s + 1))
        repaid = at_start * np.where(positive, step, 1.0) - paid_down
    else:
        repaid = at_start * (term - t - 1) / np.maximum(term - s, 1)
    balance = np.where(t < s, drawn, np.where(repaying, np.maximum(repaid, 0.0), 0.0))
    balance[t[None, :] == term - 1] = 0.0  # whatever is left falls due at maturity (if within the horizon)
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
    end: np.ndarray,
    maturity: np.ndarray,
    cfads: np.ndarray | None,
    pv: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """(interest, capitalised, principal, payoff, balance) (n, months), month by month (any amortization) [USD].

    ``pv`` (n,): PV of the sculpted service profile at the start of repayment (:func:`sculpted_debt_share`).
    """
    n, months = draws.shape
    # the loop runs over (months, n) arrays: row t holds month t of every case
    draws_m = draws.T
    month = np.arange(months)[:, None]
    cap_m: np.ndarray = np.logical_and(month < first_op, financing.capitalize_idc)
    rep_m: np.ndarray = (month >= start) & (month < end)
    start_m: np.ndarray = month == start
    due_m: np.ndarray = month == maturity - 1
    # per month: does it apply to every case, to some (then masked per case), or to none
    cap_all, cap_any = _by_month(cap_m.all(axis=1)), _by_month(cap_m.any(axis=1))
    rep_all, rep_any = _by_month(rep_m.all(axis=1)), _by_month(rep_m.any(axis=1))
    start_any, due_any = _by_month(start_m.any(axis=1)), _by_month(due_m.any(axis=1))
    left = np.maximum(maturity - start, 1)
    has_draw = _by_month(draws_m.any(axis=1))
    last_drawn = max((t for t, drawn in enumerate(has_draw) if drawn), default=-1)
    last_end = int(end.max(initial=0))
    flow_m = None if cfads is None else np.ascontiguousarray(np.maximum(np.atleast_2d(cfads), 0.0).T)
    interest, capitalized, principal, payoff, balance = (np.zeros((months, n)) for _ in range(5))
    level_payment = np.zeros(n)
    per_flow = np.zeros(n)  # sculpted: service per USD of CFADS (1 / DSCR*)
    bal = np.zeros(n)
    for t in range(months):
        if t > last_drawn and t >= last_end and not bal.any():
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
            per_flow = np.where(start_m[t], bal / np.where(pv > 0, pv, np.inf), per_flow)
        if rep_any[t]:
            if financing.amortization == "annuity":
                due = level_payment - owed
            elif financing.amortization == "straight_line":
                due = bal / np.maximum(maturity - t, 1)
            else:
                flow = np.zeros(n) if flow_m is None else flow_m[t]
                due = flow * per_flow - owed
                short = np.maximum(-due, 0.0)  # service below interest: the rest is capitalised
                if not rep_all[t]:
                    short = np.where(rep_m[t], short, 0.0)
                capitalized[t] += short
                bal = bal + short
            if due_any[t]:
                due = np.where(due_m[t], bal, due)  # the rest (rounding, for level loans none) falls due
            due = np.minimum(np.maximum(due, 0.0), bal)
            principal[t] = due if rep_all[t] else np.where(rep_m[t], due, 0.0)
            bal = bal - principal[t]
        if t == months - 1:
            payoff[t] = bal  # anything left is repaid at the horizon
            bal = bal - payoff[t]
        balance[t] = bal
    return tuple(np.ascontiguousarray(m.T) for m in (interest, capitalized, principal, payoff, balance))


def residual_flows(
    capex_total: np.ndarray,
    dep: np.ndarray,
    months: int,
    residual_share: float | np.ndarray,
    *,
    end_of_life_month: float | np.ndarray | None = None,
    life_months: float | np.ndarray | None = None,
    refresh_capex_usd: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(residual proceeds, taxable gain over book value) per month [USD].

    Each cluster is sold for ``residual_share`` [fraction of capex] of its capex in the month its useful life
    ends (``end_of_life_month``, go-live + life [month]), or in the last month if the horizon comes first;
    without ``end_of_life_month`` in the last month. With ``refresh_capex_usd`` (n,) [USD] a new cluster of that
    capex goes live at each end of life inside the horizon and is sold the same way ``life_months`` later.
    A cluster sold at its end of life is fully depreciated, so all unsold book value sits in the last month.
    Every argument but ``months`` may hold per-case values (n,).
    """
    n = dep.shape[0]
    rows = np.arange(n)
    capex = _each(capex_total, n, float)
    share = _each(residual_share, n, float)
    end = np.full(n, np.inf) if end_of_life_month is None else _each(end_of_life_month, n).astype(float)
    life = _each(np.inf if life_months is None else life_months, n, float)
    residual = np.zeros((n, months))
    bought, cost, exists, k = capex.copy(), capex, np.ones(n, dtype=bool), 0
    while exists.any():
        sold_at = end + k * life if k else end  # (0 × an infinite life is nan)
        month = np.where(sold_at < months, np.floor(np.minimum(sold_at, months)), months - 1).astype(int)
        residual[rows[exists], month[exists]] += (share * cost)[exists]  # one cell per row: no repeated index
        if refresh_capex_usd is None:
            break
        exists = exists & (sold_at < months)  # the next cluster goes live as this one is sold
        k += 1
        cost = _each(refresh_capex_usd, n, float)
        bought = bought + np.where(exists, cost, 0.0)
    gain = residual.copy()
    gain[:, -1] -= bought - dep.sum(axis=1)
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
class FinancingCosts:
    """How the debt's costs enter the accounts and the tax base [USD]; arrays (n, months) unless noted.

    Interest during construction (IDC: accrued before the first full operating month, whether capitalised
    into the loan or paid) is capitalised into the asset and depreciated with it, straight line over the
    useful life from go-live; what is left of it at the horizon leaves the books with the cluster (it
    lowers the gain on the residual sale). The upfront fee is capitalised and amortised straight line
    over the loan term from the first draw; what is left when the horizon ends the loan is written off
    then. Interest from the first operating month on (including sculpted shortfalls added to the loan)
    is deducted as it accrues.
    """

    idc_usd: np.ndarray
    """Interest during construction of each case (n,)."""
    idc_depreciation: np.ndarray
    interest_expense: np.ndarray
    fee_amortization: np.ndarray
    idc_book_at_sale: np.ndarray
    """IDC not yet depreciated at the horizon, in the last month."""


def financing_costs(
    debt: DebtSchedule,
    first_operating_month: int | np.ndarray,
    go_live: float | np.ndarray,
    life_months: float | np.ndarray,
    term_months: int,
) -> FinancingCosts:
    """Split the debt's interest and fee into expense, capitalised IDC and fee amortisation [USD].

    See :class:`FinancingCosts`; ``first_operating_month``, ``go_live`` and ``life_months`` may be per case (n,).
    """
    n, months = debt.interest.shape
    t = np.arange(months)
    building = t < _each(first_operating_month, n)[:, None]
    idc = np.where(building, debt.interest, 0.0).sum(axis=1)
    idc_dep = depreciation(idc, months, go_live, life_months)
    first = _each(debt.first_draw, n)[:, None]
    fee = debt.fee.sum(axis=1)[:, None]
    amortization = np.where((t >= first) & (t < first + term_months), fee / term_months, 0.0)
    amortization[:, -1] += fee[:, 0] - amortization.sum(axis=1)  # the rest is written off when the loan ends
    at_sale = np.zeros_like(idc_dep)
    at_sale[:, -1] = idc - idc_dep.sum(axis=1)
    return FinancingCosts(idc, idc_dep, np.where(building, 0.0, debt.interest), amortization, at_sale)


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
    costs: FinancingCosts | None = None
    """How interest and fees enter the accounts (IDC capitalised, fee amortised)."""

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
    end_of_life: str | None = None,
    refresh_payments: np.ndarray | None = None,
    refresh_capex_usd: np.ndarray | None = None,
) -> CashFlows:
    """Assemble accounts and cash flows from revenue, opex and capex payments (all (n, months)) [USD].

    ``go_live`` [month], ``life_months`` [months], ``residual_share`` [fraction of capex], ``interest_rate``
    [per year] and ``debt_share`` [fraction] may be arrays of per-case values (n,) (stress tests).
    ``end_of_life`` (``shutdown`` or ``refresh``) sells each cluster at go-live + life when that falls inside the
    horizon (None: at the horizon); with ``refresh``, ``refresh_payments`` (n, months) [USD] buy the new clusters
    of ``refresh_capex_usd`` (n,) [USD] each, paid by equity (the debt funds the first cluster only).
    """
    revenue, opex, pay = (np.atleast_2d(a).astype(float) for a in (revenue, opex, capex_payments))
    revenue, opex, pay = np.broadcast_arrays(revenue, opex, pay)
    n, months = revenue.shape
    capex_total = _each(capex_total, n, float)
    first_operating: int | np.ndarray = int(np.ceil(go_live)) if np.ndim(go_live) == 0 else 0
    if np.ndim(go_live):
        per_case = np.ceil(go_live).astype(int)
        # one month for all cases: an int, so the debt schedule's repay_start is one too
        first_operating = int(per_case[0]) if np.all(per_case == per_case[0]) else per_case
    ebitda = revenue - opex
    refresh = refresh_capex_usd if end_of_life == "refresh" else None
    dep = depreciation(capex_total, months, go_live, life_months, refresh_capex_usd=refresh)
    end = None if end_of_life is None else np.asarray(go_live, dtype=float) + np.asarray(life_months, dtype=float)
    residual, gain = residual_flows(
        capex_total, dep, months, residual_share, end_of_life_month=end, life_months=life_months,
        refresh_capex_usd=refresh,
    )
    bought = pay if refresh is None or refresh_payments is None else pay + refresh_payments  # debt funds `pay` only

    if financing.amortization != "sculpted":  # a sculpted loan is sized on CFADS, in the loop below
        debt = debt_schedule(financing, pay, first_operating, rate=interest_rate, debt_share=debt_share)
    tax = np.zeros_like(revenue)
    sized = np.full(n, np.nan)
    for _ in range(SCULPT_ITERATIONS if financing.amortization == "sculpted" else 1):
        if financing.amortization == "sculpted":
            debt = debt_schedule(
                financing, pay, first_operating, cfads=ebitda - tax, rate=interest_rate, debt_share=debt_share
            )
            settled = np.all(np.abs(debt.drawn_usd - sized) <= SCULPT_TOLERANCE * np.abs(debt.drawn_usd))
            sized = debt.drawn_usd
        costs = financing_costs(debt, first_operating, go_live, life_months, financing.term_months)
        taxable = (ebitda - dep - costs.idc_depreciation - costs.interest_expense - costs.fee_amortization + gain
                   - costs.idc_book_at_sale)
        tax = tax_with_loss_carry_forward(taxable, financing.tax_rate)
        if financing.amortization == "sculpted" and settled:
            break  # tax was computed on this very loan: the two agree
    project_tax, project_fcf = project_flows(ebitda, bought, dep, residual, gain, financing.tax_rate)
    equity_fcf = (
        ebitda - bought + debt.draws - debt.interest_paid - debt.principal - debt.payoff - debt.fee - tax + residual
    )
    return CashFlows(
        revenue=revenue,
        opex=opex,
        ebitda=ebitda,
        depreciation=dep + costs.idc_depreciation,
        ebit=ebitda - dep - costs.idc_depreciation,
        interest=costs.interest_expense,
        fees=costs.fee_amortization,
        taxable_income=taxable,
        tax=tax,
        net_income=taxable - tax,
        capex=bought,
        residual=residual,
        debt=debt,
        project_tax=project_tax,
        project_fcf=project_fcf,
        equity_fcf=equity_fcf,
        costs=costs,
    )


def _loan_months(cf: CashFlows) -> np.ndarray:
    """Months of each case that the loan can serve (n,): up to its maturity, cut at the horizon."""
    n, horizon = cf.debt.debt_service.shape
    return np.minimum(horizon, _each(cf.debt.maturity, n))


def dscr_table(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """DSCR of each 12-month period from each case's first full operating month (n, periods) [ratio].

    ``first_operating_month`` may be an array of per-case months (n,); period k of a case starts
    ``12 k`` months after its own first operating month. A period is cut at the loan's maturity
    (CFADS after it serves no debt); a period without scheduled debt service, or that does not
    exist for that case, has DSCR ``nan``.
    """
    service, cfads = cf.debt.debt_service, cf.cfads
    n, horizon = service.shape
    months = _loan_months(cf)
    first = _each(first_operating_month, n)
    periods = max(-(-int((months - first).max(initial=0)) // MONTHS_PER_YEAR), 0)
    if periods == 0:
        return np.full((n, 0), np.nan)
    year = MONTHS_PER_YEAR
    month = first[:, None, None] + year * np.arange(periods)[None, :, None] + np.arange(year)[None, None, :]
    inside = month < months[:, None, None]
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
    table = dscr_table(cf, first_operating_month)
    return first_operating_month + MONTHS_PER_YEAR * np.arange(table.shape[1]), table


def min_dscr(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """Lowest DSCR over 12-month periods from the first full operating month; ``nan`` without debt service.

    ``first_operating_month`` may be an array of per-case months (n,).
    """
    table = dscr_table(cf, first_operating_month)
    defined = ~np.isnan(table)
    lowest = np.where(defined, table, np.inf).min(axis=1, initial=np.inf)
    return np.where(defined.any(axis=1), lowest, np.nan)


def llcr(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """Loan life cover ratio at the first full operating month (n,) [ratio]; ``nan`` without debt then.

    PV of CFADS from the first full operating month to the loan's maturity (cut at the horizon),
    discounted at the loan's own monthly rate (the interest accrued on the balance at that month ÷ that
    balance, i.e. the nominal annual rate ÷ 12), divided by the debt outstanding at the start of that month.
    """
    n, horizon = cf.cfads.shape
    first = np.minimum(_each(first_operating_month, n), horizon - 1)
    rows = np.arange(n)
    balance = np.where(first > 0, cf.debt.balance[rows, np.maximum(first - 1, 0)], 0.0) + cf.debt.draws[rows, first]
    owed = balance > 1e-6
    rate = np.where(owed, cf.debt.interest[rows, first] / np.where(owed, balance, 1.0), 0.0)
    t = np.arange(horizon)
    window = (t >= first[:, None]) & (t < _loan_months(cf)[:, None])
    steps = np.where(window, t - first[:, None] + 1, 0).astype(float)
    pv = np.where(window, cf.cfads * (1.0 + rate[:, None]) ** -steps, 0.0).sum(axis=1)
    return np.where(owed, pv / np.where(owed, balance, 1.0), np.nan)


def covenant_headroom(min_dscr_value: np.ndarray | float, covenant_dscr: float) -> np.ndarray:
    """Share by which CFADS can fall in the weakest year before its DSCR breaches ``covenant_dscr`` [fraction].

    ``1 − covenant / min DSCR``: 0.2 means a 20 % fall in that year's CFADS still meets the covenant; a
    negative value is a breach already; ``nan`` without a DSCR (no debt service) or with a min DSCR ≤ 0.
    """
    low = np.asarray(min_dscr_value, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(low > 0, 1.0 - covenant_dscr / low, np.nan)


def sculpted_size_warnings(financing: Financing, cf: CashFlows, capex_usd: float) -> list[str]:
    """A sentence when a sculpted loan's CFADS supports less debt than ``debt_share`` × capex (one case)."""
    if financing.amortization != "sculpted" or not capex_usd > 0:
        return []
    drawn = float(cf.debt.drawn_usd[0])
    asked = financing.debt_share * capex_usd
    if not asked > 0 or drawn >= asked * (1.0 - 1e-9):
        return []
    return [
        f"Sculpted debt sized at ${drawn:,.0f} ({drawn / capex_usd:.1%} of capex), below the "
        f"{financing.debt_share:.0%} debt share: CFADS ÷ {financing.target_dscr:g} repays no more by maturity."
    ]
