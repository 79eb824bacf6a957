"""Returns of one design: levelised cost (TCO), project NPV as a function of price, break-even price,
and why a KPI is undefined.

All at the scenario's hurdle rate; months count from the purchase order (see :mod:`neoplan.timebase`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from . import finance, irr, revenue
from .engine import capex_payments, refresh_payments
from .scenario import Scenario

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


def _capital_flows(
    scenario: Scenario, d: revenue.Dates, capex_usd: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(capex paid (months,), depreciation, residual proceeds, taxable gain on sale (1, months)) [USD].

    As the engine books them: the first cluster's payments, refresh clusters' when ``end_of_life`` is refresh,
    and each cluster sold at the end of its useful life or at the horizon.
    """
    t = scenario.timeline
    return _capital_flows_of(
        d, capex_usd, t.deposit_share, t.refresh_capex_multiple, t.end_of_life, t.residual_value_share
    )


@lru_cache(maxsize=8)
def _capital_flows_of(
    d: revenue.Dates,
    capex_usd: float,
    deposit_share: float,
    refresh_capex_multiple: float,
    end_of_life: str,
    residual_value_share: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_capital_flows` from the fields it reads, cached (the TCO and the break-even price both need them);
    the arrays are read-only."""
    capex = np.array([capex_usd])
    refresh = capex * refresh_capex_multiple if end_of_life == "refresh" else None
    pay = capex_payments(capex_usd, d, deposit_share) + refresh_payments(
        capex, d, deposit_share, refresh_capex_multiple
    )[0]
    dep = finance.depreciation(capex, d.months, d.go_live_month, d.life_months, refresh_capex_usd=refresh)
    residual, gain = finance.residual_flows(
        capex, dep, d.months, residual_value_share, end_of_life_month=revenue.end_of_life_month(d),
        life_months=d.life_months, refresh_capex_usd=refresh,
    )
    for a in (pay, dep, residual, gain):
        a.flags.writeable = False
    return pay, dep, residual, gain


def _tco(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    sold_gpu_hours: np.ndarray,
) -> dict[str, float]:
    """Levelised cost per sold GPU-hour by TCO category: PV(costs) / PV(sold hours) at the hurdle rate."""
    rate = scenario.financing.hurdle_rate
    hours = float(finance.npv(rate, sold_gpu_hours))
    if hours <= 0:
        return dict.fromkeys(TCO_CATEGORIES, math.nan)
    paid, _, residual, _ = _capital_flows(scenario, d, capex_usd)
    pay = paid - residual[0]
    with np.errstate(over="ignore"):  # a tiny utilization (1e-320) sells too few hours: the TCO is infinite
        present = finance.npv(rate, np.stack([pay, *opex_fixed.values()])) / hours  # one discounting for all
    out = dict.fromkeys(TCO_CATEGORIES, 0.0)
    out["capital"] = float(present[0])
    for category, value in zip(opex_fixed, present[1:], strict=True):
        out[_TCO_OF_OPEX[category]] += float(value)
    return out


def project_npv(
    scenario: Scenario, d: revenue.Dates, capex_usd: float, opex_fixed: dict[str, np.ndarray], prices: np.ndarray
) -> np.ndarray:
    """Project NPV at the hurdle rate for each headline price in ``prices`` (1-D) [USD]; financing plays no part."""
    rev = revenue.revenue_schedule(scenario.pricing, scenario.cluster.gpus, d, usd_per_gpu_hour=prices[:, None])
    ebitda = rev.revenue_usd * (1.0 - scenario.opex.sga_rate) - sum(opex_fixed.values())
    pay, dep, residual, gain = _capital_flows(scenario, d, capex_usd)
    _, fcf = finance.project_flows(ebitda, pay, dep, residual, gain, scenario.financing.tax_rate)
    return finance.npv(scenario.financing.hurdle_rate, fcf)


def _project_npv_curve(
    scenario: Scenario, d: revenue.Dates, capex_usd: float, opex_fixed: dict[str, np.ndarray]
) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`project_npv` as a function of the prices alone, with everything price-independent built once.

    Revenue is affine in the headline price (every contract price is proportional to it, or pinned), so
    it is tabulated at two prices and interpolated; a third price checks that, else the full model runs.
    """
    probe = np.array([0.0, 1.0, 2.0])
    rev = revenue.revenue_schedule(scenario.pricing, scenario.cluster.gpus, d, usd_per_gpu_hour=probe[:, None])
    at_zero, per_usd = rev.revenue_usd[0], rev.revenue_usd[1] - rev.revenue_usd[0]
    off_line = np.abs(rev.revenue_usd[2] - (at_zero + 2.0 * per_usd)).max(initial=0.0)
    if off_line > 1e-9 * np.abs(rev.revenue_usd[2]).max(initial=0.0) + 1e-6:
        return lambda prices: project_npv(scenario, d, capex_usd, opex_fixed, prices)
    keep = 1.0 - scenario.opex.sga_rate
    ebitda_at_zero, ebitda_per_usd = at_zero * keep - sum(opex_fixed.values()), per_usd * keep
    pay, dep, residual, gain = _capital_flows(scenario, d, capex_usd)
    taxable_at_zero = ebitda_at_zero - dep[0] + gain[0]
    rate, tax_rate = scenario.financing.hurdle_rate, scenario.financing.tax_rate
    # project free cash flow = EBITDA − capex − tax + residual, and only the tax is not linear in price
    npv_at_zero = float(finance.npv(rate, ebitda_at_zero - pay + residual[0]))
    npv_per_usd = float(finance.npv(rate, ebitda_per_usd))

    def npv_at(prices: np.ndarray) -> np.ndarray:
        tax = finance.tax_with_loss_carry_forward(taxable_at_zero + prices[:, None] * ebitda_per_usd, tax_rate)
        return npv_at_zero + prices * npv_per_usd - finance.npv(rate, tax)

    return npv_at


KPI_LABELS = {
    "tco_usd_per_gpu_hour": "TCO",
    "breakeven_usd_per_gpu_hour": "Break-even price",
    "npv_usd": "NPV",
    "project_irr": "Project IRR",
    "equity_irr": "Equity IRR",
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


def _irr_reason(flows: np.ndarray, whose: str) -> str:
    """Why the IRR of monthly ``flows`` is undefined (see :func:`neoplan.irr.irr_annual` for the root it looks for)."""
    if not (flows > 0).any():
        return f"{whose} cash flows never turn positive"
    if not (flows < 0).any():
        return f"{whose} cash flows are never negative, so nothing is invested to earn a return on"
    roots = irr.irr_candidates_annual(flows)
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


def undefined_kpi_warnings(
    kpis: dict[str, float | None], cash: finance.CashFlows, sold_gpu_hours: np.ndarray, horizon_months: int
) -> list[str]:
    """One sentence per KPI that is ``None`` or not finite, naming the KPI and saying why.

    ``cash`` holds one case (arrays of shape (1, months)); ``sold_gpu_hours`` is that case's (months,).
    """
    if all(value is not None and math.isfinite(value) for value in kpis.values()):
        return []  # nothing to explain: the reasons (IRR roots among them) are not worth finding
    project, equity = cash.project_fcf[0], cash.equity_fcf[0]

    def hours() -> float:
        return float(np.sum(sold_gpu_hours))

    def margin() -> str:
        revenue_usd = float(np.sum(cash.revenue[0]))
        return "no revenue over the horizon" if not revenue_usd > 0 else (
            f"revenue of ${revenue_usd:.3g} is too small to divide by"
        )

    def never_negative() -> bool:
        return not (np.cumsum(project) < 0).any()

    def no_debt() -> bool:
        return not float(np.sum(cash.debt.draws[0])) > 0

    def equity_moic() -> str:
        equity_in_usd = -float(np.sum(equity[equity < 0]))
        return "equity puts no cash in (debt funds everything)" if not equity_in_usd > 0 else (
            f"equity puts in ${equity_in_usd:.3g}, too little to divide by"
        )

    nothing_to_pay_back = "cumulative project cash is never negative, so there is nothing to pay back"
    reasons: dict[str, Callable[[], str]] = {  # built only for the KPIs that are undefined
        "tco_usd_per_gpu_hour": lambda: "no GPU-hours are sold over the horizon, so there is nothing to spread the "
        "costs over" if not hours() > 0 else f"{hours():.3g} sold GPU-hours are too few to spread the costs over",
        "breakeven_usd_per_gpu_hour": lambda: "no GPU-hours are sold, so no price recovers the costs"
        if not hours() > 0
        else f"project NPV stays negative at every price up to ${BREAKEVEN_MAX_USD_PER_GPU_HOUR:,.0f}/GPU-hour",
        "npv_usd": lambda: "the discounted cash flows are not a finite number",
        "payback_months": lambda: nothing_to_pay_back
        if never_negative()
        else f"no payback within the {horizon_months}-month horizon (cumulative project cash ends it below 0)",
        "discounted_payback_months": lambda: nothing_to_pay_back
        if never_negative()
        else "the project does not earn the hurdle rate (NPV below 0), so its discounted cash never gets back to 0",
        "min_dscr": lambda: "no debt, so no DSCR"
        if no_debt()
        else "no debt service falls due in any 12-month period of operation",
        "ebitda_margin": margin,
        "gross_margin": margin,
        "llcr": lambda: "no debt is outstanding at the first full operating month"
        if no_debt()
        else "the loan is repaid before the first full operating month, or its CFADS are not finite",
        "covenant_headroom": lambda: "no DSCR (see Min DSCR)"
        if kpis.get("min_dscr") is None or not math.isfinite(kpis["min_dscr"] or math.nan)
        else "the weakest year's DSCR is 0 or below, so no fall in CFADS is left before the breach",
        "equity_moic": equity_moic,
    }
    irr_flows = {"project_irr": (project, "project"), "equity_irr": (equity, "equity")}  # root search only if asked
    out = []
    for key, value in kpis.items():
        if value is None or not math.isfinite(value):
            label = KPI_LABELS.get(key, key)
            if key in irr_flows:
                reason = _irr_reason(*irr_flows[key])
            else:
                reason = reasons[key]() if key in reasons else "not a finite number"
            out.append(f"{label} undefined: {reason}.")
    return out


@lru_cache(maxsize=8)
def _price_grid(max_usd_per_gpu_hour: float, points: int) -> np.ndarray:
    """0 and ``points`` prices spaced evenly in log from 0.01 to the max: the first search grid [USD/GPU-h]."""
    grid = np.concatenate([[0.0], np.geomspace(0.01, max_usd_per_gpu_hour, points)])
    grid.flags.writeable = False
    return grid


def breakeven_price(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    max_usd_per_gpu_hour: float = BREAKEVEN_MAX_USD_PER_GPU_HOUR,
    points: int = 48,
    rounds: int = 3,
) -> float:
    """Headline price at which project NPV at the hurdle rate is 0 [USD/GPU-h]; nan if none up to the max.

    NPV rises with price and is piecewise linear (tax switches on), so a vectorised grid is zoomed in on
    the sign change up to ``rounds`` times; the root is interpolated linearly inside the bracket and
    returned as soon as NPV there is zero to rounding (no kink inside the bracket).
    """
    grid = _price_grid(float(max_usd_per_gpu_hour), points)
    npv_at = _project_npv_curve(scenario, d, capex_usd, opex_fixed)
    values = npv_at(grid)
    for _ in range(rounds):
        if values[0] >= 0:
            return float(grid[0])
        above = np.nonzero(values >= 0)[0]
        if above.size == 0:
            return math.nan
        i = int(above[0])
        lo, hi, f_lo, f_hi = grid[i - 1], grid[i], values[i - 1], values[i]
        root = lo - f_lo * (hi - lo) / (f_hi - f_lo)
        grid = np.linspace(lo, hi, points)
        values = npv_at(np.append(grid, root))
        if abs(values[-1]) <= 1e-9 * (abs(f_lo) + abs(f_hi)):
            break
        values = values[:-1]
    return float(root)
