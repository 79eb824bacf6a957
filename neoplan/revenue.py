"""Timeline and contract book: when the cluster earns, what it sells and at what price.

Monthly grid, month ``t`` covers ``[t, t+1)``; month 0 starts at the purchase
order (time constants and the meaning of "year": :mod:`neoplan.timebase`).
Go-live falls inside a month; that month earns pro rata. Functions
broadcast: pass a price or utilization as an array of shape ``(n, 1)`` and
every schedule comes back with shape ``(n, months)`` (used by stress tests).

Contract book (per sold GPU-hour):

* sold hours = sellable GPU-hours × utilization (on-demand part ramped in
  linearly over ``ramp_months`` after go-live; reserved part from go-live);
* reserved share of sold hours pays the reserved price, fixed for
  ``reserved_term_months`` and renewed at the then-current declined price;
* the rest pays the on-demand price, which declines every month at the yearly
  ``price_decline_per_year`` (compounded);
* SLA credits are a share of gross revenue. Hot spares earn nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ScenarioError
from .scenario import Pricing, Timeline
from .timebase import DAYS_PER_MONTH, HOURS_PER_MONTH, MONTHS_PER_YEAR, WEEKS_PER_MONTH


@dataclass(frozen=True)
class Dates:
    """Key dates of the project [months from the purchase order, fractional]."""

    months: int
    delivery_month: float
    install_start_month: float
    go_live_month: float


def dates(timeline: Timeline) -> Dates:
    """Delivery after the lead time; go-live after integration, install and on-site burn-in."""
    delivery = float(timeline.delivery_lead_months)
    install_start = delivery + timeline.integration_burn_in_weeks / WEEKS_PER_MONTH
    go_live = (
        install_start + timeline.site_install_weeks / WEEKS_PER_MONTH + timeline.onsite_burn_in_days / DAYS_PER_MONTH
    )
    if go_live >= timeline.horizon_months:
        raise ScenarioError(
            f"timeline.horizon_months must be after go-live (month {go_live:.1f}), got {timeline.horizon_months}"
        )
    return Dates(timeline.horizon_months, delivery, install_start, go_live)


@dataclass(frozen=True)
class CaseDates:
    """Key dates of n cases [months from the purchase order]: columns (n, 1) that broadcast against months."""

    months: int
    delivery_month: np.ndarray
    install_start_month: np.ndarray
    go_live_month: np.ndarray


AnyDates = Dates | CaseDates
"""One case's dates or n cases' dates: every schedule here accepts either."""


def delayed(d: Dates, delay_months: np.ndarray) -> CaseDates:
    """Dates of n cases whose delivery slips by ``delay_months`` (n,) [months], as columns (n, 1).

    Everything after delivery (integration, install, burn-in, go-live) moves with it. A negative delay
    is an early delivery, down to month 0. Raises :class:`~neoplan.errors.ScenarioError` if a case would
    go live at or after the horizon.
    """
    delay = np.asarray(delay_months, dtype=float).reshape(-1, 1)
    if np.any(d.delivery_month + delay < 0):
        raise ScenarioError(
            f"delivery delay must be ≥ −{d.delivery_month:g} months (delivery cannot precede the order), "
            f"got {float(delay.min()):g}"
        )
    go_live = d.go_live_month + delay
    if np.any(go_live >= d.months):
        raise ScenarioError(
            f"delivery delay of {float(delay.max()):g} months moves go-live to month {float(go_live.max()):.1f}, "
            f"at or after the horizon (timeline.horizon_months = {d.months})"
        )
    return CaseDates(d.months, d.delivery_month + delay, d.install_start_month + delay, go_live)


def active_share(months: int, start_month: float | np.ndarray) -> np.ndarray:
    """Share of each month on or after ``start_month`` [fraction, 0–1]."""
    t = np.arange(months, dtype=float)
    return np.clip(t + 1.0 - start_month, 0.0, 1.0)


def years_since(months: int, start_month: float | np.ndarray) -> np.ndarray:
    """Years from ``start_month`` to the middle of each month, 0 before it [years]."""
    t = np.arange(months, dtype=float) + 0.5
    return np.maximum(t - start_month, 0.0) / MONTHS_PER_YEAR


def ramp(months: int, start_month: float | np.ndarray, ramp_months: int) -> np.ndarray:
    """Linear ramp 0 → 1 over ``ramp_months`` after ``start_month`` (month-average) [fraction]."""
    if ramp_months <= 0:
        return active_share(months, start_month)
    t = np.arange(months, dtype=float)
    # average over the month of clip((x - start)/ramp, 0, 1): integrate the piecewise-linear ramp exactly
    a = np.clip(t - start_month, 0.0, None)
    b = np.clip(t + 1.0 - start_month, 0.0, None)

    def integral(x: np.ndarray) -> np.ndarray:
        return np.where(x <= ramp_months, x**2 / (2 * ramp_months), x - ramp_months / 2)

    return integral(b) - integral(a)


@dataclass(frozen=True)
class RevenueSchedule:
    """Monthly sold hours, prices and revenue; arrays of shape ``(..., months)``."""

    reserved_gpu_hours: np.ndarray
    on_demand_gpu_hours: np.ndarray
    reserved_usd_per_gpu_hour: np.ndarray
    on_demand_usd_per_gpu_hour: np.ndarray
    gross_usd: np.ndarray
    sla_credits_usd: np.ndarray

    @property
    def sold_gpu_hours(self) -> np.ndarray:
        """GPU-hours sold per month [GPU-h]."""
        return self.reserved_gpu_hours + self.on_demand_gpu_hours

    @property
    def revenue_usd(self) -> np.ndarray:
        """Revenue net of SLA credits per month [USD]."""
        return self.gross_usd - self.sla_credits_usd


def revenue_schedule(
    pricing: Pricing,
    sellable_gpus: int,
    d: AnyDates,
    *,
    usd_per_gpu_hour: np.ndarray | float | None = None,
    utilization: np.ndarray | float | None = None,
    price_decline_per_year: np.ndarray | float | None = None,
) -> RevenueSchedule:
    """Monthly contract book for ``sellable_gpus`` GPUs.

    ``usd_per_gpu_hour``, ``utilization`` and ``price_decline_per_year`` override
    the scenario's values and may be arrays of shape ``(n, 1)`` to evaluate n cases at once;
    ``d`` may hold per-case dates (:class:`CaseDates`).
    """
    p0 = np.asarray(pricing.usd_per_gpu_hour if usd_per_gpu_hour is None else usd_per_gpu_hour, dtype=float)
    util = np.asarray(pricing.utilization if utilization is None else utilization, dtype=float)
    decline = np.asarray(
        pricing.price_decline_per_year if price_decline_per_year is None else price_decline_per_year, dtype=float
    )
    months, go_live = d.months, d.go_live_month
    capacity = sellable_gpus * HOURS_PER_MONTH
    live = active_share(months, go_live)
    sold_reserved = capacity * util * pricing.reserved_share * live
    sold_on_demand = capacity * util * (1.0 - pricing.reserved_share) * ramp(months, go_live, pricing.ramp_months)

    years = years_since(months, go_live)
    on_demand_price = p0 * pricing.on_demand_price_multiple * (1.0 - decline) ** years
    reserved0 = (
        p0 * pricing.reserved_price_multiple
        if pricing.reserved_usd_per_gpu_hour is None
        else np.full_like(p0, pricing.reserved_usd_per_gpu_hour)
    )
    since = np.maximum(np.arange(months, dtype=float) + 0.5 - go_live, 0.0)
    years_at_renewal = np.floor(since / pricing.reserved_term_months) * pricing.reserved_term_months / MONTHS_PER_YEAR
    reserved_price = reserved0 * (1.0 - decline) ** years_at_renewal

    sold_reserved, sold_on_demand, on_demand_price, reserved_price = np.broadcast_arrays(
        sold_reserved, sold_on_demand, on_demand_price, reserved_price
    )
    gross = sold_reserved * reserved_price + sold_on_demand * on_demand_price
    return RevenueSchedule(
        reserved_gpu_hours=sold_reserved,
        on_demand_gpu_hours=sold_on_demand,
        reserved_usd_per_gpu_hour=reserved_price,
        on_demand_usd_per_gpu_hour=on_demand_price,
        gross_usd=gross,
        sla_credits_usd=gross * pricing.sla_credit_share,
    )
