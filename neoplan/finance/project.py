"""Monthly project finance: debt, tax, cash flows and returns (assets and their sale: :mod:`neoplan.finance.assets`).

Conventions (stated once; the manual's Conventions page and the Financing page repeat them):

* Monthly grid, month 0 = purchase order. Every flow of month ``t`` (revenue, opex, capex, draws, debt
  service, tax) sits at time ``t`` months, at the end of that month; month 0 is "now". NPV discounts month ``t`` by
  ``(1 + r_m) ** t`` (month 0 not at all), with ``r_m = (1 + r) ** (1/12) - 1`` from an annual effective discount
  rate ``r`` (the hurdle rate).
* **Capex timing** (``timeline.capex_timing``): ``end_of_month`` pays capex at its month's end too (a payment due
  within a month is paid at its end). ``mid_month`` pays it, and draws the debt for it, in the middle of its month,
  at ``t − ½``: the accounts keep it in month ``t``, NPV discounts that part of the month's flow half a month less
  (:func:`npv`: × ``(1 + r_m) ** ½``), and IRR and MIRR find their roots on a grid of half months
  (:func:`neoplan.finance.irr.half_month_grid`), so NPV at the IRR is 0 with the same timing (a factor at one fixed rate
  would not be: the IRR's own rate prices the half month). Either way the loan charges a month's interest on the
  balance after the month's draw, as if drawn at the month's start (a lender's convention: a month of interest on
  each draw before it is spent at month-end capex, half a month at mid-month), and every other flow (fee, reserve,
  service, revenue, opex, tax, sale) sits at its month's end.
* Annual IRR = ``(1 + monthly IRR) ** 12 - 1``; the economically meaningful root
  (:func:`neoplan.finance.irr.irr_annual`), with the sign of MOIC − 1, or none. Outflows are negative. MIRR
  (:func:`mirr_annual`): outflows discounted at the loan's all-in rate (the finance rate), inflows compounded to the
  horizon at the hurdle rate (reinvestment).
* Every array has shape ``(n, months)``: ``n`` cases evaluated at once (n = 1 for
  one scenario). Loops run over months only, never over cases.
* Revenue is earned in its month and collected ``receivable_days`` later (:func:`collections`); the receivables
  still open at the horizon are collected in its last month. Tax follows revenue as earned.
* Debt: the all-in rate = ``interest_rate`` + ``credit_spread``, a nominal annual rate compounding monthly
  (``rate / 12`` a month, as loans quote it), unlike the discount rate. Debt is drawn pro rata with capex
  payments; interest accrues on the balance after the month's draw. Before the first full operating month interest
  is capitalised (or paid, if ``capitalize_idc`` is false); repayment starts ``grace_months`` after that month and
  the loan matures ``term_months`` after its first draw.
* **The loan is fixed at financial close** on the base case (:class:`Closing`): a sculpted loan's size and its
  principal profile (the balance after each repayment month as a share of the balance when repayment starts,
  :func:`sculpted_profile`), a loan sized on contracted revenue its size. Every other case (stress cases, grid
  cells, solver steps) draws its own debt share of its own capex and repays it on that profile at its own rate;
  a case whose repayment starts later (a delivery delay) follows the profile from its own start, and what is left
  at maturity falls due then. A sculpted loan sized without a closing is sized on its own CFADS (:func:`cash_flows`
  iterates sizing and tax until the loan's size and its service both settle).
* **Sweep:** the proceeds of each sale repay the loan outstanding after that month's scheduled service first; the
  rest of the schedule shrinks pro rata. Debt still outstanding at the horizon is repaid then (``payoff``), by
  equity where the proceeds fall short: the model assumes no refinancing.
* **Debt service reserve** (``dsra_months``): the largest scheduled service over any ``dsra_months`` consecutive
  months, funded by equity at the first draw and released in the month the loan is repaid; it earns nothing and
  pays no service.
* Tax (:func:`tax_with_loss_carry_forward`): each tax year owes tax on its net taxable income (losses netted within
  the year, carried forward across years, none back), paid as it accrues: by each month's end the year has paid the
  tax on its income to date, so a loss later in the year gives back tax paid earlier in it. Tax years are the
  project years, 12-month blocks from month 0 (the purchase order; a scenario has no calendar dates), the last one
  cut at the horizon. ``financing.tax_period_months`` = 1 taxes each month on its own (1-month tax years). The
  monthly payments stand in for US estimated tax on the income to date (IRC §6655: installments in months 4, 6, 9
  and 12 of the tax year, the annualised-income method), paid monthly instead of quarterly and trued up within the
  year instead of after it. Depreciation for tax and book
  (:mod:`neoplan.finance.assets`); interest during construction is capitalised into the asset and depreciated with it
  (by book and by tax); the upfront fee (paid at the first draw) is amortised over the loan term
  (:class:`FinancingCosts`). The P&L books the tax paid (no deferred tax).
* CFADS (cash flow available for debt service) = revenue collected − opex − tax on operations, where the tax on
  operations leaves out the sales (their gain and its tax; the proceeds sweep the loan instead). DSCR is measured
  on 12-month periods from the first full operating month; LLCR at the start of each period, at the loan rate
  (:func:`llcr_table`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ScenarioError
from ..inputs.business import Financing
from ..timebase import DAYS_PER_MONTH, MONTHS_PER_YEAR, monthly_rate
from .assets import Assets, asset_flows, depreciation
from .irr import half_month_grid

__all__ = ["Assets", "asset_flows", "depreciation"]

SCULPT_ITERATIONS = 12
"""Most passes of the sculpted loan ↔ tax loop (the loan is sized on CFADS after tax, tax depends on its interest)."""
SCULPT_TOLERANCE = 1e-10
"""The loop stops once no case's debt size nor any month's service moves by more than this share of it (of the
largest month's service) between two passes."""


def _index(size: int) -> np.ndarray:
    """0 … size-1: months of a horizon, or rows."""
    return np.arange(size)


def _growth(annual_rate: float | np.ndarray, months: int) -> np.ndarray:
    """``(1 + r_m) ** t`` for t = 0 … months-1 at annual rates ``annual_rate`` (a scalar: (months,); per case (n,):
    (n, months)), ``r_m`` the equivalent monthly rate (:func:`~neoplan.timebase.monthly_rate`)."""
    return (1.0 + monthly_rate(annual_rate)[..., None]) ** _index(months)


def at_month_end(
    annual_rate: float | np.ndarray, cash_flows: np.ndarray, mid_month: np.ndarray | None = None
) -> np.ndarray:
    """``cash_flows`` (..., months) with the part of each paid mid-month, ``mid_month`` (None: none), carried to the
    month's end at the monthly equivalent of ``annual_rate`` (a scalar, or one per row): × (1 + r_m) ** ½ [USD]."""
    cf = np.asarray(cash_flows, dtype=float)
    if mid_month is None:
        return cf
    half_month = np.sqrt(1.0 + monthly_rate(annual_rate))[..., None] - 1.0
    return cf + np.asarray(mid_month, dtype=float) * half_month


def npv(annual_rate: float | np.ndarray, cash_flows: np.ndarray, mid_month: np.ndarray | None = None) -> np.ndarray:
    """NPV of monthly ``cash_flows`` (..., months) at an annual discount rate (a scalar, or one per row);
    month 0 undiscounted [USD]. The part of each month's flow in ``mid_month`` (same shape; None: none) is paid half
    a month before the month's end and discounted half a month less (:func:`at_month_end`)."""
    cf = at_month_end(annual_rate, cash_flows, mid_month)
    return np.sum(cf / _growth(annual_rate, cf.shape[-1]), axis=-1)


def payback_months(
    cash_flows: np.ndarray, annual_rate: float | None = None, mid_month: np.ndarray | None = None
) -> np.ndarray:
    """Months from month 0 until cumulative cash turns non-negative for good (payback reached).

    The last month cumulative cash crosses from negative to non-negative, linear within that month; ``nan``
    if it ends the horizon negative (not paid back, even if it was positive for a while) or is never
    negative. With ``annual_rate`` [per year] the flows are discounted first as in :func:`npv`, ``mid_month`` with
    them (discounted payback); undiscounted, the time of a payment within its month does not move its month's sum.
    """
    cf = np.atleast_2d(np.asarray(cash_flows, dtype=float))
    n, months = cf.shape
    if annual_rate is not None:
        cf = np.atleast_2d(at_month_end(annual_rate, cf, mid_month)) / _growth(annual_rate, months)
    cum = np.cumsum(cf, axis=-1)
    # the last negative month; the last month if it is negative or none is (argmax is 0 if all are False)
    last = months - 1 - (cum < 0)[:, ::-1].argmax(axis=-1)
    reached = last < months - 1
    rows = _index(n)
    step = cf[rows, last + reached]  # > 0 where reached (unless nan): cumulative cash crosses 0 in that month
    frac = np.divide(cum[rows, last], step, out=np.zeros(n), where=reached & (step > 0))  # − the share of it
    out = np.where(reached, last - frac, np.nan)  # month t's flow sits at time t, as in npv
    return out.reshape(np.shape(cash_flows)[:-1]) if np.ndim(cash_flows) > 1 else out[0]


def tax_period_ends(months: int, period_months: int) -> np.ndarray:
    """Last month of each tax period of ``period_months`` months from month 0: ``period − 1``, ``2 period − 1``, …,
    and the horizon's last month, which closes a period cut short (periods,) [month index]."""
    ends = np.arange(period_months - 1, months, period_months)
    return ends if months % period_months == 0 else np.append(ends, months - 1)


def tax_with_loss_carry_forward(taxable: np.ndarray, rate: float, *, period_months: int) -> np.ndarray:
    """Tax per month on ``taxable`` income (..., months) [USD; a negative month gives back tax paid earlier in its
    period]. ``period_months`` = 12: tax years (project years from month 0); 1: each month taxed on its own.

    A tax period owes ``rate`` × its net taxable income less the losses carried into it, or nothing (what is left
    of a loss is carried forward; none back). It is paid as it accrues: by the end of each month the period has
    paid the tax on its income to date, so a loss later in a period gives back tax paid earlier in it, and the
    payments of a period sum to its tax (:func:`tax_period_ends`: the last period may be cut at the horizon).

    Closed form of the carry-forward recursion: the income taxed by the end of period k, T_k, is the running
    maximum over the periods' ends of cumulative taxable income C (floored at 0); by the end of month t of period k
    the income taxed is max(T_(k−1), C_t) — T_k at the period's end — and the month's tax is ``rate`` × its rise.
    With 1-month periods that is the running maximum of C itself. So each period pays ≥ 0, the horizon's total is
    ``rate`` × max(0, the largest C at a period's end) (never more than with shorter periods, the same if no period
    ends below an earlier end), and the income taxed by any month is at most what monthly periods would have taxed.
    """
    x = np.asarray(taxable, dtype=float)
    months = x.shape[-1]
    ends = tax_period_ends(months, period_months)
    cumulative = np.add.accumulate(x, axis=-1)  # np.cumsum
    carried = np.zeros((*x.shape[:-1], ends.size + 1))  # T_k by the end of period k, after T_0 = 0
    carried[..., 1:] = cumulative[..., ends]
    np.maximum(carried, 0.0, out=carried)
    np.maximum.accumulate(carried, axis=-1, out=carried)
    taxed = np.maximum(carried[..., _index(months) // period_months], cumulative)  # T of the period before, or C
    tax = np.empty(x.shape)
    tax[..., 0] = taxed[..., 0]
    np.subtract(taxed[..., 1:], taxed[..., :-1], out=tax[..., 1:])
    return rate * tax


def _each(value: Any, n: int, dtype: type | None = None) -> np.ndarray:
    """``value`` (a scalar or per-case values) as one value per case (n,); read it only: may be ``value`` itself."""
    a = np.asarray(value, dtype=dtype)
    if a.shape == (n,):
        return a
    return np.full(n, a) if a.ndim == 0 else np.broadcast_to(a, (n,))


def mirr_annual(
    cash_flows: np.ndarray,
    finance_rate_per_month: float | np.ndarray,
    reinvest_annual_rate: float,
    mid_month: np.ndarray | None = None,
) -> np.ndarray:
    """Modified IRR of monthly ``cash_flows`` (..., months), annualised as ``(1 + monthly) ** 12 − 1`` [per year].

    As ``numpy_financial.mirr``: outflows discounted to month 0 at ``finance_rate_per_month`` (one rate or one per
    row; the loan's all-in rate ÷ 12), inflows compounded to the last month at the monthly equivalent of
    ``reinvest_annual_rate`` (the hurdle rate, effective annual), then ``(FV / −PV) ** (1 / (months − 1)) − 1``.
    ``nan`` without an inflow or an outflow. With ``mid_month`` (the part of each month's flow paid in its middle)
    the same on :func:`neoplan.finance.irr.half_month_grid`, at the half-month equivalents of both rates.
    """
    cf = np.atleast_2d(np.asarray(cash_flows, dtype=float))
    steps = 1 if mid_month is None else 2
    if mid_month is not None:
        cf = half_month_grid(cf, np.atleast_2d(np.asarray(mid_month, dtype=float)))
    n, periods = cf.shape
    t = _index(periods)
    finance = (1.0 + _each(finance_rate_per_month, n, float)[:, None]) ** (1.0 / steps)
    reinvest = (1.0 + monthly_rate(reinvest_annual_rate)) ** (1.0 / steps)
    present = (np.where(cf < 0, cf, 0.0) / finance**t).sum(axis=-1)
    future = (np.where(cf > 0, cf, 0.0) * reinvest ** (periods - 1 - t)).sum(axis=-1)
    defined = (present < 0) & (future > 0) & (periods > 1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        per_step = (future / np.where(defined, -present, 1.0)) ** (1.0 / max(periods - 1, 1)) - 1.0
        out = np.where(defined, (1.0 + per_step) ** (MONTHS_PER_YEAR * steps) - 1.0, np.nan)
    return out.reshape(np.shape(cash_flows)[:-1]) if np.ndim(cash_flows) > 1 else out[0]


def all_in_rate(financing: Financing, rate: float | np.ndarray | None = None) -> float | np.ndarray:
    """The loan's all-in rate: ``rate`` (default ``financing.interest_rate``) + ``financing.credit_spread``
    [nominal per year, compounding monthly]."""
    return (financing.interest_rate if rate is None else rate) + financing.credit_spread


def collections(revenue: np.ndarray, receivable_days: float) -> np.ndarray:
    """Cash collected per month (n, months) from ``revenue`` earned at each month's end and paid
    ``receivable_days`` later [USD]; a payment falling between two month ends is split between them in proportion,
    and what is still owed at the horizon is collected in its last month (so the columns sum to the revenue)."""
    rev = np.atleast_2d(np.asarray(revenue, dtype=float))
    lag = max(float(receivable_days), 0.0) / DAYS_PER_MONTH  # months
    whole, part = int(lag), lag - int(lag)
    out = np.zeros(rev.shape)
    months = rev.shape[-1]
    for shift, weight in ((whole, 1.0 - part), (whole + 1, part)):
        if weight > 0 and shift < months:
            out[..., shift:] += weight * rev[..., : months - shift]
    out[..., -1] += rev.sum(axis=-1) - out.sum(axis=-1)
    return out


@dataclass(frozen=True)
class Closing:
    """The loan as fixed at financial close on the base case (one case), for every other case to meet."""

    debt_share: float
    """Share of capex drawn at close [fraction]: the sized loan ÷ capex."""
    profile: np.ndarray | None
    """Sculpted: the balance after each repayment month k = 0, 1, … as a share of the balance when repayment starts
    (months,) [fraction]; None for an annuity or straight-line loan (their profile follows from the rate)."""


def closing_of(cash: CashFlows) -> Closing:
    """The closing of the first case of ``cash`` (its size and, for a sculpted loan, its principal profile)."""
    debt = cash.debt
    capex = float(debt.draws[0].sum() if debt.financed_usd is None else debt.financed_usd[0])
    share = float(debt.drawn_usd[0]) / capex if capex > 0 else 0.0
    return Closing(share, None if debt.profile is None else np.array(debt.profile[0]))


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
    sweep: np.ndarray | None = None
    """Prepaid from sale proceeds (n, months) [USD]; None = none."""
    reserve_funded: np.ndarray | None = None
    """Debt service reserve paid in by equity at close (n, months) [USD]; None = no reserve."""
    reserve_released: np.ndarray | None = None
    """Debt service reserve paid back to equity when the loan is repaid (n, months) [USD]; None = no reserve."""
    rate_per_month: np.ndarray | None = None
    """All-in interest rate of each case (n,) [fraction per month]."""
    profile: np.ndarray | None = None
    """Sculpted: balance after each repayment month ÷ balance when repayment starts (n, months); else None."""
    financed_usd: np.ndarray | None = None
    """Capex the loan funds a share of, per case (n,) [USD]."""

    @property
    def debt_service(self) -> np.ndarray:
        """Scheduled cash to lenders per month: interest + principal, sweep and horizon payoff excluded [USD]."""
        return self.interest_paid + self.principal

    @property
    def drawn_usd(self) -> np.ndarray:
        """Debt drawn by each case (n,) [USD]; for a sized loan, its size after sizing."""
        return self.draws.sum(axis=1)

    @property
    def swept(self) -> np.ndarray:
        """:attr:`sweep`, zeros when there is none (n, months) [USD]."""
        return np.zeros(self.draws.shape) if self.sweep is None else self.sweep

    @property
    def reserve_flow(self) -> np.ndarray:
        """Reserve released − funded: the reserve's cash to equity per month (n, months) [USD]."""
        if self.reserve_funded is None or self.reserve_released is None:
            return np.zeros(self.draws.shape)
        return self.reserve_released - self.reserve_funded


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
    """(share of capex drawn (n,), PV of the service profile (n,)) of a loan sized on ``cfads`` (n, months).

    The loan is sized so that debt service = CFADS / ``target_dscr`` in every repayment month (CFADS
    floored at 0) repays it exactly by maturity (or by the horizon, if that comes first): the balance when
    repayment starts may be at most the present value of that service at the loan rate, PV / target. That
    balance is the draws compounded by the interest capitalised before operation, so the share drawn is
    ``min(debt_share, PV / target / Σ capex_t × growth_t)``. ``cfads`` is the contracted cash flow when the loan
    is sized on contracted revenue.
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


def sculpted_profile(cfads: np.ndarray, r_m: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Balance after each repayment month k = 0, 1, … ÷ balance when repayment starts (n, months) [fraction].

    Service in month ``start + k`` is CFADS × B / PV (B the balance when repayment starts, PV the value of the
    repayment months' CFADS, floored at 0, then at the loan rate ``r_m`` (n,)), so after it the balance is
    ``B q^(k+1) (1 − Σ_{j ≤ k} CFADS_j q^−(j+1) / PV)`` (q = 1 + r_m): 0 once the window ``start`` … ``end`` − 1
    has passed. Without CFADS to sculpt on (PV = 0) the profile is a straight line over the window.
    """
    n, months = cfads.shape
    t = _index(months)
    s, e = start[:, None], end[:, None]
    window = (t >= s) & (t < e)
    periods = np.where(window, t - s + 1, 0).astype(float)
    q = 1.0 + r_m[:, None]
    weighted = np.where(window, np.maximum(cfads, 0.0) * q**-periods, 0.0)
    cumulative = np.cumsum(weighted, axis=1)
    pv = cumulative[:, -1:]
    sculpted = q**periods * (1.0 - np.divide(cumulative, pv, out=np.ones(cumulative.shape), where=pv > 0))
    level = (e - t - 1) / np.maximum(e - s, 1)
    after = np.where(window, np.where(pv > 0, sculpted, level), 0.0)
    since_start = s + t  # month of repayment month k = t
    return np.where(since_start < months, after[_index(n)[:, None], np.minimum(since_start, months - 1)], 0.0)


def debt_schedule(
    financing: Financing,
    capex_payments: np.ndarray,
    first_operating_month: int | np.ndarray,
    cfads: np.ndarray | None = None,
    rate: float | np.ndarray | None = None,
    debt_share: float | np.ndarray | None = None,
    *,
    closing: Closing | None = None,
    contracted_cfads: np.ndarray | None = None,
    proceeds: np.ndarray | None = None,
) -> DebtSchedule:
    """Draws, interest, repayment, sweep, reserve and balance of the loan [USD].

    Interest: the all-in rate (:func:`all_in_rate` of ``rate``, default the financing's) compounds monthly
    (``rate / 12`` a month) on the balance after the month's draw; it is paid (or capitalised) in the same month.
    The term runs from the first draw.

    Without a ``closing`` the loan is sized here: a sculpted loan on ``cfads``, a loan with ``sizing`` =
    ``contracted_revenue`` on ``contracted_cfads`` (:func:`sculpted_debt_share`; at most ``debt_share`` of capex);
    otherwise ``debt_share`` × capex is drawn. With a ``closing`` the case draws its ``debt_share`` of capex as it is
    and a sculpted loan repays on the closing's profile (module docstring). ``annuity`` and ``straight_line`` loans
    follow their schedule in closed form (:func:`_level_schedule`); they must be drawn in full by the first
    repayment month (the model draws with capex, all paid by delivery). A sculpted loan repays month by month on its
    profile (:func:`_profile_schedule`); its service is CFADS / DSCR* with DSCR* ≥ the target (= the target when the
    size is set by the cover, not by the share) in the case it was sized on. ``proceeds`` (n, months) sweep the
    loan (:func:`_sweep`); the reserve follows ``dsra_months`` (:func:`_reserve`).

    ``first_operating_month``, ``rate`` [per year] and ``debt_share`` [fraction] may be arrays of per-case
    values (n,); by default the financing's own values apply.
    """
    pay = np.atleast_2d(capex_payments)
    n, months = pay.shape
    first_op = _months(first_operating_month, n)
    r_m = _each(all_in_rate(financing, rate), n, float) / MONTHS_PER_YEAR
    share = _each(financing.debt_share if debt_share is None else debt_share, n, float)
    first_draw = first_draw_month(pay * share[:, None])  # at the share asked for (a sized loan may draw less)
    start, end = repayment_window(financing, first_op, months, first_draw)
    maturity = first_draw + financing.term_months
    on_contracts = financing.sizing == "contracted_revenue"
    basis = contracted_cfads if on_contracts else cfads
    flow = np.zeros(pay.shape) if basis is None else np.broadcast_to(np.atleast_2d(basis), pay.shape)
    if closing is None and (financing.amortization == "sculpted" or on_contracts):
        share, _ = sculpted_debt_share(financing, pay, flow, r_m, first_op, start, end, share)
    draws = pay * share[:, None]
    profile = None
    if financing.amortization == "sculpted":
        fixed = None if closing is None else closing.profile
        profile = sculpted_profile(flow, r_m, start, end) if fixed is None else np.atleast_2d(fixed)
        flows = _profile_schedule(financing, draws, r_m, first_op, start, end, maturity, profile)
    else:
        flows = _level_schedule(financing, draws, r_m, first_op, start, maturity)
    interest, capitalized, principal, balance = flows
    scheduled = interest - capitalized + principal  # the service fixed at close, before any sweep
    sweep = _sweep(interest, capitalized, principal, balance, proceeds)
    payoff = np.zeros(balance.shape)
    payoff[:, -1] = balance[:, -1]  # anything left is repaid at the horizon
    balance[:, -1] = 0.0
    fee = np.zeros(pay.shape)
    fee[_index(n), first_draw] = financing.upfront_fee_rate * draws.sum(axis=1)
    funded, released = _reserve(financing.dsra_months, scheduled, balance, first_draw, start)
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
        sweep,
        funded,
        released,
        r_m,
        profile,
        pay.sum(axis=1),
    )


def _level_schedule(
    financing: Financing,
    draws: np.ndarray,
    r_m: np.ndarray,
    first_op: np.ndarray,
    start: np.ndarray,
    maturity: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """(interest, capitalised, principal, balance) (n, months) of annuity or straight-line loans [USD]; the balance
    of the last month is still owed (the caller pays it off at the horizon).

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
    return interest, capitalized, principal, balance


def _profile_schedule(
    financing: Financing,
    draws: np.ndarray,
    r_m: np.ndarray,
    first_op: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    maturity: np.ndarray,
    profile: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """(interest, capitalised, principal, balance) (n, months) of loans repaid on a balance ``profile`` (n or 1,
    months), month by month [USD]; the last month's balance is still owed.

    Each repayment month ``start + k`` repays down to ``profile[k]`` × the balance when repayment starts, at the
    case's own rate. A month whose profile lies above the balance (the closing case's CFADS ÷ target fell short of
    its interest then) adds the difference to the loan, at most that month's interest (capitalised); whatever is
    left falls due at maturity, or at the horizon.
    """
    n, months = draws.shape
    # the loop runs over (months, n) arrays: row t holds month t of every case
    month = _index(months)[:, None]
    draws_m = draws.T
    capitalizing = (month < first_op) & financing.capitalize_idc
    repaying = (month >= start) & (month < end)
    starting, due_now = month == start, month == maturity - 1
    k = np.clip(month - start, 0, profile.shape[1] - 1)
    rows = np.zeros(n, dtype=int) if profile.shape[0] == 1 else _index(n)
    target = profile[rows[None, :], k]  # (months, n): the profile's share for each case's repayment month
    last_drawn = int(np.flatnonzero(draws_m.any(axis=1)).max(initial=-1))
    last_end = int(end.max(initial=0))
    interest, capitalized, principal, balance = (np.zeros((months, n)) for _ in range(4))
    at_start = np.zeros(n)
    bal = np.zeros(n)
    for t in range(months):
        if t > last_drawn and t >= last_end and not bal.any():
            break  # repaid: the rest of every schedule is zero
        bal = bal + draws_m[t]
        owed = bal * r_m
        interest[t] = owed
        capitalized[t] = np.where(capitalizing[t], owed, 0.0)
        bal = bal + capitalized[t]
        at_start = np.where(starting[t], bal, at_start)
        due = bal - at_start * target[t]
        short = np.where(repaying[t], np.minimum(np.maximum(-due, 0.0), owed - capitalized[t]), 0.0)
        capitalized[t] += short
        bal = bal + short
        due = np.where(due_now[t], bal, due)  # the rest (rounding, a profile cut short) falls due at maturity
        principal[t] = np.where(repaying[t], np.minimum(np.maximum(due, 0.0), bal), 0.0)
        bal = bal - principal[t]
        balance[t] = bal
    return tuple(np.ascontiguousarray(m.T) for m in (interest, capitalized, principal, balance))


def _sweep(
    interest: np.ndarray,
    capitalized: np.ndarray,
    principal: np.ndarray,
    balance: np.ndarray,
    proceeds: np.ndarray | None,
) -> np.ndarray:
    """Apply the cash sweep in place: each sale's ``proceeds`` (n, months) repay the balance left after that month's
    service, and every later flow of the schedule shrinks in proportion. Returns the sweep per month [USD]."""
    sweep = np.zeros(balance.shape)
    if proceeds is None:
        return sweep
    for m in np.flatnonzero((np.atleast_2d(proceeds) > 0).any(axis=0)):  # sale months, in order
        owed = balance[:, m]
        paid = np.minimum(np.broadcast_to(np.atleast_2d(proceeds), balance.shape)[:, m], np.maximum(owed, 0.0))
        kept = np.divide(owed - paid, owed, out=np.ones(owed.shape), where=owed > 0)[:, None]
        for flow in (interest, capitalized, principal, balance):
            flow[:, m + 1 :] *= kept
        balance[:, m] = owed - paid
        sweep[:, m] = paid
    return sweep


def _reserve(
    months_of_service: int, service: np.ndarray, balance: np.ndarray, first_draw: np.ndarray, start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(reserve funded, reserve released) (n, months) [USD]: ``months_of_service`` months of the largest scheduled
    ``service`` over any such run of months, paid in at the first draw, back in the first month from repayment on
    at whose end the (swept, paid-off) ``balance`` is 0 — the last month at the latest."""
    n, months = service.shape
    funded, released = np.zeros(service.shape), np.zeros(service.shape)
    if months_of_service <= 0:
        return funded, released
    window = min(months_of_service, months)
    running = np.zeros((n, months + 1))
    np.cumsum(service, axis=1, out=running[:, 1:])
    amount = (running[:, window:] - running[:, :-window]).max(axis=1)
    rows = _index(n)
    repaid = (_index(months) >= np.minimum(start, months - 1)[:, None]) & (balance <= 1e-9 * amount[:, None])
    repaid[:, -1] = True
    funded[rows, first_draw] = amount
    released[rows, repaid.argmax(axis=1)] += amount
    return funded, released


def project_flows(
    ebitda: np.ndarray,
    collected_ebitda: np.ndarray,
    capex_payments: np.ndarray,
    tax_depreciation: np.ndarray,
    proceeds: np.ndarray,
    tax_gain: np.ndarray,
    tax_rate: float,
    tax_period_months: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(unlevered tax, project free cash flow) per month [USD]: the project as if all-equity.

    Tax (:func:`tax_with_loss_carry_forward`, periods of ``tax_period_months``) on ``ebitda`` (as earned) −
    ``tax_depreciation`` + the sales' ``tax_gain``; cash from ``collected_ebitda`` (revenue collected − opex) −
    capex − tax + sale ``proceeds``.
    """
    tax = tax_with_loss_carry_forward(ebitda - tax_depreciation + tax_gain, tax_rate, period_months=tax_period_months)
    return tax, collected_ebitda - capex_payments - tax + proceeds


@dataclass(frozen=True)
class FinancingCosts:
    """How the debt's costs enter the accounts and the tax base [USD]; arrays (n, months) unless noted.

    Interest during construction (IDC: accrued before the first full operating month, whether capitalised
    into the loan or paid) is capitalised into the first cluster and depreciated with it, by book and by tax
    (:mod:`neoplan.finance.assets`); what is left of it at that cluster's sale leaves the books then (it lowers the
    gain). The upfront fee is capitalised and amortised straight line over the loan term from the first draw; what is
    left when the horizon ends the loan is written off then. Interest from the first operating month on (including
    sculpted shortfalls added to the loan) is deducted as it accrues.
    """

    idc_usd: np.ndarray
    """Interest during construction of each case (n,)."""
    idc_depreciation: np.ndarray
    interest_expense: np.ndarray
    fee_amortization: np.ndarray
    idc_book_at_sale: np.ndarray
    """IDC not yet depreciated (by book) at the first cluster's sale, in its month."""
    idc_tax_depreciation: np.ndarray
    idc_tax_at_sale: np.ndarray
    """IDC not yet depreciated for tax at the first cluster's sale, in its month."""


def financing_costs(
    debt: DebtSchedule, first_operating_month: int | np.ndarray, term_months: int, first: Assets
) -> FinancingCosts:
    """Split the debt's interest and fee into expense, capitalised IDC and fee amortisation [USD].

    See :class:`FinancingCosts`; ``first_operating_month`` may be per case (n,); ``first`` holds the first
    cluster's schedules per USD (:class:`~neoplan.finance.assets.Assets`), which the IDC follows.
    """
    n, months = debt.interest.shape
    building = _before(months, _months(first_operating_month, n))
    idc = np.where(building, debt.interest, 0.0).sum(axis=1)
    fee = debt.fee.sum(axis=1)
    first_draw = _months(debt.first_draw, n)
    amortizing = _between(months, first_draw, first_draw + term_months)
    amortization = np.where(amortizing, (fee / term_months)[:, None], 0.0)
    amortization[:, -1] += fee - amortization.sum(axis=1)  # the rest is written off when the loan ends
    cost = idc[:, None]
    return FinancingCosts(
        idc,
        cost * first.first_book,
        np.where(building, 0.0, debt.interest),
        amortization,
        cost * first.first_book_off,
        cost * first.first_tax,
        cost * first.first_tax_off,
    )


@dataclass(frozen=True)
class CashFlows:
    """The monthly accounts and cash flows of the project (n, months) [USD]."""

    revenue: np.ndarray
    opex: np.ndarray
    ebitda: np.ndarray
    depreciation: np.ndarray
    """Book depreciation, capitalised IDC included."""
    ebit: np.ndarray
    interest: np.ndarray
    """Interest expense from the first full operating month on (IDC is capitalised: in depreciation)."""
    fees: np.ndarray
    taxable_income: np.ndarray
    tax: np.ndarray
    net_income: np.ndarray
    """Book profit after the tax paid (book depreciation and gains; no deferred tax)."""
    capex: np.ndarray
    residual: np.ndarray
    """Sale proceeds."""
    debt: DebtSchedule
    project_tax: np.ndarray
    project_fcf: np.ndarray
    equity_fcf: np.ndarray
    costs: FinancingCosts | None = None
    """How interest and fees enter the accounts (IDC capitalised, fee amortised)."""
    collected: np.ndarray | None = None
    """Revenue collected (:func:`collections`); None = as earned."""
    operating_tax: np.ndarray | None = None
    """Tax without the sales (their gains and the IDC and basis they write off); None = all of the tax."""
    tax_depreciation: np.ndarray | None = None
    """Tax depreciation, capitalised IDC included; None = the book's."""
    gain_on_sale: np.ndarray | None = None
    """Book gain of the sales: proceeds − book value (IDC included)."""
    capex_mid_month: bool = False
    """Capex, and the debt drawn for it, is paid in the middle of its month (``timeline.capex_timing``)."""

    @property
    def project_mid_month(self) -> np.ndarray | None:
        """The part of :attr:`project_fcf` paid mid-month, the capex (n, months) [USD]; None at month ends."""
        return -self.capex if self.capex_mid_month else None

    @property
    def equity_mid_month(self) -> np.ndarray | None:
        """The part of :attr:`equity_fcf` paid mid-month, the capex less the debt drawn for it (n, months) [USD];
        None at month ends."""
        return self.debt.draws - self.capex if self.capex_mid_month else None

    @property
    def revenue_collected(self) -> np.ndarray:
        """Revenue received in cash per month [USD]."""
        return self.revenue if self.collected is None else self.collected

    @property
    def working_capital(self) -> np.ndarray:
        """Receivables at each month's end: revenue earned but not yet collected [USD]."""
        return np.cumsum(self.revenue - self.revenue_collected, axis=-1)

    @property
    def cfads(self) -> np.ndarray:
        """Cash flow available for debt service: revenue collected − opex − tax on operations [USD]."""
        return self.revenue_collected - self.opex - (self.tax if self.operating_tax is None else self.operating_tax)

    @property
    def sale_tax(self) -> np.ndarray:
        """Tax the sales add (the gain's tax, net of the basis and IDC they write off) [USD]."""
        return np.zeros(self.tax.shape) if self.operating_tax is None else self.tax - self.operating_tax


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
    residual_shape: tuple[np.ndarray, np.ndarray] | None = None,
    interest_rate: float | np.ndarray | None = None,
    debt_share: float | np.ndarray | None = None,
    end_of_life: str | None = None,
    refresh_payments: np.ndarray | None = None,
    refresh_capex_usd: np.ndarray | None = None,
    receivable_days: float = 0.0,
    contracted_cfads: np.ndarray | None = None,
    closing: Closing | None = None,
    capex_timing: str = "end_of_month",
) -> CashFlows:
    """Assemble accounts and cash flows from revenue, opex and capex payments (all (n, months)) [USD].

    ``go_live`` [month], ``life_months`` [months], ``residual_share`` [fraction of capex; with ``residual_shape``
    a multiple of the curve, :func:`neoplan.finance.assets.asset_flows`], ``interest_rate`` [per year, before the
    spread] and ``debt_share`` [fraction] may be arrays of per-case values (n,) (stress tests).
    ``end_of_life`` (``shutdown`` or ``refresh``) sells each cluster at go-live + life when that falls inside the
    horizon (None: at the horizon); with ``refresh``, ``refresh_payments`` (n, months) [USD] buy the new clusters
    of ``refresh_capex_usd`` (n,) [USD] each, paid by equity (the debt funds the first cluster only).
    ``receivable_days`` [days] delays collections (:func:`collections`); ``contracted_cfads`` (n, months) [USD] is
    what a loan sized on contracted revenue is sized on; ``closing`` fixes the loan (module docstring);
    ``capex_timing`` (``end_of_month`` or ``mid_month``) says when in its month capex is paid (module docstring).
    """
    revenue, opex, pay = (np.array(a, dtype=float, ndmin=2) for a in (revenue, opex, capex_payments))
    if not revenue.shape == opex.shape == pay.shape:
        revenue, opex, pay = np.broadcast_arrays(revenue, opex, pay)
    n, months = revenue.shape
    first_operating = np.ceil(_each(go_live, n, float)).astype(int)  # each case's first full operating month
    ebitda = revenue - opex
    collected = collections(revenue, receivable_days)
    collected_ebitda = collected - opex
    refresh = refresh_capex_usd if end_of_life == "refresh" else None
    clusters = asset_flows(
        capex_total,
        months,
        go_live,
        life_months,
        residual_share,
        n=n,
        residual_shape=residual_shape,
        end_of_life=end_of_life,
        refresh_capex_usd=refresh,
        tax_method=financing.tax_depreciation,
        tax_life_months=financing.tax_life_months,
        book_life_months=financing.depreciation_life_months,
    )
    bought = pay if refresh is None or refresh_payments is None else pay + refresh_payments  # debt funds `pay` only
    sized_on_cfads = closing is None and financing.amortization == "sculpted" and financing.sizing == "capex_share"
    operating_tax, previous = np.zeros(revenue.shape), None
    for _ in range(SCULPT_ITERATIONS if sized_on_cfads else 1):
        debt = debt_schedule(
            financing,
            pay,
            first_operating,
            cfads=collected_ebitda - operating_tax,
            rate=interest_rate,
            debt_share=debt_share,
            closing=closing,
            contracted_cfads=contracted_cfads,
            proceeds=clusters.proceeds,
        )
        costs = financing_costs(debt, first_operating, financing.term_months, clusters)
        deductions = clusters.tax_depreciation + costs.idc_tax_depreciation + costs.interest_expense
        on_sale = clusters.tax_gain - costs.idc_tax_at_sale  # what the sales add to taxable income
        taxable = ebitda - deductions - costs.fee_amortization + on_sale
        period = financing.tax_period_months
        tax = tax_with_loss_carry_forward(taxable, financing.tax_rate, period_months=period)
        operating_tax = tax_with_loss_carry_forward(taxable - on_sale, financing.tax_rate, period_months=period)
        if previous is not None and _settled(previous, debt):
            break  # tax was computed on this very loan: the loan, its tax and its CFADS agree
        previous = debt
    project_tax, project_fcf = project_flows(
        ebitda,
        collected_ebitda,
        bought,
        clusters.tax_depreciation,
        clusters.proceeds,
        clusters.tax_gain,
        financing.tax_rate,
        financing.tax_period_months,
    )
    to_lenders = debt.interest_paid + debt.principal + debt.swept + debt.payoff + debt.fee
    equity_fcf = collected_ebitda - bought + debt.draws - to_lenders - tax + clusters.proceeds + debt.reserve_flow
    book_depreciation = clusters.book_depreciation + costs.idc_depreciation
    ebit = ebitda - book_depreciation
    gain = clusters.book_gain - costs.idc_book_at_sale
    return CashFlows(
        revenue=revenue,
        opex=opex,
        ebitda=ebitda,
        depreciation=book_depreciation,
        ebit=ebit,
        interest=costs.interest_expense,
        fees=costs.fee_amortization,
        taxable_income=taxable,
        tax=tax,
        net_income=ebit - costs.interest_expense - costs.fee_amortization + gain - tax,
        capex=bought,
        residual=clusters.proceeds,
        debt=debt,
        project_tax=project_tax,
        project_fcf=project_fcf,
        equity_fcf=equity_fcf,
        costs=costs,
        collected=collected,
        operating_tax=operating_tax,
        tax_depreciation=clusters.tax_depreciation + costs.idc_tax_depreciation,
        gain_on_sale=gain,
        capex_mid_month=capex_timing == "mid_month",
    )


def _settled(before: DebtSchedule, after: DebtSchedule) -> bool:
    """Whether two passes of the sizing loop gave the same loan: size and every month's service, to
    :data:`SCULPT_TOLERANCE`."""
    size, size_then = after.drawn_usd, before.drawn_usd
    service, service_then = after.debt_service, before.debt_service
    scale = np.abs(service).max(axis=1, keepdims=True)
    return bool(
        np.all(np.abs(size - size_then) <= SCULPT_TOLERANCE * np.abs(size))
        and np.all(np.abs(service - service_then) <= SCULPT_TOLERANCE * scale)
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


def llcr_table(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """Loan life cover ratio at the start of each 12-month DSCR period (n, periods) [ratio] (:func:`dscr_table`).

    At the start of month m: PV of CFADS from month m to the loan's maturity (cut at the horizon), discounted at the
    loan's all-in monthly rate (month m by one month), ÷ the debt outstanding then (the balance after month m − 1
    plus month m's draw); ``nan`` where no debt is outstanding or the period does not exist for that case.
    """
    debt = cf.debt
    n, horizon = debt.balance.shape
    first, end = _months(first_operating_month, n), _loan_months(cf)
    periods = dscr_table(cf, first).shape[1]
    starts = np.minimum(first[:, None] + MONTHS_PER_YEAR * _index(periods), horizon - 1)  # (n, periods)
    rows = _index(n)[:, None]
    before = np.where(starts > 0, debt.balance[rows, np.maximum(starts - 1, 0)], 0.0)
    owed = before + debt.draws[rows, starts]
    r = loan_rate(cf)[:, None]
    t = _index(horizon)
    weighted = np.where(t < end[:, None], cf.cfads * (1.0 + r) ** -(t + 1.0), 0.0)  # month t at (1 + r)^−(t+1)
    from_month = np.cumsum(weighted[:, ::-1], axis=1)[:, ::-1]  # Σ over months ≥ m
    value = from_month[rows, starts] * (1.0 + r) ** starts
    exists = (first[:, None] + MONTHS_PER_YEAR * _index(periods) < end[:, None]) & (owed > 1e-6)
    return np.divide(value, owed, out=np.full(owed.shape, np.nan), where=exists)


def loan_rate(cf: CashFlows) -> np.ndarray:
    """The all-in monthly rate of each case's loan (n,) [fraction]."""
    debt = cf.debt
    if debt.rate_per_month is not None:
        return np.asarray(debt.rate_per_month, dtype=float)
    owed = np.maximum(debt.balance, 0.0) + debt.draws  # schedules built elsewhere: the rate their interest implies
    return np.divide(debt.interest, owed, out=np.zeros(owed.shape), where=owed > 1e-6).max(axis=1)


def llcr(cf: CashFlows, first_operating_month: int | np.ndarray) -> np.ndarray:
    """Loan life cover ratio at the first full operating month (n,) [ratio]; ``nan`` without debt then.

    The first column of :func:`llcr_table` (``nan`` for a case whose loan matures before that month).
    """
    table = llcr_table(cf, first_operating_month)
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
    """A sentence when a sized loan (sculpted, or on contracted revenue) is smaller than ``debt_share`` × capex
    (one case)."""
    on_contracts = financing.sizing == "contracted_revenue"
    if not (financing.amortization == "sculpted" or on_contracts) or not capex_usd > 0:
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
