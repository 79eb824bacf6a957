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

import math
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
def _index(size: int) -> np.ndarray:
    """0 … size-1: months of a horizon, or rows (read-only; cached: a run uses a few sizes)."""
    out = np.arange(size)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=64)
def _growth(annual_rate: float, months: int) -> np.ndarray:
    """``(1 + r_m) ** t`` for t = 0 … months-1 at one annual rate (read-only; cached: NPVs reuse a few rates)."""
    base = 1.0 + annual_rate  # monthly_rate's operations, in Python floats (faster on one rate; complex below 0)
    r_m = base ** (1.0 / MONTHS_PER_YEAR) - 1.0 if base >= 0.0 else float(monthly_rate(annual_rate))
    out = (1.0 + r_m) ** _index(months)
    out.flags.writeable = False
    return out


def npv(annual_rate: float | np.ndarray, cash_flows: np.ndarray) -> np.ndarray:
    """NPV of monthly ``cash_flows`` (..., months) at an annual discount rate; month 0 undiscounted [USD]."""
    cf = np.asarray(cash_flows, dtype=float)
    months = cf.shape[-1]
    if isinstance(annual_rate, float) or np.ndim(annual_rate) == 0:
        return np.add.reduce(cf / _growth(float(annual_rate), months), axis=-1)  # .sum(), without its overhead
    r = monthly_rate(annual_rate)[..., None]
    return np.add.reduce(cf / (1.0 + r) ** _index(months), axis=-1)


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
    cum = np.add.accumulate(cf, axis=-1)  # np.cumsum, without its overhead
    # the last negative month; the last month if it is negative or none is (argmax is 0 if all are False)
    last = months - 1 - (cum < 0)[:, ::-1].argmax(axis=-1)
    reached = last < months - 1
    rows = _index(n)
    step = cf[rows, last + reached]  # > 0 where reached (unless nan): cumulative cash crosses 0 in that month
    frac = np.divide(cum[rows, last], step, out=np.zeros(n), where=reached & (step > 0))  # − the share of it
    out = np.where(reached, last - frac, np.nan)  # month t's flow sits at time t, as in npv
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
    taxed = np.zeros((*x.shape[:-1], x.shape[-1] + 1))  # by the end of each month, after 0 before month 0
    np.add.accumulate(x, axis=-1, out=taxed[..., 1:])  # np.cumsum
    np.maximum(taxed, 0.0, out=taxed)
    np.maximum.accumulate(taxed, axis=-1, out=taxed)
    return rate * (taxed[..., 1:] - taxed[..., :-1])


def _each(value: Any, n: int, dtype: type | None = None) -> np.ndarray:
    """``value`` (a scalar or per-case values) as one value per case (n,); read it only: may be ``value`` itself."""
    a = np.asarray(value, dtype=dtype)
    if a.shape == (n,):
        return a
    return np.full(n, a) if a.ndim == 0 else np.broadcast_to(a, (n,))


def _per_case(value: float | np.ndarray) -> float | np.ndarray:
    """A scalar as is; an array of per-case values (n,) as a column (n, 1) that broadcasts over months; a column
    as is."""
    if isinstance(value, np.ndarray) and value.ndim:
        return value.astype(float, copy=False)[:, None] if value.ndim == 1 else value
    return np.asarray(value, dtype=float)[..., None] if np.ndim(value) else value


def depreciation(
    capex_usd: np.ndarray,
    months: int,
    go_live: float | np.ndarray,
    life_months: float | np.ndarray,
    *,
    refresh_capex_usd: np.ndarray | None = None,
    share: np.ndarray | None = None,
) -> np.ndarray:
    """Straight-line depreciation per month from go-live over ``life_months`` [USD].

    ``go_live`` [month] and ``life_months`` [months] may be arrays of per-case values (n,). With
    ``refresh_capex_usd`` (n,) [USD] a new cluster of that capex goes live at each end of life inside the
    horizon (go-live + k × life) and depreciates the same way from its own go-live. ``share``:
    :func:`depreciation_share` of ``go_live`` and ``life_months``, if already at hand.
    """
    out = np.asarray(capex_usd)[..., None] * (
        depreciation_share(months, go_live, life_months) if share is None else share
    )
    if refresh_capex_usd is not None:
        start, life, k = _per_case(go_live), _per_case(life_months), 1
        while np.any(start + k * life < months):
            out = out + np.asarray(refresh_capex_usd)[..., None] * depreciation_share(months, start + k * life, life)
            k += 1
    return out


def depreciation_share(months: int, go_live: float | np.ndarray, life_months: float | np.ndarray) -> np.ndarray:
    """Share of a cost depreciated in each month, straight line from ``go_live`` over ``life_months`` (months,)
    or, with per-case values (n,) or columns (n, 1), (n, months) [fraction]."""
    edges = _index(months + 1)  # month t runs from time t to time t + 1
    begin, life = _per_case(go_live), _per_case(life_months)
    elapsed = np.minimum(np.maximum(edges - begin, 0.0), life)  # life used by each time; np.clip's values
    return (elapsed[..., 1:] - elapsed[..., :-1]) / life


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


def annuity_payment(
    principal: np.ndarray | float, rate_per_month: np.ndarray | float, months: int | np.ndarray
) -> np.ndarray | float:
    """Level monthly payment repaying ``principal`` over ``months`` [USD/month].

    As ``numpy_financial.pmt`` (payments at month end, ``P r / (1 − (1 + r)^−months)``); a rate of 0 repays
    ``P / months``. Arrays give an array; a float principal and rate above 0 give a float.
    """
    positive = np.asarray(rate_per_month) > 1e-9
    if positive.all():  # no rate near 0 (the usual case): the same numbers as below, without the masks
        growth = (1.0 + rate_per_month) ** months
        return (0.0 + principal * growth) / ((growth - 1.0) / rate_per_month)
    safe = np.where(positive, rate_per_month, 1.0)
    # -npf.pmt(safe, months, principal) inlined to the operations that change a bit (safe is never 0, and
    # npf's factor (1 + safe × 0) and its two negations are exact), without its overhead
    growth = (1.0 + safe) ** months
    return np.where(positive, (0.0 + principal * growth) / ((growth - 1.0) / safe), principal / months)


def _one_or_each(values: np.ndarray) -> int | np.ndarray:
    """An int when every case has the same month, else the per-case months (n,)."""
    return int(values[0]) if len(values) == 1 or (values == values[0]).all() else values


def _months_of(months: int | np.ndarray) -> int | np.ndarray:
    """Months of the cases (a scalar, or per case (n,)) as one int when every case agrees, else an array (n,).

    The helpers below take months in this form: an int, or an array that differs between cases.
    """
    if isinstance(months, int | np.integer):
        return int(months)
    values = np.asarray(months)
    return _one_or_each(values) if values.ndim else int(values)


def _column(months: int | np.ndarray) -> int | np.ndarray:
    """A month shared by every case as is; per-case months (n,) as a column (n, 1) that broadcasts over months."""
    return months[:, None] if isinstance(months, np.ndarray) else months


@lru_cache(maxsize=256)
def _before_month(months: int, month: int) -> np.ndarray:
    """``t < month`` for t = 0 … months-1 (read-only; cached: a run uses a few months)."""
    out = _index(months) < month
    out.flags.writeable = False
    return out


@lru_cache(maxsize=256)
def _between_months(months: int, first: int, end: int) -> np.ndarray:
    """``first <= t < end`` for t = 0 … months-1 (read-only; cached)."""
    out = _before_month(months, end) & ~_before_month(months, first)
    out.flags.writeable = False
    return out


def _between(months: int, first: int | np.ndarray, end: int | np.ndarray) -> np.ndarray:
    """Which of ``months`` months fall in ``first`` … ``end`` − 1: (months,) if every case agrees, else (n, months)."""
    if isinstance(first, int | np.integer) and isinstance(end, int | np.integer):
        return _between_months(months, int(first), int(end))
    return _before(months, end) & ~_before(months, first)


def _before(months: int, month: int | np.ndarray) -> np.ndarray:
    """Which of ``months`` months come before ``month``: (months,) for one month of every case, else (n, months)."""
    if isinstance(month, np.ndarray):
        return _index(months) < month[:, None]
    return _before_month(months, math.ceil(month))  # t < month ⇔ t < ⌈month⌉ for whole months t


def first_draw_month(draws: np.ndarray) -> np.ndarray:
    """Month of each case's first draw (n,); 0 for a case that draws nothing."""
    return (np.atleast_2d(draws) > 0).argmax(axis=1)


def repayment_window(
    financing: Financing, first_operating_month: int | np.ndarray, months: int, first_draw: int | np.ndarray = 0
) -> tuple[int | np.ndarray, int | np.ndarray]:
    """(first repayment month, last repayment month + 1) on the monthly grid.

    The term runs from the first draw: the loan matures ``term_months`` after it, cut at the horizon.
    ``first_operating_month`` and ``first_draw`` may be arrays of per-case months (n,); the results are
    then arrays too (an int where every case agrees).
    """
    first_operating_month, first_draw = _months_of(first_operating_month), _months_of(first_draw)
    if isinstance(first_operating_month, int) and isinstance(first_draw, int):  # one window for every case
        first_repayment, due = first_operating_month + financing.grace_months, first_draw + financing.term_months
        if first_repayment < due:
            return first_repayment, min(due, months)
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
    first_operating_month = _months_of(first_operating_month)
    r_m = _each(financing.interest_rate if rate is None else rate, n, float) / MONTHS_PER_YEAR
    share = _each(financing.debt_share if debt_share is None else debt_share, n, float)
    draws = pay * share[:, None]  # at the share asked for (a sculpted loan may draw less)
    first_draw = _one_or_each(first_draw_month(draws))
    start, end = repayment_window(financing, first_operating_month, months, first_draw)
    maturity = first_draw + financing.term_months
    pv = None
    if financing.amortization == "sculpted":
        flow = np.zeros_like(pay) if cfads is None else np.broadcast_to(np.atleast_2d(cfads), pay.shape)
        share, pv = sculpted_debt_share(
            financing, pay, flow, r_m, _each(first_operating_month, n), _each(start, n), _each(end, n), share
        )
        draws = pay * share[:, None]
    if financing.amortization != "sculpted" and not _drawn_after(draws, start):
        flows = _level_schedule(financing, draws, r_m, first_operating_month, start, maturity)
    else:
        first_op_n, start_n, end_n, maturity_n = (_each(m, n) for m in (first_operating_month, start, end, maturity))
        flows = _schedule_by_month(
            financing, draws, r_m, first_op_n, start_n, end_n, maturity_n, cfads, np.zeros(n) if pv is None else pv
        )
    interest, capitalized, principal, payoff, balance = flows
    fee = np.zeros(pay.shape)
    fee[_index(n), first_draw] = financing.upfront_fee_rate * np.add.reduce(draws, axis=1)
    return DebtSchedule(
        draws, interest, capitalized, interest - capitalized, principal, payoff, balance, fee, start, end, first_draw
    )


def _drawn_after(draws: np.ndarray, start: int | np.ndarray) -> bool:
    """Whether any case draws debt after its first repayment month ``start``."""
    if isinstance(start, int):
        return bool(draws[:, start + 1 :].any())
    return bool(((draws != 0) & ~_before(draws.shape[1], start + 1)).any())


def _level_schedule(
    financing: Financing,
    draws: np.ndarray,
    r_m: np.ndarray,
    first_op: int | np.ndarray,
    start: int | np.ndarray,
    maturity: int | np.ndarray,
) -> tuple[np.ndarray, ...]:
    """(interest, capitalised, principal, payoff, balance) (n, months) of annuity or straight-line loans [USD].

    Closed form of the month-by-month rules of :func:`debt_schedule` for loans fully drawn by the
    first repayment month ``start``: before it the balance compounds (capitalised interest) or
    stays; from it the annuity balance is ``B q^(k+1) − P (q^(k+1) − 1) / r`` (q = 1 + r, k months
    into repayment) and the straight-line balance ``B (T − t − 1) / (T − start)``, with whatever is
    left due at maturity ``T`` (or at the horizon). The months may be ints (every case) or per case (n,).
    """
    n, months = draws.shape
    t = _index(months)
    r = r_m[:, None]
    s, term = _column(start), _column(maturity)
    q = 1.0 + r
    # growth of the balance in each month, after a 1 for "before month 0", and its running product (np.cumprod)
    growth_from = np.where(_between(months + 1, 1, (first_op if financing.capitalize_idc else 0) + 1), q, 1.0)
    compounded_from = np.multiply.accumulate(growth_from, axis=1)
    growth, compounded, before = growth_from[:, 1:], compounded_from[:, 1:], compounded_from[:, :-1]
    drawn = compounded * np.add.accumulate(draws / before, axis=1)  # balance if nothing were repaid (np.cumsum)
    # owed when repayment starts
    at_start = (
        drawn[:, min(start, months - 1), None]
        if isinstance(start, int)
        else drawn[_index(n), np.minimum(start, months - 1)][:, None]
    )
    waiting = _before(months, start)
    capitalizing: np.ndarray | None = None  # the months whose interest is capitalised
    if financing.amortization == "annuity":
        step = np.multiply.accumulate(np.where(waiting, 1.0, q), axis=1)  # q^(k+1) from the start month on
        left = maturity - start  # months to repay in, at least one
        if n == 1:  # one case (months are ints): Python floats, the same numbers without numpy's overhead
            payment = annuity_payment(float(at_start[0, 0]), float(r_m[0]), max(left, 1))
        else:
            payment = np.asarray(annuity_payment(at_start[:, 0], r_m, np.maximum(left, 1)))[:, None]
        positive = r > 1e-9
        if positive.all():  # (the same numbers as the general case below, with fewer steps)
            repaid = at_start * step - payment * (step - 1.0) / r
            capitalizing = _before(months, first_op if financing.capitalize_idc else 0)  # growth > 1 there
        else:
            paid_down = np.where(positive, payment * (step - 1.0) / np.where(positive, r, 1.0), payment * (t - s + 1))
            repaid = at_start * np.where(positive, step, 1.0) - paid_down
    else:
        repaid = at_start * (term - t - 1) / np.maximum(term - s, 1)
    # whatever is left falls due at maturity (if within the horizon): no balance from month T − 1 on
    balance = np.where(waiting, drawn, np.where(_before(months, maturity - 1), np.maximum(repaid, 0.0), 0.0))
    owed = np.empty(balance.shape)
    owed[:, 0] = draws[:, 0]
    np.add(balance[:, :-1], draws[:, 1:], out=owed[:, 1:])
    interest = owed * r
    capitalized = np.where(growth > 1.0 if capitalizing is None else capitalizing, interest, 0.0)
    principal = np.where(waiting, 0.0, owed - balance)  # none after maturity: nothing is owed then
    payoff = np.zeros(balance.shape)
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
    rows = _index(n)
    share = _each(residual_share, n, float)
    capex = _each(capex_total, n, float)
    residual = np.zeros((n, months))
    end = None if end_of_life_month is None else _each(end_of_life_month, n, float)
    residual[rows, months - 1 if end is None else _sale_month(end, months)] = share * capex  # the first cluster
    bought = capex
    if refresh_capex_usd is not None and end is not None:
        life = _each(np.inf if life_months is None else life_months, n, float)
        cost = _each(refresh_capex_usd, n, float)
        exists, k = end < months, 1  # the next cluster goes live as this one is sold
        while exists.any():
            bought = bought + np.where(exists, cost, 0.0)
            sold_at = end + k * life
            month = _sale_month(sold_at, months)
            residual[rows[exists], month[exists]] += (share * cost)[exists]  # one cell per row: no repeated index
            exists = exists & (sold_at < months)
            k += 1
    gain = residual.copy()
    gain[:, -1] -= bought - np.add.reduce(dep, axis=1)  # dep.sum(axis=1), without its overhead
    return residual, gain


def _sale_month(sold_at: np.ndarray, months: int) -> np.ndarray:
    """Month in which clusters sold at times ``sold_at`` (n,) [month] are sold: the last one if after the horizon."""
    return np.fmin(sold_at, months - 1).astype(int)  # fmin: nan → the last month; astype floors times ≥ 0


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
    *,
    share: np.ndarray | None = None,
) -> FinancingCosts:
    """Split the debt's interest and fee into expense, capitalised IDC and fee amortisation [USD].

    See :class:`FinancingCosts`; ``first_operating_month``, ``go_live`` and ``life_months`` may be per case (n,).
    ``share``: :func:`depreciation_share` of ``go_live`` and ``life_months``, if already at hand.
    """
    months = debt.interest.shape[1]
    building = _before(months, _months_of(first_operating_month))
    idc = np.add.reduce(np.where(building, debt.interest, 0.0), axis=1)  # .sum(axis=1), without its overhead
    idc_dep = depreciation(idc, months, go_live, life_months, share=share)
    fee = np.add.reduce(debt.fee, axis=1)
    amortizing = _between(months, debt.first_draw, debt.first_draw + term_months)
    amortization = np.where(amortizing, (fee / term_months)[:, None], 0.0)
    amortization[:, -1] += fee - np.add.reduce(amortization, axis=1)  # the rest is written off when the loan ends
    at_sale = np.zeros(idc_dep.shape)
    at_sale[:, -1] = idc - np.add.reduce(idc_dep, axis=1)
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
    revenue, opex, pay = (np.array(a, dtype=float, ndmin=2) for a in (revenue, opex, capex_payments))
    if not revenue.shape == opex.shape == pay.shape:
        revenue, opex, pay = np.broadcast_arrays(revenue, opex, pay)
    n, months = revenue.shape
    capex_total = _each(capex_total, n, float)
    # one month for all cases: an int, so the debt schedule's repay_start is one too
    first_operating = _months_of(np.ceil(go_live).astype(int))
    ebitda = revenue - opex
    refresh = refresh_capex_usd if end_of_life == "refresh" else None
    share = depreciation_share(months, go_live, life_months)  # of the first cluster, and of its IDC
    dep = depreciation(capex_total, months, go_live, life_months, refresh_capex_usd=refresh, share=share)
    end = None if end_of_life is None else np.asarray(go_live, dtype=float) + np.asarray(life_months, dtype=float)
    residual, gain = residual_flows(
        capex_total,
        dep,
        months,
        residual_share,
        end_of_life_month=end,
        life_months=life_months,
        refresh_capex_usd=refresh,
    )
    bought = pay if refresh is None or refresh_payments is None else pay + refresh_payments  # debt funds `pay` only

    if financing.amortization != "sculpted":  # a sculpted loan is sized on CFADS, in the loop below
        debt = debt_schedule(financing, pay, first_operating, rate=interest_rate, debt_share=debt_share)
    else:
        tax, sized = np.zeros_like(revenue), np.full(n, np.nan)
    for _ in range(SCULPT_ITERATIONS if financing.amortization == "sculpted" else 1):
        if financing.amortization == "sculpted":
            debt = debt_schedule(
                financing, pay, first_operating, cfads=ebitda - tax, rate=interest_rate, debt_share=debt_share
            )
            settled = np.all(np.abs(debt.drawn_usd - sized) <= SCULPT_TOLERANCE * np.abs(debt.drawn_usd))
            sized = debt.drawn_usd
        costs = financing_costs(debt, first_operating, go_live, life_months, financing.term_months, share=share)
        ebit = ebitda - dep - costs.idc_depreciation
        taxable = ebit - costs.interest_expense - costs.fee_amortization + gain - costs.idc_book_at_sale
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
        ebit=ebit,
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


def _loan_months(cf: CashFlows) -> int | np.ndarray:
    """Months of each case that the loan can serve: up to its maturity, cut at the horizon (an int if all agree)."""
    maturity, horizon = cf.debt.maturity, cf.debt.interest.shape[1]
    return np.minimum(horizon, maturity) if isinstance(maturity, np.ndarray) else min(horizon, maturity)


def dscr_table(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """DSCR of each 12-month period from each case's first full operating month (n, periods) [ratio].

    ``first_operating_month`` may be an array of per-case months (n,); period k of a case starts
    ``12 k`` months after its own first operating month. A period is cut at the loan's maturity
    (CFADS after it serves no debt); a period without scheduled debt service, or that does not
    exist for that case, has DSCR ``nan``.
    """
    debt = cf.debt
    n, horizon = debt.interest.shape
    first, end = _months_of(first_operating_month), _loan_months(cf)
    year = MONTHS_PER_YEAR
    span = end - first
    periods = max(-(-int(span.max() if isinstance(span, np.ndarray) else span) // year), 0)
    if periods == 0:
        return np.full((n, 0), np.nan)
    # debt service and CFADS of each case's months first … end − 1, from the left, 0 after, in 12-month blocks
    if isinstance(span, int):  # the same months for every case: slices
        blocks = np.zeros((2, n, periods * year))
        np.add(debt.interest_paid[:, first:end], debt.principal[:, first:end], out=blocks[0, :, :span])
        np.subtract(cf.ebitda[:, first:end], cf.tax[:, first:end], out=blocks[1, :, :span])
        ds, flow = np.add.reduce(blocks.reshape(2, n, periods, year), axis=-1)
    else:
        month = _column(first) + _index(periods * year)
        inside = month < _column(end)
        at = _index(n)[:, None], np.minimum(month, horizon - 1)
        ds, flow = (
            np.add.reduce(np.where(inside, a[at], 0.0).reshape(n, periods, year), axis=-1)
            for a in (debt.debt_service, cf.cfads)
        )
    covered = ds > 1e-6
    if isinstance(span, np.ndarray):  # some cases have fewer periods
        covered &= _column(first) + year * _index(periods) < _column(end)
    return np.divide(flow, ds, out=np.full(ds.shape, np.nan), where=covered)


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
    return np.fmin.reduce(dscr_table(cf, first_operating_month), axis=1, initial=np.nan)  # fmin skips nan


def llcr(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """Loan life cover ratio at the first full operating month (n,) [ratio]; ``nan`` without debt then.

    PV of CFADS from the first full operating month to the loan's maturity (cut at the horizon),
    discounted at the loan's own monthly rate (the interest accrued on the balance at that month ÷ that
    balance, i.e. the nominal annual rate ÷ 12), divided by the debt outstanding at the start of that month.
    """
    debt = cf.debt
    n, horizon = debt.balance.shape
    first, end = _months_of(first_operating_month), _loan_months(cf)
    aligned = isinstance(first, int) and isinstance(end, int)  # the same months for every case: slices
    if aligned:
        first = min(first, horizon - 1)
        balance = (debt.balance[:, first - 1] if first > 0 else 0.0) + debt.draws[:, first]
        interest = debt.interest[:, first]
    else:
        first = np.minimum(first, horizon - 1)
        rows = _index(n)
        balance = np.where(first > 0, debt.balance[rows, np.maximum(first - 1, 0)], 0.0) + debt.draws[rows, first]
        interest = debt.interest[rows, first]
    owed = balance > 1e-6
    q = 1.0 + np.divide(interest, balance, out=np.zeros(n), where=owed)[:, None]
    t = _index(horizon)
    if aligned:  # (the same numbers as below)
        discounted = np.zeros((n, horizon))
        discounted[:, first:end] = (cf.ebitda[:, first:end] - cf.tax[:, first:end]) * q ** (first - 1 - t[first:end])
    else:
        f = _column(first)
        window = (t >= f) & (t < _column(end))
        discounted = np.where(window, cf.cfads * q ** np.where(window, f - 1 - t, 0), 0.0)
    return np.divide(np.add.reduce(discounted, axis=1), balance, out=np.full(n, np.nan), where=owed)


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
