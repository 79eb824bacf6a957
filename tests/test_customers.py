"""Customer economics (neoplan.economics.customers): tier, premium and churn from the cluster's record; the acceptance
test; where their losses fall in the contract book. Reference values, invariants and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_operations import _result  # the optimized preset with a few fields changed, cached

import neoplan
from neoplan.economics import customers, operations
from neoplan.inputs.business import Customers
from neoplan.timebase import DAYS_PER_MONTH, WEEKS_PER_MONTH

C = Customers()


# --- tier, premium, churn ----------------------------------------------------------------------------------------


def test_the_reference_way_of_running_is_silver_one_tier_gap_either_side_gold_and_bronze() -> None:
    r = np.array([1.0 - 2 * C.tier_gap, 1.0 - C.tier_gap, 1.0 - C.tier_gap / 2, 1.0, 1.0 + C.tier_gap, 1.2])
    np.testing.assert_allclose(customers.tier_position(r, C.tier_gap), [0, 0, 0.25, 0.5, 1, 1], atol=1e-12)
    assert [customers.tier_name(s) for s in (0.0, 0.5, 1.0)] == ["bronze", "silver", "gold"]


def test_premium_and_churn_pass_through_the_sourced_tier_values() -> None:
    s = np.array([0.0, 0.25, 0.5, 1.0])
    np.testing.assert_allclose(customers.premium(s, C), [-0.25, -0.125, 0.0, 0.28], atol=1e-12)
    np.testing.assert_allclose(customers.churn_per_year(s, C), [0.20, 0.16, 0.12, 0.05], atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    a=st.floats(0.5, 1.5),
    b=st.floats(0.5, 1.5),
    gap=st.floats(0.0, 0.3),
    gold=st.floats(0, 1),
    bronze=st.floats(0, 1),
    churn=st.lists(st.floats(0, 1), min_size=3, max_size=3),
)
def test_a_better_run_cluster_never_earns_less_premium_nor_loses_more_customers(
    a: float, b: float, gap: float, gold: float, bronze: float, churn: list[float]
) -> None:
    low, mid, high = sorted(churn)
    c = Customers(
        tier_gap=gap,
        premium_gold=gold,
        discount_bronze=bronze,
        churn_gold_per_year=low,
        churn_silver_per_year=mid,
        churn_bronze_per_year=high,
    )
    worse, better = sorted((a, b))
    s_worse, s_better = customers.tier_position(worse, gap), customers.tier_position(better, gap)
    assert s_better >= s_worse
    assert customers.premium(s_better, c) >= customers.premium(s_worse, c) - 1e-12
    assert customers.churn_per_year(s_better, c) <= customers.churn_per_year(s_worse, c) + 1e-12


def test_churn_falls_with_reliability_through_the_whole_model() -> None:
    """Fewer failures (a higher MTBF multiple): higher first-year goodput, a higher tier, less churn, more premium."""
    worse, base, better = (_result(operations__mtbf_multiple=m).customers for m in (0.3, 1.0, 3.0))
    assert worse.service_ratio < base.service_ratio < better.service_ratio
    assert worse.churn_per_year > base.churn_per_year > better.churn_per_year
    assert worse.on_demand_premium < base.on_demand_premium < better.on_demand_premium


def test_hot_spares_lift_the_tier_and_skipped_monitoring_lowers_it() -> None:
    base = _result().customers
    assert _result(cluster__hot_spare_share=0.03).customers.tier_position > base.tier_position
    assert _result(operations__monitoring=False).customers.tier_position < base.tier_position
    assert base.tier == "silver" and base.service_ratio == pytest.approx(1.0, abs=1e-3)


def test_customer_inputs_must_not_rank_gold_above_bronze_on_churn() -> None:
    with pytest.raises(neoplan.ScenarioError, match="churn_gold_per_year ≤ churn_silver_per_year"):
        neoplan.load_scenario({"base": "optimized", "customers": {"churn_gold_per_year": 0.5}})


# --- the acceptance test ------------------------------------------------------------------------------------------


def _poisson_cdf(k: int, mean: float) -> float:
    return sum(math.exp(-mean) * mean**i / math.factorial(i) for i in range(k + 1))


def test_the_acceptance_test_reference_value_by_hand() -> None:
    """1,024 H100 at the article's rate: 8.7 interruptions a month; a 3-day test allows the P90 of the steady count;
    without burn-in the early failures come on top."""
    rate = 8.7
    window = 3.0 / DAYS_PER_MONTH
    steady = rate * window
    allowed = next(k for k in range(50) if _poisson_cdf(k, steady) >= 0.9)
    tau = operations.constant("early_life.decay_weeks") / WEEKS_PER_MONTH
    for burn_in in (0.0, 0.9):
        early = rate * 10.0 * tau * math.exp(-burn_in / tau) * (1 - math.exp(-window / tau))
        expected = 1.0 - _poisson_cdf(allowed, steady + early)
        got = customers.acceptance_failure_probability(rate, burn_in, 10.0, C)[0]
        assert got == pytest.approx(expected, rel=1e-9), burn_in
    assert customers.acceptance_failure_probability(rate, 0.0, 10.0, C)[0] > 0.95  # un-burned-in: fails
    assert customers.acceptance_failure_probability(rate, 0.9, 10.0, C)[0] < 0.1  # burned in: 1 − P90 or less


@settings(max_examples=60, deadline=None)
@given(rate=st.floats(0.1, 500), burn_in=st.floats(0, 3), hazard=st.floats(1, 100))
def test_more_burn_in_and_gentler_infancy_never_fail_the_test_more(rate: float, burn_in: float, hazard: float) -> None:
    p = customers.acceptance_failure_probability
    assert p(rate, burn_in + 0.5, hazard, C)[0] <= p(rate, burn_in, hazard, C)[0] + 1e-12
    assert p(rate, burn_in, hazard, C)[0] <= p(rate, burn_in, hazard * 2, C)[0] + 1e-12
    assert 0.0 <= p(rate, burn_in, hazard, C)[0] <= 1.0


def test_no_test_no_failure() -> None:
    assert customers.acceptance_failure_probability(8.7, 0.0, 10.0, Customers(acceptance_test_days=0.0))[0] == 0.0


# --- where the losses fall ----------------------------------------------------------------------------------------


def test_churn_costs_the_reserved_book_from_the_first_renewal_on_only() -> None:
    r = _result()
    rev, d = r.ops.revenue, r.ops.dates
    (term,) = [c["term_months"] for c in r.contract_book() if c["kind"] in ("take_or_pay", "reserved")]
    share = r.customers.churn_loss_share
    assert share == pytest.approx(r.customers.churn_per_year * (1.0 + 0.5) / 12.0, rel=1e-12)
    renewed = np.asarray(revenue_months_into_cluster(r)) >= term
    reserved_gross = rev.reserved_gpu_hours * rev.reserved_usd_per_gpu_hour
    acceptance = rev.customer_loss_usd - np.where(renewed, share * reserved_gross, 0.0)
    month = math.floor(d.go_live_month)
    assert np.all(np.abs(acceptance[month + 2 :]) < 1e-6)  # after the first month: churn only, and only renewed
    # the month after go-live: all of the go-live month's (partial) revenue and the next month's share of that window
    frac = d.go_live_month - month
    expected = r.customers.acceptance_loss_months * (rev.gross_usd[month] + frac * rev.gross_usd[month + 1])
    assert acceptance[month : month + 2].sum() == pytest.approx(expected, rel=1e-9)


def revenue_months_into_cluster(r: neoplan.Result) -> np.ndarray:
    return r.ops.dates.cluster_months


def test_the_acceptance_loss_is_the_failure_chance_times_delay_and_credit() -> None:
    c = _result().customers
    assert c.acceptance_loss_months == pytest.approx(
        c.acceptance_failure_probability * (7.0 / DAYS_PER_MONTH + 0.30), rel=1e-12
    )
    skipped = _result(timeline__integration_burn_in_weeks=0.0, timeline__onsite_burn_in_days=0.0).customers
    assert skipped.acceptance_failure_probability > 0.95 and skipped.acceptance_loss_months > 0.5


def test_the_break_even_price_includes_the_customer_effects() -> None:
    r = _result(cluster__hot_spare_share=0.03)
    again = _result(cluster__hot_spare_share=0.03, pricing__usd_per_gpu_hour=r.kpis["breakeven_usd_per_gpu_hour"])
    assert again.kpis["npv_usd"] == pytest.approx(0.0, abs=5_000.0)
