"""Customer economics: the market tier a cluster's record earns, churn at renewal and the acceptance test.

Inputs are the scenario's ``customers:`` section (:class:`neoplan.inputs.scenario.Customers`, defaults with sources in
``data/assumptions.csv``) and the failure model's outcome (:mod:`neoplan.economics.operations`). Shares are fractions,
rates per year unless named otherwise, n cases at once (arrays (n,)).

**Tier.** Customers judge a cluster by the work they lose to failures and recovery: its first-year goodput, early
failures included (:func:`neoplan.economics.operations.first_year_goodput`), against the goodput of the same cluster run
the reference way (:func:`neoplan.economics.operations.reference_goodput`): r = g₁ / g_ref. The reference way of running
(the article's checklist in place, burned in, no spares) is the silver tier, whose list price is the index; r one
``tier_gap`` above is gold, one below bronze. The position s = clip(0.5 + (r − 1) / (2 × gap), 0, 1) is 0 for
bronze, ½ silver, 1 gold (:func:`tier_position`). Performance the customer cannot see is priced by the elasticity
(:func:`neoplan.economics.operations.price_factor`), not here: the tier premium at list is far larger than any goodput
gap and pays for the record (support, availability) rather than speed.

**Premium** (:func:`premium`): on-demand (list) prices × (1 + premium), premium linear in s from −``discount_bronze``
through 0 at silver to ``premium_gold``. Reserved contracts sell at the same nominal price whatever the tier
(SemiAnalysis: gold-tier operators cost 5–15 % less per unit of work *at the same nominal price*).

**Churn** (:func:`churn_per_year`): linear in s through bronze, silver and gold. Contracts run their first term; from
the first renewal on, the capacity of churned reserved customers sits idle ``idle_months`` and a replacement costs
``reacquisition_months`` of their revenue, so the reserved book loses churn × (idle + reacquisition) ÷ 12 of its
revenue each month.

**Acceptance test** (:func:`acceptance_failure_probability`): at go-live the customer runs the whole cluster for
``acceptance_test_days``. The test allows the ``acceptance_pass_probability`` quantile (Poisson) of the interruptions
a burned-in cluster at its steady rate shows over the test; the cluster shows its steady rate plus the early
failures its burn-in did not flush. A failed test slips go-live revenue ``acceptance_retest_days`` and owes
``acceptance_failure_credit`` of a month's revenue: the expected loss is taken from the first month after go-live.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..inputs.business import Customers
from ..inputs.scenario import Scenario
from ..timebase import DAYS_PER_MONTH
from .operations import Design, Outcome, early_life_between, first_year_goodput, poisson_pmf
from .revenue import AnyDates, active_share

TIERS = ("bronze", "silver", "gold")
"""Market tiers from the bottom; their positions are 0, ½ and 1."""
MIN_TIER_GAP = 1e-9
"""A tier gap below this is a step (any shortfall bronze, any gain gold) [fraction]."""


def tier_position(service_ratio: np.ndarray | float, tier_gap: float) -> np.ndarray:
    """Position in the market tiers (n,) [0 bronze … ½ silver … 1 gold] of a first-year goodput ratio r [ratio]."""
    r = np.asarray(service_ratio, dtype=float) - 1.0
    if tier_gap < MIN_TIER_GAP:  # a step: any shortfall bronze, any gain gold
        return 0.5 + 0.5 * np.sign(r)
    return np.clip(0.5 + r / (2.0 * tier_gap), 0.0, 1.0)


def _through_tiers(s: np.ndarray, bronze: float, silver: float, gold: float) -> np.ndarray:
    """Linear from ``bronze`` at s = 0 through ``silver`` at ½ to ``gold`` at 1."""
    return np.where(s < 0.5, bronze + (silver - bronze) * 2.0 * s, silver + (gold - silver) * (2.0 * s - 1.0))


def premium(position: np.ndarray | float, c: Customers) -> np.ndarray:
    """On-demand (list) price premium over the index at tier ``position`` (n,) [fraction; < 0 a discount]."""
    return _through_tiers(np.asarray(position, dtype=float), -c.discount_bronze, 0.0, c.premium_gold)


def churn_per_year(position: np.ndarray | float, c: Customers) -> np.ndarray:
    """Reserved customers lost per year at renewal at tier ``position`` (n,) [fraction per year]."""
    s = np.asarray(position, dtype=float)
    return _through_tiers(s, c.churn_bronze_per_year, c.churn_silver_per_year, c.churn_gold_per_year)


def tier_name(position: float) -> str:
    """The tier nearest ``position`` (bronze, silver, gold)."""
    return TIERS[min(round(position * 2), 2)]


def _poisson_cdf(counts: np.ndarray, means: np.ndarray) -> np.ndarray:
    """P(X ≤ counts) for X ~ Poisson(means), elementwise (n,)."""
    k = np.arange(int(np.max(counts, initial=0)) + 1, dtype=float)
    return np.where(k <= counts[:, None], poisson_pmf(means, k), 0.0).sum(axis=1)


def _poisson_quantile(probability: float, means: np.ndarray) -> np.ndarray:
    """The smallest k with P(X ≤ k) ≥ ``probability`` for X ~ Poisson(means) (n,) [count]."""
    top = float(np.max(means, initial=0.0))
    k = np.arange(int(top + 12.0 * math.sqrt(top) + 30.0) + 1, dtype=float)
    return np.argmax(np.cumsum(poisson_pmf(means, k), axis=1) >= probability - 1e-12, axis=1).astype(float)


def acceptance_failure_probability(
    rate_per_month: np.ndarray | float, burn_in_months: float, hazard_multiple: float, c: Customers
) -> np.ndarray:
    """Chance the cluster fails the customer's acceptance test (n,) [fraction] (see the module doc).

    ``rate_per_month`` is the cluster's steady rate of job interruptions (n,) [count/month]; ``burn_in_months`` its
    age at go-live.
    """
    rate = np.atleast_1d(np.asarray(rate_per_month, dtype=float))
    window = c.acceptance_test_days / DAYS_PER_MONTH
    if window <= 0:
        return np.zeros(rate.shape)
    steady = rate * window
    allowed = _poisson_quantile(c.acceptance_pass_probability, steady)
    seen = steady + early_life_between(rate, burn_in_months, window, hazard_multiple)
    return np.clip(1.0 - _poisson_cdf(allowed, seen), 0.0, 1.0)


@dataclass(frozen=True)
class Terms:
    """What customers do about n cases' records (arrays (n,))."""

    service_ratio: np.ndarray
    """First-year goodput ÷ the reference way's goodput [ratio]."""
    position: np.ndarray
    """Tier position [0 bronze … 1 gold]."""
    premium: np.ndarray
    """On-demand (list) price premium over the index [fraction]."""
    churn_per_year: np.ndarray
    """Reserved customers lost per year from the first renewal on [fraction per year]."""
    acceptance_failure_probability: np.ndarray
    """Chance the acceptance test at go-live fails [fraction]."""

    def churn_loss_share(self, c: Customers) -> np.ndarray:
        """Share of the reserved book's revenue lost each month from the first renewal on (n,) [fraction]."""
        return np.minimum(self.churn_per_year * (c.idle_months + c.reacquisition_months) / 12.0, 1.0)

    def acceptance_loss_months(self, c: Customers) -> np.ndarray:
        """Expected months of revenue lost to a failed acceptance test: delay and credit (n,) [months]."""
        return self.acceptance_failure_probability * (
            c.acceptance_retest_days / DAYS_PER_MONTH + c.acceptance_failure_credit
        )


def terms(scenario: Scenario, design: Design, out: Outcome, reference_goodput: float) -> Terms:
    """The customer terms of n cases of one design from their failure-model outcome ``out``."""
    c, ops = scenario.customers, scenario.operations
    ratio = first_year_goodput(ops, design, out) / reference_goodput if reference_goodput > 0 else np.ones(1)
    s = tier_position(ratio, c.tier_gap)
    fail = acceptance_failure_probability(out.interruptions_per_month, design.burn_in_months, design.hazard_multiple, c)
    return Terms(ratio, s, premium(s, c), churn_per_year(s, c), fail)


def churn_share(scenario: Scenario, d: AnyDates, t: Terms) -> np.ndarray:
    """Share of a committed contract's gross revenue lost to churn each month once it has renewed, a column (n, 1)
    [fraction]: :meth:`Terms.churn_loss_share`; the contract book applies it from each contract's first renewal on
    (:func:`neoplan.economics.revenue.revenue_schedule`)."""
    return t.churn_loss_share(scenario.customers)[:, None]


def acceptance_share(scenario: Scenario, d: AnyDates, t: Terms) -> np.ndarray:
    """Share of each month's gross revenue lost to a failed acceptance test (n, months) [fraction]:
    :meth:`Terms.acceptance_loss_months` of revenue over the month after go-live (each month's share of that window
    over its share in service)."""
    window = active_share(d.months, d.go_live_month) - active_share(d.months, np.asarray(d.go_live_month) + 1.0)
    live = np.asarray(d.live_share)
    first = np.where(live > 0, window / np.where(live > 0, live, 1.0), 0.0)
    return first * t.acceptance_loss_months(scenario.customers)[:, None]


@dataclass(frozen=True)
class CustomersReport:
    """The customer terms of one scenario at its own driver values."""

    service_ratio: float
    tier_position: float
    tier: str
    on_demand_premium: float
    churn_per_year: float
    churn_loss_share: float
    acceptance_failure_probability: float
    acceptance_loss_months: float

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-able figures (the ``customers`` block of ``Result.to_dict``)."""
        return {
            "service_ratio": self.service_ratio,
            "tier_position": self.tier_position,
            "tier": self.tier,
            "on_demand_premium": self.on_demand_premium,
            "churn_per_year": self.churn_per_year,
            "churn_loss_share": self.churn_loss_share,
            "acceptance_failure_probability": self.acceptance_failure_probability,
            "acceptance_loss_months": self.acceptance_loss_months,
        }


def report(scenario: Scenario, t: Terms) -> CustomersReport:
    """:class:`CustomersReport` of the first case of ``t``."""
    c = scenario.customers
    position = float(t.position[0])
    return CustomersReport(
        service_ratio=float(np.asarray(t.service_ratio).reshape(-1)[0]),
        tier_position=position,
        tier=tier_name(position),
        on_demand_premium=float(t.premium[0]),
        churn_per_year=float(t.churn_per_year[0]),
        churn_loss_share=float(t.churn_loss_share(c)[0]),
        acceptance_failure_probability=float(t.acceptance_failure_probability[0]),
        acceptance_loss_months=float(t.acceptance_loss_months(c)[0]),
    )
