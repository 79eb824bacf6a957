"""Monthly project finance: the accounts and cash flows, NPV and payback (the debt: :mod:`neoplan.finance.debt`;
the cash waterfall: :mod:`neoplan.finance.waterfall`; assets and their sale: :mod:`neoplan.finance.assets`).

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
* numpy_financial at run time where it computes the same thing: the level payment and its principal split
  (``npf.pmt``, ``npf.ppmt``; they broadcast over cases). :func:`npv` and :func:`mirr_annual` stay ours:
  ``npf.npv`` takes one series and one scalar rate (no rate per case, no half-month part) and ``npf.mirr`` one
  series; measured on 1,000 series of 72 months, looping them takes 12.6 ms and 33 ms against 0.8 ms and 7 ms
  here. numpy_financial remains their oracle in the tests.
* Revenue is earned in its month and collected ``receivable_days`` later (:func:`collections`); the receivables
  still open at the horizon are collected in its last month. Tax follows revenue as earned.
* **Debt** (:mod:`neoplan.finance.debt`): tranches (``financing.tranches``, or one senior loan of the one-loan
  fields at ``interest_rate`` + ``credit_spread``), nominal rates compounding monthly (``rate / 12`` a month),
  unlike the discount rate; drawn pro rata with the capex of what they finance (a phase, a refresh), interest
  on the balance after the month's draw, capitalised before the first full operating month (or paid, if
  ``capitalize_idc`` is false), repayment ``grace_months`` after that month on installments fixed at close,
  maturity a term after the draw. Sized at close by ``financing.sizing`` (``dscr``: sculpted on the contracted cash
  flow the forecast carries; :func:`phased_cash_flows` iterates sizing, waterfall and tax until the loan is sized on
  its own CFADS). **The debt is fixed at financial close** on the base case (:class:`Closing`): every other case
  (stress cases, grid cells, solver steps) meets its sizes, installments, fixed rates and reserve.
* **The cash waterfall** (:mod:`neoplan.finance.waterfall`): CFADS pays debt service by seniority, then refills the
  debt service reserve, then the cash sweep; the rest is held under a lock-up or distributed; a shortfall is paid
  from the cash held, then the reserve, then by the sponsor (a payment default). Quarterly covenant tests lock up and,
  below the covenant, sweep everything. Sale proceeds repay the tranches first; prepayments shorten the loan. Debt
  still outstanding at the horizon is repaid then (``payoff``), by equity: the model assumes no refinancing.
* Tax (:func:`tax_with_loss_carry_forward`): each tax year owes tax on its net taxable income (losses netted within
  the year, carried forward across years, none back), paid as it accrues: by each month's end the year has paid the
  tax on its income to date, so a loss later in the year gives back tax paid earlier in it. Tax years are the
  project years, 12-month blocks from month 0 (the purchase order; a scenario has no calendar dates), the last one
  cut at the horizon. ``financing.tax_period_months`` = 1 taxes each month on its own (1-month tax years). The
  monthly payments stand in for US estimated tax on the income to date (IRC §6655: installments in months 4, 6, 9
  and 12 of the tax year, the annualised-income method), paid monthly instead of quarterly and trued up within the
  year instead of after it. Depreciation for tax and book
  (:mod:`neoplan.finance.assets`); interest during construction is capitalised into the asset and depreciated with it
  (by book and by tax); each draw's upfront fee is amortised over its term (:class:`FinancingCosts`). The P&L books
  the tax paid (no deferred tax). Tax losses still carried forward at the horizon are not valued (no later income
  offsets them inside it): :func:`losses_carried` reports them.
* CFADS (cash flow available for debt service) = revenue collected − opex − tax on operations, where the tax on
  operations leaves out the sales (their gain and its tax; the proceeds sweep the loan instead). DSCR is measured
  on 12-month periods from the first repayment month; LLCR at the start of each period (:mod:`neoplan.finance.cover`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..inputs.business import Financing
from ..inputs.loans import base_rate_path
from ..inputs.pricebook import BASE_BOOK_DATE
from ..timebase import DAYS_PER_MONTH, MONTHS_PER_YEAR, monthly_rate
from . import waterfall
from .accounts import CashFlows as CashFlows  # the records of the accounts (re-exported)
from .accounts import FinancingCosts as FinancingCosts
from .assets import Assets, asset_flows, depreciation
from .cover import (
    covenant_headroom,
    dscr_by_period,
    dscr_table,
    llcr,
    llcr_table,
    loan_rate,
    min_dscr,
    repayment_periods,
    sculpted_size_warnings,
)
from .debt import BASE_RATE, Closing, Group, Pieces, annuity_payment, build_pieces
from .debt import closing_of as debt_closing
from .irr import half_month_grid
from .schedule import DebtSchedule, debt_schedule, schedule_of, sizing_basis
from .tax import losses_carried, tax_period_ends, tax_with_loss_carry_forward
from .waterfall import CASH_TOLERANCE_USD

__all__ = [
    "CASH_TOLERANCE_USD",
    "Assets",
    "Closing",
    "DebtSchedule",
    "Group",
    "annuity_payment",
    "asset_flows",
    "covenant_headroom",
    "debt_schedule",
    "depreciation",
    "dscr_by_period",
    "dscr_table",
    "llcr",
    "llcr_table",
    "loan_rate",
    "losses_carried",
    "min_dscr",
    "repayment_periods",
    "sculpted_size_warnings",
    "tax_period_ends",
    "tax_with_loss_carry_forward",
]

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


def fee_amortization(pieces: Pieces) -> np.ndarray:
    """Each piece's fee amortised straight line over its term from its own first draw month, the rest written off in
    the last month (n, months) [USD] (:class:`FinancingCosts`)."""
    _n_pieces, _n, months = pieces.fee.shape
    fee = pieces.fee.sum(axis=-1)  # (P, n)
    paid_in = pieces.fee.argmax(axis=-1)
    term = np.maximum(pieces.maturity - paid_in, 1)
    t = np.arange(months)
    amortizing = (t >= paid_in[..., None]) & (t < (paid_in + term)[..., None])
    out = np.where(amortizing, (fee / term)[..., None], 0.0).sum(axis=0)
    out[:, -1] += fee.sum(axis=0) - out.sum(axis=1)
    return out


def financing_costs(
    debt: DebtSchedule, first_operating_month: int | np.ndarray, first: Assets, fees: np.ndarray | None = None
) -> FinancingCosts:
    """Split the debt's interest and fees into expense, capitalised IDC and fee amortisation [USD].

    See :class:`FinancingCosts`; ``first_operating_month`` may be per case (n,); ``first`` holds the first
    cluster's schedules per USD (:class:`~neoplan.finance.assets.Assets`), which the IDC follows; ``fees`` the fee
    amortisation if known (:func:`fee_amortization`).
    """
    n, months = debt.interest.shape
    building = np.arange(months) < _each(first_operating_month, n, int)[:, None]
    idc = np.where(building, debt.interest, 0.0).sum(axis=1)
    cost = idc[:, None]
    return FinancingCosts(
        idc,
        cost * first.first_book,
        np.where(building, 0.0, debt.interest),
        fee_amortization(debt.pieces) if fees is None else fees,
        cost * first.first_book_off,
        cost * first.first_tax,
        cost * first.first_tax_off,
    )


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
    prepayment_flow: np.ndarray | None = None,
    contracted_cfads: np.ndarray | Mapping[str, np.ndarray] | None = None,
    closing: Closing | None = None,
    capex_timing: str = "end_of_month",
    as_of: str = BASE_BOOK_DATE,
) -> CashFlows:
    """Accounts and cash flows of one cluster built at once from revenue, opex and capex payments (all (n, months))
    [USD]: :func:`phased_cash_flows` with one build group (and, for a tranche that finances refreshes, one group per
    refresh cluster, ``refresh_payments`` split at each refresh's go-live).

    ``go_live`` [month], ``life_months`` [months], ``residual_share`` [fraction of capex; with ``residual_shape``
    a multiple of the curve, :func:`neoplan.finance.assets.asset_flows`], ``interest_rate`` [per year, before the
    spread: it moves every rate by its difference from ``financing.interest_rate``] and ``debt_share`` [fraction]
    may be arrays of per-case values (n,) (stress tests). ``end_of_life`` (``shutdown`` or ``refresh``) sells each
    cluster at go-live + life when that falls inside the horizon (None: at the horizon); with ``refresh``,
    ``refresh_payments`` (n, months) [USD] buy the new clusters of ``refresh_capex_usd`` (n,) [USD] each.
    ``receivable_days`` [days] delays collections (:func:`collections`); ``prepayment_flow`` (n, months) [USD] adds
    customers' prepayments to the cash collected and takes off the bills they settle (it sums to 0: tax follows
    revenue as earned, working capital turns negative). ``contracted_cfads`` (n, months) [USD], or a mapping of it by
    counterparty credit, is what a loan sized on contracts is sized on (one array: sub-investment grade); ``as_of``
    (``YYYY-MM``) dates month 0 for the base-rate path.
    """
    revenue, opex, pay = (np.array(a, dtype=float, ndmin=2) for a in (revenue, opex, capex_payments))
    if not revenue.shape == opex.shape == pay.shape:
        revenue, opex, pay = np.broadcast_arrays(revenue, opex, pay)
    n, months = revenue.shape
    first_operating = np.ceil(_each(go_live, n, float)).astype(int)
    refresh = refresh_capex_usd if end_of_life == "refresh" else None
    assets = asset_flows(
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
    contracted = contracted_cfads
    if contracted is not None and not isinstance(contracted, Mapping):
        contracted = {"sub_investment_grade": np.broadcast_to(np.atleast_2d(contracted), (n, months))}
    groups = [Group(pay, first_operating, weight=np.ones((n, months)), contracted=contracted)]
    refreshing = refresh is not None and refresh_payments is not None
    if refresh is not None and refresh_payments is not None:
        groups += refresh_groups(
            np.broadcast_to(refresh_payments, (n, months)), _each(go_live, n, float), _each(life_months, n, float)
        )
    return phased_cash_flows(
        financing,
        revenue=revenue,
        opex=opex,
        groups=groups,
        assets=assets,
        bought=pay + refresh_payments if refreshing else pay,
        contracted=contracted,
        receivable_days=receivable_days,
        prepayment_flow=prepayment_flow,
        rate_shift=np.zeros(n) if interest_rate is None else _each(interest_rate, n, float) - financing.interest_rate,
        debt_share=_each(financing.debt_share if debt_share is None else debt_share, n, float),
        closing=closing,
        capex_timing=capex_timing,
        as_of=as_of,
    )


def refresh_groups(payments: np.ndarray, go_live: np.ndarray, life_months: np.ndarray) -> list[Group]:
    """One :class:`~neoplan.finance.debt.Group` per refresh cluster: the payments of ``payments`` (n, months) made
    before the refresh's go-live (go-live + k lives) and after the one before, and its first operating month."""
    _n, months = payments.shape
    t = np.arange(months)
    out = []
    k = 1
    while np.any(go_live + k * life_months < months):
        live = go_live + k * life_months
        window = (t[None, :] <= live[:, None]) & (t[None, :] > (live - life_months)[:, None])
        out.append(Group(np.where(window, payments, 0.0), np.ceil(live).astype(int), refresh=True))
        k += 1
    return out


def phased_cash_flows(
    financing: Financing,
    *,
    revenue: np.ndarray,
    opex: np.ndarray,
    groups: Sequence[Group],
    assets: Assets,
    bought: np.ndarray,
    contracted: Mapping[str, np.ndarray] | None,
    receivable_days: float,
    rate_shift: np.ndarray,
    debt_share: np.ndarray,
    closing: Closing | None,
    capex_timing: str,
    as_of: str,
    prepayment_flow: np.ndarray | None = None,
) -> CashFlows:
    """Accounts and cash flows of n cases of a build in groups (phases, refreshes) (n, months) [USD].

    ``groups`` say what each set of draws funds (:class:`~neoplan.finance.debt.Group`), ``assets`` the clusters'
    depreciation and sales, ``bought`` every capex payment; ``contracted`` the contracted CFADS by counterparty
    credit; ``rate_shift`` (n,) moves the base rate (and, before close, every rate) [fraction per year];
    ``debt_share`` (n,) the first tranche's share under ``capex_share`` sizing, or with a ``closing`` the debt share
    that scales every size fixed at close; ``prepayment_flow`` (n, months), customers' prepayments less the bills
    they settle (:func:`cash_flows`). Without a ``closing`` the loan is sized here: a loan sized on the forecast
    CFADS iterates sizing, waterfall and tax until its size and service settle.
    """
    _n, months = revenue.shape
    first_operating = groups[0].first_operating
    ebitda = revenue - opex
    collected = collections(revenue, receivable_days)
    if prepayment_flow is not None:
        collected = collected + prepayment_flow
    collected_ebitda = collected - opex
    base_path = base_rate_path(BASE_RATE, as_of, months)
    operating_taxable = ebitda - assets.tax_depreciation
    amortization = financing.amortization
    senior_sized = not financing.tranches or financing.tranches[0].share is None
    on_cfads = financing.sizing == "dscr" or (financing.sizing == "capex_share" and amortization == "sculpted")
    iterate = closing is None and senior_sized and on_cfads
    cfads = collected_ebitda
    sized_on: np.ndarray | None = None
    for _ in range(SCULPT_ITERATIONS if iterate else 1):
        basis = None if closing is not None else sizing_basis(financing, cfads, contracted)
        if sized_on is not None and basis is not None and _same(basis, sized_on):
            break  # the loan of the last pass was sized on this very CFADS: loan, tax and CFADS agree
        pieces = build_pieces(
            financing,
            groups,
            base_path=base_path,
            rate_shift=rate_shift,
            debt_share=debt_share,
            basis=basis,
            closing=closing,
        )
        fees = fee_amortization(pieces)
        flows = waterfall.run(
            pieces,
            financing,
            cfads_before_tax=collected_ebitda,
            taxable_before_interest=operating_taxable - fees,
            idc_deduction_per_usd=assets.first_tax,
            first_operating=first_operating,
            proceeds=assets.proceeds,
        )
        debt = schedule_of(pieces, flows)
        cfads = collected_ebitda - flows.operating_tax
        sized_on = basis
    costs = financing_costs(debt, first_operating, assets, fees)
    on_sale = assets.tax_gain - costs.idc_tax_at_sale
    deductions = assets.tax_depreciation + costs.idc_tax_depreciation + costs.interest_expense + costs.fee_amortization
    taxable = ebitda - deductions + on_sale
    period = financing.tax_period_months
    tax = tax_with_loss_carry_forward(taxable, financing.tax_rate, period_months=period)
    project_tax, project_fcf = project_flows(
        ebitda,
        collected_ebitda,
        bought,
        assets.tax_depreciation,
        assets.proceeds,
        assets.tax_gain,
        financing.tax_rate,
        period,
    )
    f = debt.flows
    to_lenders = debt.interest_paid + debt.principal + debt.sweep + debt.payoff + debt.fee
    reserve_moves = f.reserve_draw - f.reserve_topup
    held_change = np.diff(f.held, axis=1, prepend=0.0)
    equity_fcf = (
        collected_ebitda
        - bought
        + debt.draws
        - to_lenders
        - tax
        + assets.proceeds
        + debt.reserve_flow
        + reserve_moves
        - held_change
    )
    book_depreciation = assets.book_depreciation + costs.idc_depreciation
    ebit = ebitda - book_depreciation
    gain = assets.book_gain - costs.idc_book_at_sale
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
        residual=assets.proceeds,
        debt=debt,
        project_tax=project_tax,
        project_fcf=project_fcf,
        equity_fcf=equity_fcf,
        costs=costs,
        collected=collected,
        operating_tax=f.operating_tax,
        tax_depreciation=assets.tax_depreciation + costs.idc_tax_depreciation,
        gain_on_sale=gain,
        capex_mid_month=capex_timing == "mid_month",
        first_operating_month=first_operating,
        build_capex_usd=sum(g.payments.sum(axis=1) for g in groups if not g.refresh),
        sizing_basis=sized_on,
    )


def _same(basis: np.ndarray, before: np.ndarray) -> bool:
    """Whether a sizing basis is the one a loan was last sized on, to :data:`SCULPT_TOLERANCE` of its largest
    month."""
    scale = float(np.abs(before).max(initial=0.0))
    return bool(np.all(np.abs(basis - before) <= SCULPT_TOLERANCE * scale))


def closing_of(cash: CashFlows) -> Closing:
    """The debt structure of the first case of ``cash``, fixed at close (:class:`~neoplan.finance.debt.Closing`);
    its debt share is measured on the case's build capex (refreshes left out)."""
    build = cash.capex.sum(axis=1) if cash.build_capex_usd is None else cash.build_capex_usd
    return debt_closing(cash.debt.pieces, float(build[0]))
