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
from typing import Any

import numpy as np

from .errors import ScenarioError
from .scenario import Financing
from .timebase import MONTHS_PER_YEAR, monthly_rate

SCULPT_ITERATIONS = 12
"""Most passes of the sculpted loan ↔ tax loop (the loan is sized on CFADS after tax, tax depends on its interest)."""
SCULPT_TOLERANCE = 1e-10
"""The loop stops once no case's debt size moves by more than this share of it between two passes."""


def _index(size: int) -> np.ndarray:
    """0 … size-1: months of a horizon, or rows."""
    return np.arange(size)


def _growth(annual_rate: float | np.ndarray, months: int) -> np.ndarray:
    """``(1 + r_m) ** t`` for t = 0 … months-1 at annual rates ``annual_rate`` (a scalar: (months,); per case (n,):
    (n, months)), ``r_m`` the equivalent monthly rate (:func:`~neoplan.timebase.monthly_rate`)."""
    return (1.0 + monthly_rate(annual_rate)[..., None]) ** _index(months)


def npv(annual_rate: float | np.ndarray, cash_flows: np.ndarray) -> np.ndarray:
    """NPV of monthly ``cash_flows`` (..., months) at an annual discount rate (a scalar, or one per row);
    month 0 undiscounted [USD]."""
    cf = np.asarray(cash_flows, dtype=float)
    return np.sum(cf / _growth(annual_rate, cf.shape[-1]), axis=-1)


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
        cf = cf / _growth(annual_rate, months)
    cum = np.cumsum(cf, axis=-1)
    # the last negative month; the last month if it is negative or none is (argmax is 0 if all are False)
    last = months - 1 - (cum < 0)[:, ::-1].argmax(axis=-1)
    reached = last < months - 1
    rows = _index(n)
    step = cf[rows, last + reached]  # > 0 where reached (unless nan): cumulative cash crosses 0 in that month
    frac = np.divide(cum[rows, last], step, out=np.zeros(n), where=reached & (step > 0))  # − the share of it
    out = np.where(reached, last - frac, np.nan)  # month t's flow sits at time t, as in npv
    return out.reshape(np.shape(cash_flows)[:-1]) if np.ndim(cash_flows) > 1 else out[0]


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
    """Monthly debt flows (n, months) [USD]; balance is at the end of each month.

    The months ``repay_start``, ``maturity`` and ``first_draw`` are reported as one int when every case has the same
    month (one scenario always has), else as per-case months (n,); the schedules are computed per case either way.
    """

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
) -> np.ndarray:
    """Level monthly payment repaying ``principal`` over ``months`` [USD/month] (an array; 0-d for scalars).

    As ``numpy_financial.pmt`` (payments at month end, ``P r / (1 − (1 + r)^−months)``, in npf's own steps); a rate
    of at most 1e-9 a month repays ``P / months`` (no interest to speak of).
    """
    rate = np.asarray(rate_per_month, dtype=float)
    positive = rate > 1e-9
    safe = np.where(positive, rate, 1.0)  # never 0: the formula is defined in every case, the mask picks
    growth = (1.0 + safe) ** months
    return np.where(positive, principal * growth / ((growth - 1.0) / safe), np.divide(principal, months))


def _months(value: int | np.ndarray, n: int) -> np.ndarray:
    """Whole months (one for every case, or one per case) as one int per case (n,)."""
    return _each(value, n, int)


def _one_or_each(months: np.ndarray) -> int | np.ndarray:
    """Per-case months (n,) as one int when every case agrees, as :class:`DebtSchedule` reports them."""
    return int(months[0]) if months.size and (months == months[0]).all() else months


def _before(months: int, month: np.ndarray) -> np.ndarray:
    """Which of ``months`` months come before each case's ``month`` (n,): (n, months)."""
    return _index(months) < np.asarray(month)[:, None]


def _between(months: int, first: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Which of ``months`` months fall in each case's ``first`` … ``end`` − 1 (both (n,)): (n, months)."""
    t = _index(months)
    return (t >= np.asarray(first)[:, None]) & (t < np.asarray(end)[:, None])


def first_draw_month(draws: np.ndarray) -> np.ndarray:
    """Month of each case's first draw (n,); 0 for a case that draws nothing."""
    return (np.atleast_2d(draws) > 0).argmax(axis=1)


def repayment_window(
    financing: Financing, first_operating_month: np.ndarray, months: int, first_draw: np.ndarray | int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(first repayment month, last repayment month + 1) of each case on the monthly grid (arrays (n,)).

    The term runs from the first draw: the loan matures ``term_months`` after it, cut at the horizon.
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
    return start, np.minimum(maturity, months)


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

    ``annuity`` and ``straight_line`` loans follow their schedule in closed form (:func:`_level_schedule`);
    they must be drawn in full by the first repayment month (the model draws with capex, all paid by delivery).
    ``sculpted``: the loan is sized by :func:`sculpted_debt_share` (at most ``debt_share`` of capex) and
    each month's service is CFADS × balance-at-start / PV(CFADS), i.e. CFADS / DSCR* with DSCR* ≥ the
    target (= the target when the size is set by the cover, not by the share); it repays the loan exactly
    at maturity, with no balloon (:func:`_sculpted_schedule`, month by month). Without ``cfads`` a sculpted loan
    has nothing to be sized on: no debt.

    ``first_operating_month``, ``rate`` [per year] and ``debt_share`` [fraction] may be arrays of per-case
    values (n,); by default the financing's own values apply.
    """
    pay = np.atleast_2d(capex_payments)
    n, months = pay.shape
    first_op = _months(first_operating_month, n)
    r_m = _each(financing.interest_rate if rate is None else rate, n, float) / MONTHS_PER_YEAR
    share = _each(financing.debt_share if debt_share is None else debt_share, n, float)
    draws = pay * share[:, None]  # at the share asked for (a sculpted loan may draw less)
    first_draw = first_draw_month(draws)
    start, end = repayment_window(financing, first_op, months, first_draw)
    maturity = first_draw + financing.term_months
    if financing.amortization == "sculpted":
        flow = np.zeros(pay.shape) if cfads is None else np.broadcast_to(np.atleast_2d(cfads), pay.shape)
        share, pv = sculpted_debt_share(financing, pay, flow, r_m, first_op, start, end, share)
        draws = pay * share[:, None]
        flows = _sculpted_schedule(financing, draws, r_m, first_op, start, end, maturity, flow, pv)
    else:
        flows = _level_schedule(financing, draws, r_m, first_op, start, maturity)
    interest, capitalized, principal, payoff, balance = flows
    fee = np.zeros(pay.shape)
    fee[_index(n), first_draw] = financing.upfront_fee_rate * draws.sum(axis=1)
    return DebtSchedule(
        draws,
        interest,
        capitalized,
        interest - capitalized,
        principal,
        payoff,
        balance,
        fee,
        _one_or_each(start),
        _one_or_each(end),
        _one_or_each(first_draw),
    )


def _level_schedule(
    financing: Financing,
    draws: np.ndarray,
    r_m: np.ndarray,
    first_op: np.ndarray,
    start: np.ndarray,
    maturity: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """(interest, capitalised, principal, payoff, balance) (n, months) of annuity or straight-line loans [USD].

    Closed form of the month-by-month rules of :func:`debt_schedule` for loans fully drawn by each case's first
    repayment month ``start`` (n,): before it the balance compounds (capitalised interest, before the first
    operating month ``first_op``) or stays; from it the annuity balance is ``B q^(k+1) − P (q^(k+1) − 1) / r``
    (q = 1 + r, k months into repayment; ``B − P (k+1)`` at a rate of 0) and the straight-line balance
    ``B (T − t − 1) / (T − start)``, with whatever is left due at maturity ``T`` (n,) (or at the horizon).
    """
    n, months = draws.shape
    t = _index(months)
    if np.any((draws != 0) & (t > start[:, None])):
        raise ValueError("an annuity or straight-line loan must be drawn in full by its first repayment month")
    r, s, term = r_m[:, None], start[:, None], maturity[:, None]
    q = 1.0 + r
    capitalizing = (t < first_op[:, None]) & financing.capitalize_idc  # the months whose interest is capitalised
    # growth of the balance in each month, after a 1 for "before month 0", and its running product
    growth_from = np.ones((n, months + 1))
    growth_from[:, 1:] = np.where(capitalizing, q, 1.0)
    compounded_from = np.cumprod(growth_from, axis=1)
    compounded, before = compounded_from[:, 1:], compounded_from[:, :-1]
    drawn = compounded * np.cumsum(draws / before, axis=1)  # balance if nothing were repaid
    at_start = drawn[_index(n), np.minimum(start, months - 1)][:, None]  # owed when repayment starts
    waiting = t < s
    if financing.amortization == "annuity":
        step = np.cumprod(np.where(waiting, 1.0, q), axis=1)  # q^(k+1) from the start month on
        payment = annuity_payment(at_start[:, 0], r_m, np.maximum(maturity - start, 1))[:, None]
        positive = r > 1e-9  # as annuity_payment: no interest at a rate of 1e-9 a month or less
        paid_down = np.where(positive, payment * (step - 1.0) / np.where(positive, r, 1.0), payment * (t - s + 1))
        repaid = at_start * np.where(positive, step, 1.0) - paid_down
    else:
        repaid = at_start * (term - t - 1) / np.maximum(term - s, 1)
    # whatever is left falls due at maturity (if within the horizon): no balance from month T − 1 on
    balance = np.where(waiting, drawn, np.where(t < term - 1, np.maximum(repaid, 0.0), 0.0))
    owed = np.empty(balance.shape)
    owed[:, 0] = draws[:, 0]
    np.add(balance[:, :-1], draws[:, 1:], out=owed[:, 1:])
    interest = owed * r
    capitalized = np.where(capitalizing, interest, 0.0)
    principal = np.where(waiting, 0.0, owed - balance)  # none after maturity: nothing is owed then
    payoff = np.zeros(balance.shape)
    payoff[:, -1] = balance[:, -1]  # anything left is repaid at the horizon
    balance[:, -1] = 0.0
    return interest, capitalized, principal, payoff, balance


def _sculpted_schedule(
    financing: Financing,
    draws: np.ndarray,
    r_m: np.ndarray,
    first_op: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    maturity: np.ndarray,
    cfads: np.ndarray,
    pv: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """(interest, capitalised, principal, payoff, balance) (n, months) of sculpted loans, month by month [USD].

    A sculpted service follows each month's CFADS (n, months), so the schedule has no closed form: each repayment
    month pays CFADS × (balance when repayment starts ÷ ``pv`` (n,), the PV of the service profile then, see
    :func:`sculpted_debt_share`) less interest; a service below the month's interest adds the shortfall to the
    balance (capitalised); whatever is left (rounding) falls due at maturity, or at the horizon.
    """
    n, months = draws.shape
    # the loop runs over (months, n) arrays: row t holds month t of every case
    month = _index(months)[:, None]
    draws_m, flow_m = draws.T, np.maximum(cfads, 0.0).T
    capitalizing = (month < first_op) & financing.capitalize_idc
    repaying = (month >= start) & (month < end)
    starting, due_now = month == start, month == maturity - 1
    last_drawn = int(np.flatnonzero(draws_m.any(axis=1)).max(initial=-1))
    last_end = int(end.max(initial=0))
    interest, capitalized, principal, payoff, balance = (np.zeros((months, n)) for _ in range(5))
    per_flow = np.zeros(n)  # service per USD of CFADS (1 / DSCR*), set when repayment starts
    bal = np.zeros(n)
    for t in range(months):
        if t > last_drawn and t >= last_end and not bal.any():
            break  # repaid: the rest of every schedule is zero
        bal = bal + draws_m[t]
        owed = bal * r_m
        interest[t] = owed
        capitalized[t] = np.where(capitalizing[t], owed, 0.0)
        bal = bal + capitalized[t]
        per_flow = np.where(starting[t], bal / np.where(pv > 0, pv, np.inf), per_flow)
        due = flow_m[t] * per_flow - owed
        short = np.where(repaying[t], np.maximum(-due, 0.0), 0.0)  # service below interest: the rest is capitalised
        capitalized[t] += short
        bal = bal + short
        due = np.where(due_now[t], bal, due)  # the rest (rounding) falls due at maturity
        principal[t] = np.where(repaying[t], np.minimum(np.maximum(due, 0.0), bal), 0.0)
        bal = bal - principal[t]
        balance[t] = bal
    payoff[-1] = balance[-1]  # anything left is repaid at the horizon
    balance[-1] = 0.0
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
    gain[:, -1] -= bought - dep.sum(axis=1)
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
    n, months = debt.interest.shape
    building = _before(months, _months(first_operating_month, n))
    idc = np.where(building, debt.interest, 0.0).sum(axis=1)
    idc_dep = depreciation(idc, months, go_live, life_months, share=share)
    fee = debt.fee.sum(axis=1)
    first_draw = _months(debt.first_draw, n)
    amortizing = _between(months, first_draw, first_draw + term_months)
    amortization = np.where(amortizing, (fee / term_months)[:, None], 0.0)
    amortization[:, -1] += fee - amortization.sum(axis=1)  # the rest is written off when the loan ends
    at_sale = np.zeros(idc_dep.shape)
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
    revenue, opex, pay = (np.array(a, dtype=float, ndmin=2) for a in (revenue, opex, capex_payments))
    if not revenue.shape == opex.shape == pay.shape:
        revenue, opex, pay = np.broadcast_arrays(revenue, opex, pay)
    n, months = revenue.shape
    capex_total = _each(capex_total, n, float)
    first_operating = np.ceil(_each(go_live, n, float)).astype(int)  # each case's first full operating month
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


def _loan_months(cf: CashFlows) -> np.ndarray:
    """Months of each case (n,) that the loan can serve: up to its maturity, cut at the horizon."""
    n, horizon = cf.debt.interest.shape
    return np.minimum(_months(cf.debt.maturity, n), horizon)


def dscr_table(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """DSCR of each 12-month period from each case's first full operating month (n, periods) [ratio].

    ``first_operating_month`` may be an array of per-case months (n,); period k of a case starts
    ``12 k`` months after its own first operating month. A period is cut at the loan's maturity
    (CFADS after it serves no debt); a period without scheduled debt service, or that does not
    exist for that case, has DSCR ``nan``.
    """
    debt = cf.debt
    n, horizon = debt.interest.shape
    first, end = _months(first_operating_month, n), _loan_months(cf)
    year = MONTHS_PER_YEAR
    periods = max(-(-int((end - first).max(initial=0)) // year), 0)
    if periods == 0:
        return np.full((n, 0), np.nan)
    # debt service and CFADS of each case's months first … end − 1, from the left, 0 after, in 12-month blocks
    month = first[:, None] + _index(periods * year)
    inside = month < end[:, None]
    at = _index(n)[:, None], np.minimum(month, horizon - 1)
    ds, flow = (
        np.where(inside, a[at], 0.0).reshape(n, periods, year).sum(axis=-1) for a in (debt.debt_service, cf.cfads)
    )
    exists = first[:, None] + year * _index(periods) < end[:, None]  # some cases may have fewer periods
    return np.divide(flow, ds, out=np.full(ds.shape, np.nan), where=exists & (ds > 1e-6))


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
    ``first_operating_month`` may be an array of per-case months (n,).
    """
    debt = cf.debt
    n, horizon = debt.balance.shape
    first, end = np.minimum(_months(first_operating_month, n), horizon - 1), _loan_months(cf)
    rows = _index(n)
    balance = np.where(first > 0, debt.balance[rows, np.maximum(first - 1, 0)], 0.0) + debt.draws[rows, first]
    owed = balance > 1e-6
    q = 1.0 + np.divide(debt.interest[rows, first], balance, out=np.zeros(n), where=owed)[:, None]
    t, f = _index(horizon), first[:, None]
    window = (t >= f) & (t < end[:, None])
    discounted = np.where(window, cf.cfads * q ** np.where(window, f - 1 - t, 0), 0.0)
    return np.divide(discounted.sum(axis=1), balance, out=np.full(n, np.nan), where=owed)


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
