"""Timeline and contract book: when the cluster earns, what it sells and at what price.

Monthly grid, month ``t`` covers ``[t, t+1)``; month 0 starts at the purchase
order (time constants and the meaning of "year": :mod:`neoplan.timebase`).
Go-live falls inside a month; that month earns pro rata. Functions
broadcast: pass a price or utilization as an array of shape ``(n, 1)`` and
every schedule comes back with shape ``(n, months)`` (used by stress tests).

Contract book (per GPU-hour of the sellable GPUs):

* **utilization** is the share of *all* sellable GPU-hours customers use at
  steady state, reserved capacity included;
* **reserved (take-or-pay)**: ``reserved_share`` of the GPU-hours is paid for
  from go-live whether used or not, so billed hours never fall below it; the
  first contracts pay the reserved price (multiple × headline, or the pinned
  price) for ``reserved_term_months``, and each renewal re-prices to the
  then-market price: the headline price along the price path to that date × the
  reserved multiple (the multiple: :func:`neoplan.economics.market.reserved_multiple`);
* **on demand** sells the rest of the use, ``max(utilization − reserved_share, 0)``,
  ramped in linearly over ``ramp_months`` after go-live, at the headline price
  × the on-demand multiple along the price path (:class:`neoplan.economics.market.PricePath`:
  a flat ``price_decline_per_year`` compounded, or the generation's curve);
* SLA credits are a share of gross revenue. Hot spares earn nothing.

End of life (``timeline.end_of_life``), when the horizon runs past go-live +
``useful_life_months``: ``shutdown`` ends revenue (and, in :mod:`neoplan.economics.opex`,
opex) at that date; ``refresh`` puts a new cluster in service at that date, a
repeat of the plan: its prices start again at the headline price (a new cluster
sells at a new cluster's price; the decline is a generation's ageing) and its
reserved contracts are signed afresh at the market, with no new ramp. It is
ordered one life after the first (:func:`neoplan.finance.engine.refresh_payments`), so
its delivery, install and burn-in overlap the old cluster's last months, at no
extra opex.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

import numpy as np

from ..errors import ScenarioError
from ..inputs.business import Pricing, Timeline
from ..timebase import DAYS_PER_MONTH, HOURS_PER_MONTH, MONTHS_PER_YEAR, WEEKS_PER_MONTH
from .market import PricePath


class _Shares:
    """Month-by-month shares of a set of dates that both revenue and opex read, each computed on first use and kept
    on the (frozen) dates object, so it cannot go stale; arrays read only, of the dates' shape × months."""

    months: int
    delivery_month: Any
    install_start_month: Any
    go_live_month: Any
    life_months: Any
    end_of_life: str

    @cached_property
    def service_share(self) -> np.ndarray:
        """:func:`in_service` [fraction]."""
        return _read_only(in_service(self.months, cast("AnyDates", self)))

    @cached_property
    def delivery_share(self) -> np.ndarray:
        """Share of each month in service from delivery on [fraction]."""
        return _read_only(active_share(self.months, self.delivery_month) * self.service_share)

    @cached_property
    def install_share(self) -> np.ndarray:
        """Share of each month in service from the start of site installation on [fraction]."""
        return _read_only(active_share(self.months, self.install_start_month) * self.service_share)

    @cached_property
    def live_share(self) -> np.ndarray:
        """Share of each month in service from go-live on [fraction]."""
        return _read_only(active_share(self.months, self.go_live_month) * self.service_share)

    def ramped_share(self, ramp_months: int) -> np.ndarray:
        """:func:`ramp` from go-live, in service [fraction]."""
        return ramp(self.months, self.go_live_month, ramp_months) * self.service_share

    @cached_property
    def cluster_months(self) -> np.ndarray:
        """:func:`months_into_cluster`."""
        return _read_only(months_into_cluster(self.months, cast("AnyDates", self)))


def _read_only(a: np.ndarray) -> np.ndarray:
    """``a``, flagged read only (it is shared)."""
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class Dates(_Shares):
    """Key dates of the project [months from the purchase order, fractional]."""

    months: int
    delivery_month: float
    install_start_month: float
    go_live_month: float
    life_months: float = math.inf
    """Useful life from go-live [months]: the end of service (shutdown) or of each cluster (refresh)."""
    end_of_life: str = "shutdown"
    """``shutdown`` or ``refresh`` (see the module docstring)."""


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
    return Dates(
        timeline.horizon_months,
        delivery,
        install_start,
        go_live,
        float(timeline.useful_life_months),
        timeline.end_of_life,
    )


@dataclass(frozen=True)
class CaseDates(_Shares):
    """Key dates of n cases [months from the purchase order]: columns (n, 1) that broadcast against months."""

    months: int
    delivery_month: np.ndarray
    install_start_month: np.ndarray
    go_live_month: np.ndarray
    life_months: float | np.ndarray = math.inf
    """Useful life from go-live [months], a scalar or a column (n, 1)."""
    end_of_life: str = "shutdown"


AnyDates = Dates | CaseDates
"""One case's dates or n cases' dates: every schedule here accepts either."""


def delayed(d: Dates, delay_months: np.ndarray, life_months: np.ndarray | None = None) -> CaseDates:
    """Dates of n cases whose delivery slips by ``delay_months`` (n,) [months], as columns (n, 1).

    Everything after delivery (integration, install, burn-in, go-live) moves with it. ``life_months`` (n,)
    [months] replaces the useful life of each case (default: ``d``'s). A negative delay
    is an early delivery, down to month 0. Raises :class:`~neoplan.errors.ScenarioError` if a case would
    go live at or after the horizon.
    """
    delay = np.asarray(delay_months, dtype=float).reshape(-1, 1)
    least, most = (float(delay.min()), float(delay.max())) if delay.size else (0.0, 0.0)  # no cases: no check
    if d.delivery_month + least < 0:
        raise ScenarioError(
            f"delivery delay must be ≥ −{d.delivery_month:g} months (delivery cannot precede the order), got {least:g}"
        )
    if d.go_live_month + most >= d.months:
        raise ScenarioError(
            f"delivery delay of {most:g} months moves go-live to month {d.go_live_month + most:.1f}, "
            f"at or after the horizon (timeline.horizon_months = {d.months})"
        )
    life = d.life_months if life_months is None else np.asarray(life_months, dtype=float).reshape(-1, 1)
    return CaseDates(
        d.months, d.delivery_month + delay, d.install_start_month + delay, d.go_live_month + delay, life, d.end_of_life
    )


def _middles(months: int) -> np.ndarray:
    """The middle of each month t = 0 … months − 1: t + 0.5 [month]."""
    return np.arange(months) + 0.5


def active_share(months: int, start_month: float | np.ndarray) -> np.ndarray:
    """Share of each month on or after ``start_month`` [fraction, 0–1]."""
    return np.minimum(np.maximum(np.arange(1, months + 1) - start_month, 0.0), 1.0)  # month t ends at t + 1


def years_since(months: int, start_month: float | np.ndarray) -> np.ndarray:
    """Years from ``start_month`` to the middle of each month, 0 before it [years]."""
    return np.maximum(_middles(months) - start_month, 0.0) / MONTHS_PER_YEAR


def ramp(months: int, start_month: float | np.ndarray, ramp_months: int) -> np.ndarray:
    """Linear ramp 0 → 1 over ``ramp_months`` after ``start_month`` (month-average) [fraction].

    A ramp of 0 months is a step at ``start_month``: :func:`active_share` (the formula below would divide by 0).
    """
    if ramp_months <= 0:
        return active_share(months, start_month)
    # average over the month of clip(x/ramp, 0, 1): integrate the piecewise-linear ramp exactly, at the edges
    x = np.maximum(np.arange(months + 1) - start_month, 0.0)  # months elapsed at the month edges 0 … months
    integral = np.where(x <= ramp_months, x**2 / (2 * ramp_months), x - ramp_months / 2)
    return integral[..., 1:] - integral[..., :-1]


def end_of_life_month(d: AnyDates) -> float | np.ndarray:
    """When the first cluster's useful life ends: go-live + life [month from the purchase order]."""
    return d.go_live_month + d.life_months


def in_service(months: int, d: AnyDates) -> np.ndarray:
    """Share of each month before the end of service [fraction, 0–1].

    1 throughout with ``refresh``; with ``shutdown`` 0 from the end of the useful life on (pro rata in its month).
    """
    if d.end_of_life == "refresh":
        return np.ones(np.broadcast_shapes(np.shape(d.go_live_month), (months,)))
    return 1.0 - active_share(months, end_of_life_month(d))


def cluster_index(months: int, d: AnyDates) -> np.ndarray:
    """Which cluster is in service in the middle of each month: 0 = the first, k = the k-th refresh [int]."""
    since = _since_go_live(months, d)
    if d.end_of_life != "refresh":
        return np.zeros(np.shape(since), dtype=int)
    return np.floor(since / d.life_months).astype(int)


def months_into_cluster(months: int, d: AnyDates) -> np.ndarray:
    """Months from the go-live of the cluster in service to the middle of each month, 0 before go-live [months]."""
    since = _since_go_live(months, d)
    if d.end_of_life != "refresh":
        return since
    return since - cluster_index(months, d) * d.life_months


def _since_go_live(months: int, d: AnyDates) -> np.ndarray:
    """Months from go-live to the middle of each month, 0 before go-live [months]."""
    return np.maximum(_middles(months) - d.go_live_month, 0.0)


def refresh_go_live_months(d: Dates) -> list[float]:
    """Go-live months of the refresh clusters inside the horizon (empty with ``shutdown``) [months]."""
    if d.end_of_life != "refresh" or not math.isfinite(d.life_months):
        return []
    count = math.ceil((d.months - d.go_live_month) / d.life_months) - 1
    return [d.go_live_month + k * d.life_months for k in range(1, max(count, 0) + 1)]


@dataclass(frozen=True)
class RevenueSchedule:
    """Monthly sold hours, prices and revenue; arrays of shape ``(..., months)``."""

    reserved_gpu_hours: np.ndarray
    on_demand_gpu_hours: np.ndarray
    reserved_usd_per_gpu_hour: np.ndarray
    on_demand_usd_per_gpu_hour: np.ndarray
    gross_usd: np.ndarray
    sla_credits_usd: np.ndarray
    used_gpu_hours: np.ndarray
    """GPU-hours customers use [GPU-h]: below the billed hours when reserved capacity sits idle (take-or-pay)."""
    customer_loss_usd: np.ndarray | float = 0.0
    """Revenue lost to churn after renewals and to a failed acceptance test [USD]
    (:mod:`neoplan.economics.customers`)."""

    @property
    def sold_gpu_hours(self) -> np.ndarray:
        """GPU-hours billed per month: reserved (take-or-pay) plus on-demand [GPU-h]."""
        return self.reserved_gpu_hours + self.on_demand_gpu_hours

    @property
    def revenue_usd(self) -> np.ndarray:
        """Revenue net of SLA credits and customer losses per month [USD]."""
        return self.gross_usd - self.sla_credits_usd - self.customer_loss_usd


def _flat_path(pricing: Pricing, decline: np.ndarray | float | None) -> PricePath:
    """A flat price path at ``decline`` [fraction per year], else the scenario's flat decline."""
    rate = pricing.price_decline_per_year if decline is None else decline
    if rate is None:
        raise ValueError("pricing.price_decline_per_year is empty (the generation's curve): pass a price_path")
    return PricePath.flat(rate)


def revenue_schedule(
    pricing: Pricing,
    sellable_gpus: int,
    d: AnyDates,
    *,
    usd_per_gpu_hour: np.ndarray | float | None = None,
    utilization: np.ndarray | float | None = None,
    price_decline_per_year: np.ndarray | float | None = None,
    sla_credit_share: np.ndarray | float | None = None,
    price_path: PricePath | None = None,
    reserved_price_multiple: np.ndarray | float | None = None,
    on_demand_price_multiple: np.ndarray | float | None = None,
    customer_loss_share: np.ndarray | float = 0.0,
    reserved_loss_share: np.ndarray | float = 0.0,
) -> RevenueSchedule:
    """Monthly contract book for ``sellable_gpus`` GPUs.

    ``usd_per_gpu_hour``, ``utilization``, ``reserved_price_multiple`` and ``on_demand_price_multiple`` override
    the scenario's values and may be arrays of shape ``(n, 1)`` to evaluate n cases at once; ``d`` may hold
    per-case dates (:class:`CaseDates`). The price path is ``price_path``, else a flat ``price_decline_per_year``
    (an override, else the scenario's; the caller passes a path when the scenario follows its generation's curve).
    ``pricing.reserved_price_multiple`` empty needs ``reserved_price_multiple`` (the platform's, from
    :func:`neoplan.economics.market.reserved_multiple`). ``sla_credit_share`` [fraction of gross revenue] overrides
    ``pricing.sla_credit_share``, a float or one share per case and month (n, months); ``customer_loss_share``
    [fraction of gross revenue] and ``reserved_loss_share`` [fraction of the reserved book's gross revenue] are
    lost to a failed acceptance test and to churn at renewals (:mod:`neoplan.economics.customers`), likewise.
    """
    p0 = np.asarray(pricing.usd_per_gpu_hour if usd_per_gpu_hour is None else usd_per_gpu_hour, dtype=float)
    util = np.asarray(pricing.utilization if utilization is None else utilization, dtype=float)
    path = price_path if price_path is not None else _flat_path(pricing, price_decline_per_year)
    res_multiple = pricing.reserved_price_multiple if reserved_price_multiple is None else reserved_price_multiple
    if res_multiple is None:
        raise ValueError("pricing.reserved_price_multiple is empty: pass the platform's reserved_price_multiple")
    od_multiple = pricing.on_demand_price_multiple if on_demand_price_multiple is None else on_demand_price_multiple
    months, reserved = d.months, pricing.reserved_share
    capacity = sellable_gpus * HOURS_PER_MONTH
    live = d.live_share  # from go-live, in service
    sold_reserved = capacity * reserved * live  # take-or-pay: billed whether used or not
    ramped = d.ramped_share(pricing.ramp_months)
    sold_on_demand = capacity * np.maximum(util - reserved, 0.0) * ramped  # on demand sells the rest of the use
    used = capacity * np.minimum(util, reserved) * live + sold_on_demand

    since = d.cluster_months
    on_demand_price = p0 * od_multiple * path.index(since / MONTHS_PER_YEAR)
    renewed = np.floor(since / pricing.reserved_term_months) * pricing.reserved_term_months
    reserved_price = p0 * np.asarray(res_multiple, dtype=float) * path.index(renewed / MONTHS_PER_YEAR)
    if pricing.reserved_usd_per_gpu_hour is not None:  # pinned for the first contracts; renewals at the market
        first_term = (cluster_index(months, d) == 0) & (since < pricing.reserved_term_months)
        reserved_price = np.where(first_term, pricing.reserved_usd_per_gpu_hour, reserved_price)

    schedules = (sold_reserved, sold_on_demand, on_demand_price, reserved_price, used)
    if len({a.shape for a in schedules}) > 1:  # e.g. one case's dates and n prices
        sold_reserved, sold_on_demand, on_demand_price, reserved_price, used = np.broadcast_arrays(*schedules)
    reserved_gross = sold_reserved * reserved_price
    gross = reserved_gross + sold_on_demand * on_demand_price
    return RevenueSchedule(
        reserved_gpu_hours=sold_reserved,
        on_demand_gpu_hours=sold_on_demand,
        reserved_usd_per_gpu_hour=reserved_price,
        on_demand_usd_per_gpu_hour=on_demand_price,
        gross_usd=gross,
        sla_credits_usd=gross * (pricing.sla_credit_share if sla_credit_share is None else sla_credit_share),
        used_gpu_hours=used,
        customer_loss_usd=gross * customer_loss_share + reserved_gross * reserved_loss_share,
    )


def sales_schedule(
    pricing: Pricing,
    sellable_gpus: int,
    d: AnyDates,
    *,
    usd_per_gpu_hour: np.ndarray | float | None = None,
    utilization: np.ndarray | float | None = None,
    price_decline_per_year: np.ndarray | float | None = None,
    sla_credit_share: np.ndarray | float | None = None,
    token_share: np.ndarray | float = 0.0,
    token_usd_per_gpu_hour: np.ndarray | float = 0.0,
    token_price_decline_per_year: np.ndarray | float = 0.0,
    price_path: PricePath | None = None,
    reserved_price_multiple: np.ndarray | float | None = None,
    on_demand_price_multiple: np.ndarray | float | None = None,
    customer_loss_share: np.ndarray | float = 0.0,
    reserved_loss_share: np.ndarray | float = 0.0,
) -> RevenueSchedule:
    """The contract book of GPU-hours rented and GPU-hours served as tokens, ``token_share`` of them tokens.

    Both sides sell through one book: the same utilization, take-or-pay share, ramp, renewals and credits. A
    GPU-hour of serving is priced at its GPU-hour equivalent, ``token_usd_per_gpu_hour`` [USD/GPU-h] (tokens per
    GPU-hour × the price per token, :mod:`neoplan.economics.inference`), declining at ``token_price_decline_per_year``;
    a pinned reserved GPU-hour price does not apply to it. Hours are the same on both sides, so the schedule is the
    ``token_share``-weighted sum of the two books (prices are then GPU-hour equivalents). With no token share it is
    :func:`revenue_schedule` itself. Arguments broadcast as there (``(n, 1)`` columns for n cases). The GPU-hour
    book runs on ``price_path`` (else the flat ``price_decline_per_year``); both books take the on-demand and
    reserved multiples and the customer losses (the same customers, tier and contracts).
    """
    contracts: dict[str, Any] = {
        "reserved_price_multiple": reserved_price_multiple,
        "customer_loss_share": customer_loss_share,
        "reserved_loss_share": reserved_loss_share,
    }
    hours = revenue_schedule(
        pricing,
        sellable_gpus,
        d,
        usd_per_gpu_hour=usd_per_gpu_hour,
        utilization=utilization,
        price_decline_per_year=price_decline_per_year,
        sla_credit_share=sla_credit_share,
        price_path=price_path,
        on_demand_price_multiple=on_demand_price_multiple,
        **contracts,
    )
    share = np.asarray(token_share, dtype=float)
    if not np.any(share > 0):
        return hours
    tokens = revenue_schedule(
        pricing.model_copy(update={"reserved_usd_per_gpu_hour": None}),
        sellable_gpus,
        d,
        usd_per_gpu_hour=token_usd_per_gpu_hour,
        utilization=utilization,
        price_decline_per_year=token_price_decline_per_year,
        sla_credit_share=sla_credit_share,
        on_demand_price_multiple=on_demand_price_multiple,
        **contracts,
    )
    kept = 1.0 - share
    return RevenueSchedule(
        *(kept * a + share * b for a, b in zip(schedule_arrays(hours), schedule_arrays(tokens), strict=True))
    )


def schedule_arrays(schedule: RevenueSchedule) -> tuple[np.ndarray, ...]:
    """The arrays of ``schedule`` in field order."""
    return (
        schedule.reserved_gpu_hours,
        schedule.on_demand_gpu_hours,
        schedule.reserved_usd_per_gpu_hour,
        schedule.on_demand_usd_per_gpu_hour,
        schedule.gross_usd,
        schedule.sla_credits_usd,
        schedule.used_gpu_hours,
        np.broadcast_to(schedule.customer_loss_usd, np.shape(schedule.gross_usd)),
    )
