"""Timeline and contract book: when the cluster earns, what it sells and at what price.

Monthly grid, month ``t`` covers ``[t, t+1)``; month 0 starts at the purchase
order (time constants and the meaning of "year": :mod:`neoplan.timebase`).
Go-live falls inside a month; that month earns pro rata. Functions
broadcast: pass a price or utilization as an array of shape ``(n, 1)`` and
every schedule comes back with shape ``(n, months)`` (used by stress tests).

Contract book (per GPU-hour of the sellable GPUs; the book itself, shorthand or ``pricing.contracts``:
:mod:`neoplan.economics.contracts`):

* **utilization** is the share of the sellable GPU-hours customers use at steady state: the sum of the book's shares
  (``pricing.steady_utilization``), or the shorthand's ``pricing.utilization``; a stress case moves it;
* **committed** (take-or-pay, reserved): each contract's share of the GPU-hours is billed from its start (go-live +
  ``start_month``) whether used or not; its first term pays its price (its term's multiple × the headline along the
  price path to its start, or its own pinned price), and each renewal re-prices to the then-market price: the
  headline price along the price path to that date × its multiple. A take-or-pay contract may be prepaid:
  ``prepayment_share`` of its first term's value arrives in the delivery month (it funds the hardware) and its bills
  are that much smaller for the first term; revenue and tax follow the hours as earned;
* **spot** contracts sell their share of the use above the committed share, **on demand** the rest,
  ``max(utilization − committed − spot, 0)``, both ramped in linearly over ``ramp_months`` after their start, at the
  headline price × the on-demand multiple (× the spot multiple for spot) along the price path
  (:class:`neoplan.economics.market.PricePath`: a flat ``price_decline_per_year`` compounded, or the generation's
  curve with the next generation's launch step);
* **idle hours** (sellable hours no contract bills, and the hot spares' and held-back trays' from go-live) sell at
  spot for ``pricing.spot_share_of_idle`` of them (:func:`sales_schedule`); they are used hours (power follows them);
* SLA credits are a share of gross revenue; churn takes a share of a committed contract's revenue once it has
  renewed, a failed acceptance test a share of all of it (:mod:`neoplan.economics.customers`).

End of life (``timeline.end_of_life``), when the horizon runs past go-live +
``useful_life_months``: ``shutdown`` ends revenue (and, in :mod:`neoplan.economics.opex`,
opex) at that date; ``refresh`` puts a new cluster in service at that date, a
repeat of the plan: its prices start again at the headline price (a new cluster
sells at a new cluster's price; the decline is a generation's ageing) and its
reserved contracts are signed afresh at the market, with no new ramp. It is
ordered one life after the first (:func:`neoplan.finance.engine.refresh_payments`), so
its delivery, install and burn-in overlap the old cluster's last months, at no
extra opex. A contract's renewals and its churn follow the months since its own start; its pinned first-term price,
its prepayment and the contracted revenue lenders count are the first cluster's only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import Any, cast

import numpy as np

from ..errors import ScenarioError
from ..inputs.business import Pricing, Timeline
from ..timebase import DAYS_PER_MONTH, HOURS_PER_MONTH, MONTHS_PER_YEAR, WEEKS_PER_MONTH
from .contracts import CREDITS, Book, Line, shorthand_book
from .market import PricePath

SHARE_TOL = 1e-12
"""A committed share at or below this is none (a share of 1e-313 would overflow the used share it divides)."""


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
    """Monthly sold hours and revenue by kind of contract, and the cash a prepayment moves; arrays of shape
    ``(..., months)``. Committed = take-or-pay and reserved; spot includes the idle hours sold at spot."""

    committed_gpu_hours: np.ndarray
    on_demand_gpu_hours: np.ndarray
    spot_gpu_hours: np.ndarray
    committed_usd: np.ndarray
    """Gross revenue of the committed contracts [USD]."""
    on_demand_usd: np.ndarray
    spot_usd: np.ndarray
    sla_credits_usd: np.ndarray
    used_gpu_hours: np.ndarray
    """GPU-hours customers use [GPU-h]: below the billed hours when committed capacity sits idle (take-or-pay)."""
    customer_loss_usd: np.ndarray
    """Revenue lost to churn after renewals and to a failed acceptance test [USD]
    (:mod:`neoplan.economics.customers`)."""
    prepayment_received_usd: np.ndarray
    """Prepayments received when take-or-pay contracts are signed [USD]."""
    prepaid_revenue_usd: np.ndarray
    """Revenue settled from prepayments instead of a bill: the prepaid share of each first-term month [USD]; over the
    horizon it sums to the prepayments received."""
    contracted_investment_grade_usd: np.ndarray
    """Gross first-term revenue of committed contracts with investment-grade customers [USD]
    (:func:`contracted_revenue_by_credit`)."""
    contracted_sub_investment_grade_usd: np.ndarray
    """The same with sub-investment-grade customers [USD]."""
    token_gpu_hours: np.ndarray
    """Billed GPU-hours that serve tokens [GPU-h] (0 when the plan rents GPU-hours only)."""

    @property
    def reserved_gpu_hours(self) -> np.ndarray:
        """Committed (take-or-pay and reserved) GPU-hours billed [GPU-h]."""
        return self.committed_gpu_hours

    @property
    def sold_gpu_hours(self) -> np.ndarray:
        """GPU-hours billed per month: committed, on demand and spot [GPU-h]."""
        return self.committed_gpu_hours + self.on_demand_gpu_hours + self.spot_gpu_hours

    @property
    def gross_usd(self) -> np.ndarray:
        """Gross revenue per month [USD]."""
        return self.committed_usd + self.on_demand_usd + self.spot_usd

    @property
    def revenue_usd(self) -> np.ndarray:
        """Revenue net of SLA credits and customer losses per month [USD]."""
        return self.gross_usd - self.sla_credits_usd - self.customer_loss_usd

    @property
    def reserved_usd_per_gpu_hour(self) -> np.ndarray:
        """Average price of a committed GPU-hour [USD/GPU-h]; 0 in a month without one."""
        return _per_hour(self.committed_usd, self.committed_gpu_hours)

    @property
    def on_demand_usd_per_gpu_hour(self) -> np.ndarray:
        """Average price of an on-demand GPU-hour [USD/GPU-h]; 0 in a month without one."""
        return _per_hour(self.on_demand_usd, self.on_demand_gpu_hours)

    @property
    def spot_usd_per_gpu_hour(self) -> np.ndarray:
        """Average price of a spot GPU-hour [USD/GPU-h]; 0 in a month without one."""
        return _per_hour(self.spot_usd, self.spot_gpu_hours)

    def scaled(self, weight: np.ndarray | float) -> RevenueSchedule:
        """Every hour and dollar × ``weight`` (a float or a column (n, 1)): a share of the book."""
        return RevenueSchedule(*(a * weight for a in schedule_arrays(self)))

    def __add__(self, other: RevenueSchedule) -> RevenueSchedule:
        return RevenueSchedule(*(a + b for a, b in zip(schedule_arrays(self), schedule_arrays(other), strict=True)))


def _per_hour(usd: np.ndarray, hours: np.ndarray) -> np.ndarray:
    """``usd ÷ hours`` where hours are sold, else 0 [USD/GPU-h]."""
    return np.divide(usd, hours, out=np.zeros(np.broadcast_shapes(usd.shape, hours.shape)), where=hours > 0)


def schedule_arrays(schedule: RevenueSchedule) -> tuple[np.ndarray, ...]:
    """The arrays of ``schedule`` in field order, broadcast to one shape."""
    arrays = [np.asarray(getattr(schedule, f.name)) for f in fields(RevenueSchedule)]
    return tuple(np.broadcast_arrays(*arrays))


def _flat_path(pricing: Pricing, decline: np.ndarray | float | None) -> PricePath:
    """A flat price path at ``decline`` [fraction per year], else the scenario's flat decline."""
    rate = pricing.price_decline_per_year if decline is None else decline
    if rate is None:
        raise ValueError("pricing.price_decline_per_year is empty (the generation's curve): pass a price_path")
    return PricePath.flat(rate)


@dataclass(frozen=True)
class _Market:
    """What every line of a book is priced and sold against in n cases: capacity, headline price, path, dates."""

    capacity: float
    """Sellable GPU-hours in a full month [GPU-h]."""
    p0: np.ndarray
    """Headline price at go-live [USD/GPU-h], a float or a column (n, 1)."""
    path: PricePath
    d: AnyDates
    since: np.ndarray
    """Months into the cluster in service at each month's middle."""
    first_cluster: np.ndarray
    """True in the months of the first cluster."""

    def index(self, months_after_go_live: np.ndarray) -> np.ndarray:
        """The price path's index that many months after go-live [ratio]."""
        return self.path.index(months_after_go_live / MONTHS_PER_YEAR)


def _zeros(*arrays: np.ndarray | float) -> np.ndarray:
    return np.zeros(np.broadcast_shapes(*(np.shape(a) for a in arrays)))


def _committed_line(line: Line, m: _Market, scale: np.ndarray | float, churn: np.ndarray | float) -> dict[str, Any]:
    """Hours, gross revenue, churn loss, prepayment and first-term revenue of one committed line."""
    d, months = m.d, m.d.months
    active = active_share(months, np.asarray(d.go_live_month) + line.start_month) * d.service_share
    hours = m.capacity * line.share * active
    age = np.maximum(m.since - line.start_month, 0.0)  # months into the contract
    renewed = line.start_month + np.floor(age / line.term_months) * line.term_months
    price = m.p0 * line.multiple * scale * m.index(renewed)
    first = m.first_cluster & (age < line.term_months) & (active > 0)
    if line.pinned_usd_per_gpu_hour is not None:
        price = np.where(first, line.pinned_usd_per_gpu_hour, price)
    gross = hours * price
    first_term = np.where(first, gross, 0.0)
    received = _zeros(first_term)
    if line.prepayment_share > 0:  # paid with the hardware it funds: the delivery month (+ a later start)
        paid = np.minimum(np.floor(np.asarray(d.delivery_month) + line.start_month), months - 1)
        value = line.prepayment_share * first_term.sum(axis=-1, keepdims=True)
        received = np.where(np.arange(months) == paid, value, 0.0)
    return {
        "hours": hours,
        "usd": gross,
        "churn_usd": np.where(age >= line.term_months, churn, 0.0) * gross,
        "received": received,
        "prepaid": line.prepayment_share * first_term,
        "first_term": first_term,
    }


def _usage_line(line: Line, share: np.ndarray, m: _Market, multiple: np.ndarray | float, ramp_months: int) -> tuple:
    """(hours, gross) of an on-demand or spot line selling ``share`` (a column) of the hours, ramped in."""
    d = m.d
    ramped = ramp(d.months, np.asarray(d.go_live_month) + line.start_month, ramp_months) * d.service_share
    hours = m.capacity * share * ramped
    if line.pinned_usd_per_gpu_hour is not None:
        price = line.pinned_usd_per_gpu_hour * m.index(m.since)
    else:
        price = m.p0 * multiple * m.index(m.since)
    return hours, hours * price


def _usage_shares(lines: tuple[Line, ...], total: np.ndarray) -> list[tuple[Line, np.ndarray]]:
    """``total`` (a column) shared among ``lines`` by their shares; one implicit line from go-live when none."""
    own = sum(line.share for line in lines)
    if not lines or own <= 0:
        kind = lines[0].kind if lines else "on_demand"
        return [(Line(kind, 0.0), total)]
    return [(line, total * (line.share / own)) for line in lines]


def revenue_schedule(
    pricing: Pricing,
    sellable_gpus: int,
    d: AnyDates,
    *,
    book: Book | None = None,
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
    """Monthly contract book of ``sellable_gpus`` GPUs (no idle spot: :func:`sales_schedule` adds it).

    ``book`` is the scenario's (:func:`neoplan.economics.contracts.book_of`); None = the shorthand of ``pricing``,
    whose ``reserved_price_multiple`` (or this argument) must then be set. ``usd_per_gpu_hour``, ``utilization``,
    ``reserved_price_multiple`` and ``on_demand_price_multiple`` override the scenario's values and may be arrays of
    shape ``(n, 1)`` to evaluate n cases at once; ``d`` may hold per-case dates (:class:`CaseDates`).
    ``utilization`` [fraction] is the use of the sellable hours: on demand sells what exceeds the committed and spot
    contracts' shares, spot what exceeds the committed share up to its own; committed contracts bill their share
    whatever it is. ``reserved_price_multiple`` [ratio] scales every committed line's multiple by its ratio to the
    book's (share-weighted) committed multiple. The price path is ``price_path``, else a flat
    ``price_decline_per_year`` (an override, else the scenario's). ``sla_credit_share`` [fraction of gross revenue]
    overrides ``pricing.sla_credit_share``, a float or one share per case and month (n, months);
    ``customer_loss_share`` [fraction of gross revenue] is lost to a failed acceptance test and
    ``reserved_loss_share`` [fraction of a committed contract's revenue] to churn once it has renewed
    (:mod:`neoplan.economics.customers`).
    """
    if book is None:
        multiple = pricing.reserved_price_multiple if reserved_price_multiple is None else reserved_price_multiple
        if multiple is None:
            raise ValueError("pricing.reserved_price_multiple is empty: pass the platform's reserved_price_multiple")
        book = shorthand_book(pricing, float(np.asarray(multiple).reshape(-1)[0]))
    p0 = np.asarray(pricing.usd_per_gpu_hour if usd_per_gpu_hour is None else usd_per_gpu_hour, dtype=float)
    util = np.asarray(pricing.steady_utilization if utilization is None else utilization, dtype=float)
    path = price_path if price_path is not None else _flat_path(pricing, price_decline_per_year)
    scale: np.ndarray | float = 1.0
    if reserved_price_multiple is not None and book.committed_multiple > 0:
        scale = np.asarray(reserved_price_multiple, dtype=float) / book.committed_multiple
    od_multiple = pricing.on_demand_price_multiple if on_demand_price_multiple is None else on_demand_price_multiple
    m = _Market(sellable_gpus * HOURS_PER_MONTH, p0, path, d, d.cluster_months, cluster_index(d.months, d) == 0)

    committed = [_committed_line(line, m, scale, reserved_loss_share) for line in book.committed]
    committed_share = book.committed_share
    spot_total = np.minimum(book.spot_share, np.maximum(util - committed_share, 0.0))
    od_total = np.maximum(util - committed_share - book.spot_share, 0.0)
    od = [
        _usage_line(line, share, m, od_multiple, pricing.ramp_months)
        for line, share in _usage_shares(book.of_kind("on_demand"), od_total)
    ]
    spot = [
        _usage_line(line, share, m, book.spot_multiple, pricing.ramp_months)
        for line, share in _usage_shares(book.of_kind("spot"), spot_total)
    ]
    zero = _zeros(m.since, p0, util)

    def total(parts: list[Any], pick: Any) -> np.ndarray:
        return sum((pick(part) for part in parts), zero)

    committed_hours = total(committed, lambda c: c["hours"])
    on_demand_hours, spot_hours = total(od, lambda x: x[0]), total(spot, lambda x: x[0])
    used_share = np.minimum(util / committed_share, 1.0) if committed_share > SHARE_TOL else 0.0
    gross = total(committed, lambda c: c["usd"]) + total(od, lambda x: x[1]) + total(spot, lambda x: x[1])
    by_credit = {
        credit: total(
            [c for c, line in zip(committed, book.committed, strict=True) if line.counterparty == credit],
            lambda c: c["first_term"],
        )
        for credit in CREDITS
    }
    credits = pricing.sla_credit_share if sla_credit_share is None else sla_credit_share
    return RevenueSchedule(
        committed_gpu_hours=committed_hours,
        on_demand_gpu_hours=on_demand_hours,
        spot_gpu_hours=spot_hours,
        committed_usd=total(committed, lambda c: c["usd"]),
        on_demand_usd=total(od, lambda x: x[1]),
        spot_usd=total(spot, lambda x: x[1]),
        sla_credits_usd=gross * credits,
        used_gpu_hours=committed_hours * used_share + on_demand_hours + spot_hours,
        customer_loss_usd=gross * customer_loss_share + total(committed, lambda c: c["churn_usd"]),
        prepayment_received_usd=total(committed, lambda c: c["received"]),
        prepaid_revenue_usd=total(committed, lambda c: c["prepaid"]),
        contracted_investment_grade_usd=by_credit["investment_grade"],
        contracted_sub_investment_grade_usd=by_credit["sub_investment_grade"],
        token_gpu_hours=zero,
    )


def idle_spot_schedule(
    idle_gpu_hours: np.ndarray,
    book: Book,
    d: AnyDates,
    *,
    usd_per_gpu_hour: np.ndarray | float,
    price_path: PricePath,
    spot_share_of_idle: np.ndarray | float | None = None,
    sla_credit_share: np.ndarray | float = 0.0,
    customer_loss_share: np.ndarray | float = 0.0,
) -> RevenueSchedule:
    """Idle GPU-hours sold at spot: ``spot_share_of_idle`` (default the book's) of ``idle_gpu_hours`` [GPU-h] at the
    headline price × the spot multiple along the price path; used hours, with their SLA credits and acceptance
    losses (shares of gross, as the book's)."""
    share = book.spot_share_of_idle if spot_share_of_idle is None else spot_share_of_idle
    hours = np.maximum(idle_gpu_hours, 0.0) * share
    price = (
        np.asarray(usd_per_gpu_hour, dtype=float)
        * book.spot_multiple
        * price_path.index(d.cluster_months / MONTHS_PER_YEAR)
    )
    gross = hours * price
    zero = _zeros(gross)
    return RevenueSchedule(
        committed_gpu_hours=zero,
        on_demand_gpu_hours=zero,
        spot_gpu_hours=hours + zero,
        committed_usd=zero,
        on_demand_usd=zero,
        spot_usd=gross,
        sla_credits_usd=gross * sla_credit_share,
        used_gpu_hours=hours + zero,
        customer_loss_usd=gross * customer_loss_share,
        prepayment_received_usd=zero,
        prepaid_revenue_usd=zero,
        contracted_investment_grade_usd=zero,
        contracted_sub_investment_grade_usd=zero,
        token_gpu_hours=zero,
    )


def sales_schedule(
    pricing: Pricing,
    sellable_gpus: int,
    d: AnyDates,
    *,
    book: Book | None = None,
    spare_gpus: int = 0,
    spot_share_of_idle: np.ndarray | float | None = None,
    usd_per_gpu_hour: np.ndarray | float | None = None,
    utilization: np.ndarray | float | None = None,
    price_decline_per_year: np.ndarray | float | None = None,
    sla_credit_share: np.ndarray | float | None = None,
    token_share: np.ndarray | float = 0.0,
    token_usd_per_gpu_hour: np.ndarray | float = 0.0,
    token_price_decline_per_year: np.ndarray | float = 0.0,
    token_demand_scale: np.ndarray | float = 1.0,
    price_path: PricePath | None = None,
    reserved_price_multiple: np.ndarray | float | None = None,
    on_demand_price_multiple: np.ndarray | float | None = None,
    customer_loss_share: np.ndarray | float = 0.0,
    reserved_loss_share: np.ndarray | float = 0.0,
) -> RevenueSchedule:
    """The whole book: GPU-hours rented, GPU-hours served as tokens (``token_share`` of them) and idle hours at spot.

    Both sides sell through one contract book: the same utilization, committed shares, ramp, renewals and credits. A
    GPU-hour of serving is priced at its GPU-hour equivalent, ``token_usd_per_gpu_hour`` [USD/GPU-h] (tokens per
    GPU-hour × the price per token, :mod:`neoplan.economics.inference`), declining at ``token_price_decline_per_year``;
    a pinned GPU-hour price does not apply to it. Demand caps the tokens sold: ``token_demand_scale`` [fraction, a
    float or a column (n, 1)] of the token side's hours find buyers, the rest stay idle. The idle hours, the sellable
    hours nobody is billed for plus the ``spare_gpus``' (hot spares, held-back trays) from go-live, sell at spot for
    ``spot_share_of_idle`` of them (default the book's). Without a book, the shorthand of ``pricing`` (see
    :func:`revenue_schedule`), with no idle spot. Arguments broadcast as there (``(n, 1)`` columns for n cases).
    """
    contracts: dict[str, Any] = {
        "reserved_price_multiple": reserved_price_multiple,
        "customer_loss_share": customer_loss_share,
        "reserved_loss_share": reserved_loss_share,
        "utilization": utilization,
        "sla_credit_share": sla_credit_share,
        "on_demand_price_multiple": on_demand_price_multiple,
    }
    path = price_path if price_path is not None else _flat_path(pricing, price_decline_per_year)
    hours = revenue_schedule(
        pricing, sellable_gpus, d, book=book, usd_per_gpu_hour=usd_per_gpu_hour, price_path=path, **contracts
    )
    share = np.asarray(token_share, dtype=float)
    sold = hours
    if np.any(share > 0):
        tokens = revenue_schedule(
            pricing.model_copy(update={"reserved_usd_per_gpu_hour": None}),
            sellable_gpus,
            d,
            book=None if book is None else book.unpinned(),
            usd_per_gpu_hour=token_usd_per_gpu_hour,
            price_decline_per_year=token_price_decline_per_year,
            **contracts,
        )
        served = share * np.asarray(token_demand_scale, dtype=float)
        tokens = tokens.scaled(served)
        tokens = replace(tokens, token_gpu_hours=tokens.sold_gpu_hours)
        sold = hours.scaled(1.0 - share) + tokens
    if book is None:
        return sold
    capacity = (sellable_gpus * d.live_share + spare_gpus * d.live_share) * HOURS_PER_MONTH
    p0 = pricing.usd_per_gpu_hour if usd_per_gpu_hour is None else usd_per_gpu_hour
    credits = pricing.sla_credit_share if sla_credit_share is None else sla_credit_share
    idle = idle_spot_schedule(
        capacity - sold.sold_gpu_hours,
        book,
        d,
        usd_per_gpu_hour=p0,
        price_path=path,
        spot_share_of_idle=spot_share_of_idle,
        sla_credit_share=credits,
        customer_loss_share=customer_loss_share,
    )
    return sold + idle


def contracted_revenue_by_credit(schedule: RevenueSchedule) -> dict[str, np.ndarray]:
    """Committed revenue of the contracts signed at financial close, by the counterparty's credit [USD per month].

    The gross revenue of each take-or-pay and reserved contract over its first term on the first cluster (renewals
    are not contracted at close; SLA credits and churn not deducted), GPU-hours and tokens alike, grouped into
    ``investment_grade`` and ``sub_investment_grade``; arrays of the schedule's shape, (n, months) for n cases.
    Debt sized on contracted revenue reads it (``financing.sizing``).
    """
    return {
        "investment_grade": schedule.contracted_investment_grade_usd,
        "sub_investment_grade": schedule.contracted_sub_investment_grade_usd,
    }
