"""Returns of one design: levelised cost (TCO), project NPV as a function of price, break-even price,
and why a KPI is undefined.

All at the scenario's hurdle rate; months count from the purchase order (see :mod:`neoplan.timebase`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from ..economics import contracts, market, residual, revenue
from ..inputs.scenario import Scenario
from ..timebase import monthly_rate
from . import irr
from . import project as finance
from .assets import asset_flows
from .engine import capex_payments, prepayment_flow, refresh_payments

TCO_CATEGORIES = ("capital", "power", "colocation", "staff", "software", "other")
_TCO_OF_OPEX = {
    "power": "power",
    "colocation": "colocation",
    "staff": "staff",
    "software": "software",
    "hardware_support": "other",
    "repairs": "other",
    "insurance": "other",
    "transit": "other",
}


class _CapitalPerUsd(NamedTuple):
    """The capital flows of a design per dollar of its capex (months,) [USD per USD]: they all scale with capex.

    As the engine books them (:func:`neoplan.finance.assets.asset_flows`): the first cluster's payments, refresh
    clusters' when ``end_of_life`` is refresh, and each cluster sold at the end of its useful life or at the horizon.
    """

    paid: np.ndarray
    """Capex paid."""
    tax_depreciation: np.ndarray
    residual: np.ndarray
    """Proceeds of the sales."""
    tax_gain: np.ndarray
    """Taxable gain of the sales over their tax basis."""
    outflow: np.ndarray
    """Capex paid − proceeds: the capital's part of free cash flow, negated, mid-month capex carried to its month's
    end at the hurdle rate (:func:`neoplan.finance.project.at_month_end`): what discounting at the hurdle rate needs."""
    deductible: np.ndarray
    """Tax depreciation − taxable gain: what the capital takes off taxable income."""


def _capital_flows(scenario: Scenario, d: revenue.Dates) -> _CapitalPerUsd:
    """The design's capital flows per dollar of capex (multiply by the capex) from the timeline alone."""
    t, fin = scenario.timeline, scenario.financing
    capex = np.ones(1)
    paid = capex_payments(capex, d, t.deposit_share) + refresh_payments(
        capex, d, t.deposit_share, t.refresh_capex_multiple
    )
    flows = asset_flows(
        capex,
        d.months,
        d.go_live_month,
        d.life_months,
        residual.base_share(scenario),
        residual_shape=residual.shape(scenario),
        end_of_life=t.end_of_life,
        refresh_capex_usd=capex * t.refresh_capex_multiple,
        tax_method=fin.tax_depreciation,
        tax_life_months=fin.tax_life_months,
    )
    dep, proceeds, gain = flows.tax_depreciation[0], flows.proceeds[0], flows.tax_gain[0]
    mid = paid[0] if t.capex_timing == "mid_month" else None
    outflow = finance.at_month_end(fin.hurdle_rate, paid[0], mid) - proceeds
    return _CapitalPerUsd(paid[0], dep, proceeds, gain, outflow, dep - gain)


def _tco(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    sold_gpu_hours: np.ndarray,
) -> dict[str, float]:
    """Levelised cost per sold GPU-hour by TCO category: PV(costs) / PV(sold hours) at the hurdle rate."""
    capital = capex_usd * _capital_flows(scenario, d).outflow
    rows = np.array([sold_gpu_hours, capital, *opex_fixed.values()])
    present = finance.npv(scenario.financing.hurdle_rate, rows).tolist()  # one discounting for all
    hours = present[0]
    if hours <= 0:
        return dict.fromkeys(TCO_CATEGORIES, math.nan)
    out = dict.fromkeys(TCO_CATEGORIES, 0.0)
    out["capital"] = present[1] / hours  # a tiny utilization (1e-320) sells too few hours: the TCO is infinite
    for category, value in zip(opex_fixed, present[2:], strict=True):
        out[_TCO_OF_OPEX[category]] += value / hours
    return out


@dataclass(frozen=True)
class TokenSale:
    """The price solvers' unknown is the token price: every GPU-hour planned for tokens (``token_share`` of them)
    serves at a GPU-hour equivalent that is the solver's price, ``demand_scale`` of them finding buyers, falling at
    ``decline_per_year``; the rented and idle hours keep ``usd_per_gpu_hour`` (the effective headline) and its path."""

    usd_per_gpu_hour: float
    token_share: float
    decline_per_year: float
    demand_scale: float


@dataclass(frozen=True)
class SalesTerms:
    """What the failure model and the customers do to the contract book, for the price solvers: GPUs on sale, the
    on-demand price multiple (the tier's premium) and the share of each month's gross revenue lost to churn and a
    failed acceptance test (:mod:`neoplan.economics.customers`)."""

    sellable_gpus: int
    on_demand_price_multiple: float
    customer_loss_share: np.ndarray | float = 0.0
    reserved_loss_share: np.ndarray | float = 0.0
    spare_gpus: int = 0
    """GPUs of hot spares and held-back trays, sold at spot when idle
    (:func:`neoplan.economics.revenue.sales_schedule`)."""
    utilization: float | None = None
    """Use of the sellable hours after the failure model's checklist factor [fraction]; None = the scenario's."""
    tokens: TokenSale | None = None
    """Solve for the token price instead of the headline GPU-hour price (:class:`TokenSale`); None = GPU-hours."""


def _schedule(
    scenario: Scenario, d: revenue.Dates, prices: np.ndarray, terms: SalesTerms | None = None
) -> revenue.RevenueSchedule:
    """The contract book, idle hours at spot included, at headline ``prices`` (a column), on the scenario's price
    path and contract multiples (:func:`neoplan.economics.revenue.sales_schedule`)."""
    tokens = None if terms is None else terms.tokens
    solved: dict[str, Any] = {"usd_per_gpu_hour": prices}
    if tokens is not None:
        solved = {
            "usd_per_gpu_hour": tokens.usd_per_gpu_hour,
            "token_share": tokens.token_share,
            "token_usd_per_gpu_hour": prices,
            "token_price_decline_per_year": tokens.decline_per_year,
            "token_demand_scale": tokens.demand_scale,
        }
    return revenue.sales_schedule(
        scenario.pricing,
        scenario.cluster.gpus if terms is None else terms.sellable_gpus,
        d,
        book=contracts.book_of(scenario),
        spare_gpus=0 if terms is None else terms.spare_gpus,
        **solved,
        utilization=None if terms is None else terms.utilization,
        price_path=market.scenario_path(scenario, d.go_live_month),
        reserved_price_multiple=market.reserved_multiple(scenario),
        on_demand_price_multiple=None if terms is None else terms.on_demand_price_multiple,
        customer_loss_share=0.0 if terms is None else terms.customer_loss_share,
        reserved_loss_share=0.0 if terms is None else terms.reserved_loss_share,
    )


def _collected(rev: revenue.RevenueSchedule, receivable_days: float) -> np.ndarray:
    """Revenue as collected, prepayments included (:func:`neoplan.finance.engine.prepayment_flow`) [USD]."""
    flow = prepayment_flow(rev, receivable_days)
    collected = finance.collections(rev.revenue_usd, receivable_days)
    return collected if flow is None else collected + flow


def project_npv(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    prices: np.ndarray,
    terms: SalesTerms | None = None,
) -> np.ndarray:
    """Project NPV at the hurdle rate for each headline price in ``prices`` (1-D) [USD]; financing plays no part.
    ``terms``: the failure model's and customers' effects on the book (:class:`SalesTerms`); None = none."""
    rev = _schedule(scenario, d, prices[:, None], terms)
    opex = rev.revenue_usd * scenario.opex.sga_rate + sum(opex_fixed.values())
    collected = _collected(rev, scenario.pricing.receivable_days) - opex
    c = _capital_flows(scenario, d)
    pay, dep, proceeds, gain = (capex_usd * a for a in (c.paid, c.tax_depreciation, c.residual, c.tax_gain))
    fin = scenario.financing
    _, fcf = finance.project_flows(
        rev.revenue_usd - opex, collected, pay, dep, proceeds, gain, fin.tax_rate, fin.tax_period_months
    )
    mid = -np.broadcast_to(pay, fcf.shape) if scenario.timeline.capex_timing == "mid_month" else None
    return finance.npv(fin.hurdle_rate, fcf, mid)


class _PriceCurve(NamedTuple):
    """Project NPV at the hurdle rate as a function of the headline price p, for revenue affine in p.

    Free cash flow is affine in p but for the tax: NPV(p) = ``at_zero`` + ``per_usd`` × p − PV(tax(p)), revenue
    counted as collected (:func:`neoplan.finance.project.collections`) and taxed as earned. The tax of each month is the
    tax rate × the rise of P(p), the income taxed by its end
    (:func:`neoplan.finance.project.tax_with_loss_carry_forward`): max(T, C), C the cumulative taxable income, T the
    running maximum of C (floored at 0) over the ends of the tax periods before the month's own. Summed by parts,
    PV(tax) = Σ_j ``weights``_j P_j with ``weights``_j = tax rate × (d_(j-1) − d_j), d the discount factors (d_t = 0
    from the horizon on). The arrays have months + 1 entries: entry j ≥ 1 is month j − 1 and entry 0 a month of nothing,
    whose cumulative 0 is the floor.

    A running maximum of affine functions of p is convex and piecewise linear, so are T and P = max(T, C), and the
    weights are ≥ 0 (the hurdle rate is), so NPV is concave and piecewise linear in p; with EBITDA per $ of price ≥ 0
    and a tax rate ≤ 1 it is also non-decreasing (each $ of price adds at most the tax rate × its PV to PV(tax)).
    """

    at_zero: float
    """NPV at p = 0 before tax [USD]."""
    per_usd: float
    """What each $/GPU-h of price adds to NPV before tax [USD per USD/GPU-h]."""
    cumulative_at_zero: np.ndarray
    """Cumulative taxable income at p = 0 (months + 1,) [USD]."""
    cumulative_per_usd: np.ndarray
    """What each $/GPU-h adds to it (months + 1,): cumulative EBITDA per $ [USD per USD/GPU-h]."""
    weights: np.ndarray
    """Tax rate × the fall of the discount factor at each entry (months + 1,) [fraction]."""
    ends: np.ndarray
    """Entries that end a tax period, after entry 0 (periods + 1,) [index]: every entry with monthly tax."""
    before: np.ndarray
    """For each entry, the position in ``ends`` of the last period end before its period (months + 1,) [index]."""

    def at(self, price: float) -> tuple[float, float]:
        """(NPV [USD], its slope to the right [USD per USD/GPU-h]) at headline ``price`` [USD/GPU-h]."""
        cumulative = self.cumulative_at_zero + price * self.cumulative_per_usd
        at_ends, per_usd_at_ends = cumulative[self.ends], self.cumulative_per_usd[self.ends]
        carried = np.maximum.accumulate(at_ends)  # T at each period end (entry 0 = 0 floors it)
        # T moves with price as the last period end that set its running maximum (of ends that tie, the last rises
        # fastest: the slope to the right). EBITDA per $ is ≥ 0, so that end's cumulative per $ is the largest of all
        # such ends', and a running maximum over them finds it.
        carried_rises = np.maximum.accumulate((at_ends == carried) * per_usd_at_ends)
        before, rises = carried[self.before], carried_rises[self.before]
        taxed = np.maximum(before, cumulative)
        # a tie rises as the entry itself: its cumulative per $ is at least that of any end before it
        rises = np.where(cumulative >= before, self.cumulative_per_usd, rises)
        value = self.at_zero + price * self.per_usd - float(taxed @ self.weights)
        return value, self.per_usd - float(rises @ self.weights)

    def root(self, max_usd_per_gpu_hour: float) -> float:
        """The lowest price at which NPV is ≥ 0: 0 if NPV(0) is; nan if none up to the max [USD/GPU-h].

        Newton from the left on a concave piecewise linear curve: each tangent meets 0 at or below the root, past
        the kink ending its piece unless the root is on it, so the steps go kink to kink and land on the root
        exactly (to rounding) once a step stays on the piece it started from. Tax only lowers NPV, so the first
        step may follow the line of NPV before tax, whose zero is at or below the root too, when that line is
        below 0 at price 0 (as NPV then is).
        """
        price, value, slope, on_curve = 0.0, self.at_zero, self.per_usd, False  # the line of NPV before tax
        if self.at_zero >= 0:
            (value, slope), on_curve = self.at(0.0), True
            if value >= 0:
                return price
        for _ in range(_NEWTON_STEPS):
            if not slope > 0:
                return math.nan  # flat below 0 (or not a number): concave, the curve never comes back up
            step = price - value / slope
            if step > max_usd_per_gpu_hour:  # the root is past the max, or at it to rounding
                return max_usd_per_gpu_hour if self.at(max_usd_per_gpu_hour)[0] >= 0 else math.nan
            if not step > price:
                return price  # the root to rounding
            value, new_slope = self.at(step)
            if value >= 0 or (on_curve and new_slope == slope):
                return step
            price, slope, on_curve = step, new_slope, True
        return price


_NEWTON_STEPS = 200
"""Most Newton steps of the break-even search (it takes one per kink on the way, a handful); past them it returns
the last price reached, below the root."""


def _price_curve(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    terms: SalesTerms | None = None,
) -> _PriceCurve:
    """:func:`project_npv` as a function of one price, with everything price-independent built once.

    Revenue is affine in the headline price (every contract price is proportional to it, or pinned;
    :func:`neoplan.economics.revenue.revenue_schedule`), so it is tabulated at two prices; a third price checks that (a
    revenue that is not affine is a bug here: RuntimeError).
    """
    probe = np.array([[0.0], [1.0], [2.0]])
    schedule = _schedule(scenario, d, probe, terms)
    rev = schedule.revenue_usd
    at_zero, per_usd = rev[0], rev[1] - rev[0]
    off_line = np.abs(rev[2] - rev[1] - per_usd).max(initial=0.0)
    if off_line > 1e-9 * np.abs(rev[2]).max(initial=0.0) + 1e-6:
        raise RuntimeError(f"revenue is not affine in the headline price (off by ${off_line:,.2f} at $2/GPU-h)")
    capital, months, sga = _capital_flows(scenario, d), d.months, scenario.opex.sga_rate
    keep, days = 1.0 - sga, scenario.pricing.receivable_days
    fixed = np.add.reduce(np.array([*opex_fixed.values()]))
    ebitda_at_zero = at_zero * keep - fixed
    collected = _collected(schedule, days)  # revenue as collected, prepayments included: affine in price too
    cash_at_zero = collected[0] - sga * at_zero - fixed
    cash_per_usd = collected[1] - collected[0] - sga * per_usd
    fin = scenario.financing
    # finance.npv's discounting: month t by (1 + r_m) ** t
    discount = (1.0 / (1.0 + float(monthly_rate(fin.hurdle_rate)))) ** np.arange(months)
    return price_curve(
        float(cash_at_zero @ discount) - capex_usd * float(capital.outflow @ discount),
        float(cash_per_usd @ discount),
        ebitda_at_zero - capex_usd * capital.deductible,
        per_usd * keep,  # EBITDA per $
        discount,
        fin.tax_rate,
        fin.tax_period_months,
    )


def price_curve(
    at_zero: float,
    per_usd: float,
    taxable_at_zero: np.ndarray,
    taxable_per_usd: np.ndarray,
    discount: np.ndarray,
    tax_rate: float,
    tax_period_months: int,
) -> _PriceCurve:
    """The curve NPV(p) = ``at_zero`` + ``per_usd`` × p − Σ_t ``discount``_t × tax_t(p) [USD], tax_t the tax of
    :func:`neoplan.finance.project.tax_with_loss_carry_forward` on the monthly taxable income ``taxable_at_zero`` + p ×
    ``taxable_per_usd`` (both (months,); the latter ≥ 0 for the curve to be concave and to rise)."""
    months = discount.size
    taxable = np.zeros((2, months + 1))  # at price 0 and per $ of price, after an entry of nothing
    taxable[0, 1:], taxable[1, 1:] = taxable_at_zero, taxable_per_usd
    cumulative_at_zero, cumulative_per_usd = np.add.accumulate(taxable, axis=1)
    weights = np.zeros(months + 1)
    np.subtract(discount[:-1], discount[1:], out=weights[1:-1])
    weights[-1] = discount[-1]
    weights *= tax_rate
    return _PriceCurve(
        at_zero=at_zero,
        per_usd=per_usd,
        cumulative_at_zero=cumulative_at_zero,
        cumulative_per_usd=cumulative_per_usd,
        weights=weights,
        ends=np.concatenate([[0], finance.tax_period_ends(months, tax_period_months) + 1]),
        before=np.concatenate([[0], np.arange(months) // tax_period_months]),  # month t: T at its period's start
    )


KPI_LABELS = {
    "tco_usd_per_gpu_hour": "TCO",
    "breakeven_usd_per_gpu_hour": "Break-even price",
    "npv_usd": "NPV",
    "project_irr": "Project IRR",
    "equity_irr": "Equity IRR",
    "equity_npv_usd": "Equity NPV",
    "equity_mirr": "Equity MIRR",
    "payback_months": "Payback",
    "discounted_payback_months": "Discounted payback",
    "min_dscr": "Min DSCR",
    "ebitda_margin": "EBITDA margin",
    "gross_margin": "Gross margin",
    "equity_moic": "Equity MOIC",
    "go_live_month": "Go-live month",
    "llcr": "LLCR",
    "covenant_headroom": "Covenant headroom",
}
"""The KPIs of :func:`evaluate` by key, as named in the app and in the warnings about undefined ones."""
BREAKEVEN_MAX_USD_PER_GPU_HOUR = 1000.0
"""Highest headline price the break-even search tries [USD/GPU-h]."""


def _irr_reason(flows: np.ndarray, whose: str, mid_month: np.ndarray | None = None) -> str:
    """Why the IRR of monthly ``flows`` is undefined (see :func:`neoplan.finance.irr.irr_annual` for the root it looks
    for; ``mid_month`` the part of each month's flow paid in its middle)."""
    if not (flows > 0).any():
        return f"{whose} cash flows never turn positive"
    if not (flows < 0).any():
        return f"{whose} cash flows are never negative, so nothing is invested to earn a return on"
    roots = irr.irr_candidates_annual(flows, mid_month=mid_month)
    net = float(np.sum(flows))
    if len(roots) > 1:
        rates = ", ".join(f"{r:+.1%}" for r in roots[:4])
        return (
            f"{whose} cash flows change sign more than once and their NPV is zero at several rates ({rates} a year); "
            "none of them agrees with the sign of both the net cash and the NPV at the hurdle rate, so judge "
            "them by NPV and MOIC"
        )
    if net < 0:
        return (
            f"{whose} cash flows lose ${-net:,.0f} in total and no rate above -99.99 % a year makes their NPV zero "
            "(they end with an outflow)"
            if flows[np.nonzero(flows)[0][-1]] < 0
            else f"{whose} cash flows lose ${-net:,.0f} in total and no rate above -99.99 % a year makes their NPV zero"
        )
    if roots:
        return (
            f"the only rate that makes the NPV of the {whose} cash flows zero ({roots[0]:+.1%} a year) disagrees "
            "with the sign of their net cash or of their NPV at the hurdle rate"
        )
    return f"no rate from -99.99 % to +409,500 % a year makes the NPV of the {whose} cash flows zero"


class _Case:
    """One case's figures that explain undefined KPIs (see :func:`undefined_kpi_warnings`), each worked out once
    and only if asked."""

    def __init__(
        self, kpis: dict[str, float | None], cash: finance.CashFlows, sold_gpu_hours: np.ndarray, horizon_months: int
    ) -> None:
        self.kpis, self.cash, self.sold_gpu_hours, self.horizon_months = kpis, cash, sold_gpu_hours, horizon_months

    @staticmethod
    def first(flows: np.ndarray | None) -> np.ndarray | None:
        """The first (only) case's row of ``flows`` (n, months), or None."""
        return None if flows is None else flows[0]

    @cached_property
    def hours(self) -> float:
        """GPU-hours sold over the horizon."""
        return float(np.sum(self.sold_gpu_hours))

    @cached_property
    def never_negative(self) -> bool:
        """Whether cumulative project cash stays ≥ 0 throughout."""
        return np.count_nonzero(np.add.accumulate(self.cash.project_fcf[0]) < 0) == 0

    @cached_property
    def no_debt(self) -> bool:
        """Whether no debt is drawn."""
        return not float(np.sum(self.cash.debt.draws[0])) > 0

    def margin(self) -> str:
        """Why a margin is undefined."""
        revenue_usd = float(np.sum(self.cash.revenue[0]))
        return (
            "no revenue over the horizon"
            if not revenue_usd > 0
            else (f"revenue of ${revenue_usd:.3g} is too small to divide by")
        )

    def equity_moic(self) -> str:
        """Why the equity MOIC is undefined."""
        equity = self.cash.equity_fcf[0]
        equity_in_usd = -float(np.sum(equity[equity < 0]))
        return (
            "equity puts no cash in (debt funds everything)"
            if not equity_in_usd > 0
            else (f"equity puts in ${equity_in_usd:.3g}, too little to divide by")
        )


_NOTHING_TO_PAY_BACK = "cumulative project cash is never negative, so there is nothing to pay back"
_REASONS: dict[str, Callable[[_Case], str]] = {
    "tco_usd_per_gpu_hour": lambda c: (
        "no GPU-hours are sold over the horizon, so there is nothing to spread the costs over"
        if not c.hours > 0
        else f"{c.hours:.3g} sold GPU-hours are too few to spread the costs over"
    ),
    "breakeven_usd_per_gpu_hour": lambda c: (
        "no GPU-hours are sold, so no price recovers the costs"
        if not c.hours > 0
        else f"project NPV stays negative at every price up to ${BREAKEVEN_MAX_USD_PER_GPU_HOUR:,.0f}/GPU-hour"
    ),
    "npv_usd": lambda c: "the discounted cash flows are not a finite number",
    "project_irr": lambda c: _irr_reason(c.cash.project_fcf[0], "project", c.first(c.cash.project_mid_month)),
    "equity_irr": lambda c: _irr_reason(c.cash.equity_fcf[0], "equity", c.first(c.cash.equity_mid_month)),
    "payback_months": lambda c: (
        _NOTHING_TO_PAY_BACK
        if c.never_negative
        else f"no payback within the {c.horizon_months}-month horizon (cumulative project cash ends it below 0)"
    ),
    "discounted_payback_months": lambda c: (
        _NOTHING_TO_PAY_BACK
        if c.never_negative
        else "the project does not earn the hurdle rate (NPV below 0), so its discounted cash never gets back to 0"
    ),
    "min_dscr": lambda c: (
        "no debt, so no DSCR" if c.no_debt else "no debt service falls due in any 12-month period of repayment"
    ),
    "ebitda_margin": _Case.margin,
    "gross_margin": _Case.margin,
    "llcr": lambda c: (
        "no debt is outstanding at the first repayment month"
        if c.no_debt
        else "the loan is repaid before the first full operating month, or its CFADS are not finite"
    ),
    "covenant_headroom": lambda c: (
        "no DSCR (see Min DSCR)"
        if c.kpis.get("min_dscr") is None or not math.isfinite(c.kpis["min_dscr"] or math.nan)
        else "the weakest year's DSCR is 0 or below, so no fall in CFADS is left before the breach"
    ),
    "equity_moic": _Case.equity_moic,
    "equity_mirr": lambda c: "equity puts no cash in, or gets none back, so there is nothing to compound or discount",
}
"""Why each KPI is undefined, by key; any other KPI is "not a finite number"."""


def undefined_kpi_warnings(
    kpis: dict[str, float | None], cash: finance.CashFlows, sold_gpu_hours: np.ndarray, horizon_months: int
) -> list[str]:
    """One sentence per KPI that is ``None`` or not finite, naming the KPI and saying why.

    ``cash`` holds one case (arrays of shape (1, months)); ``sold_gpu_hours`` is that case's (months,).
    """
    undefined = [key for key, value in kpis.items() if value is None or not math.isfinite(value)]
    if not undefined:
        return []  # nothing to explain: the reasons (IRR roots among them) are not worth finding
    case = _Case(kpis, cash, sold_gpu_hours, horizon_months)
    return [
        f"{KPI_LABELS.get(key, key)} undefined: {_REASONS[key](case) if key in _REASONS else 'not a finite number'}."
        for key in undefined
    ]


def breakeven_price(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    max_usd_per_gpu_hour: float = BREAKEVEN_MAX_USD_PER_GPU_HOUR,
    terms: SalesTerms | None = None,
) -> float:
    """Headline price at which project NPV at the hurdle rate is 0 [USD/GPU-h]; 0 if NPV at price 0 is already
    ≥ 0, nan if none up to the max. ``terms``: the failure model's and customers' effects (:class:`SalesTerms`).

    NPV (:func:`project_npv`) rises with price and, revenue being affine in it, is concave and piecewise linear (tax
    switches on): Newton steps from price 0 land on the root exactly (:meth:`_PriceCurve.root`).
    """
    return _price_curve(scenario, d, capex_usd, opex_fixed, terms).root(float(max_usd_per_gpu_hour))
