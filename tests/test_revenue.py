"""Revenue: the timeline to go-live and the contract book (reserved take-or-pay and on-demand sales).

Reference values are worked by hand from the conventions in ``neoplan/revenue.py``: month ``t`` covers
``[t, t+1)``; a mean month holds 8,766 / 12 = 730.5 hours; the go-live month earns pro rata; utilization is
the used share of all GPU-hours; reserved hours are take-or-pay (billed in full from go-live, used or not),
on demand sells the use above the reserved share and ramps in linearly; on-demand prices decline every month,
reserved prices re-price to the market at each renewal; SLA credits are a share of gross revenue.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neoplan.economics.revenue import (
    active_share,
    cluster_index,
    dates,
    delayed,
    in_service,
    months_into_cluster,
    ramp,
    refresh_go_live_months,
    revenue_schedule,
    years_since,
)
from neoplan.inputs.business import Pricing, Timeline

HOURS = 8766.0 / 12  # 730.5 h in a mean Julian month


def timeline(go_live_month: float = 1.0, horizon_months: int = 36, **kw) -> Timeline:
    """A timeline that goes live at ``go_live_month`` (delivery then, nothing after but on-site burn-in)."""
    whole = int(go_live_month)
    return Timeline(
        delivery_lead_months=whole,
        integration_burn_in_weeks=0,
        site_install_weeks=0,
        onsite_burn_in_days=(go_live_month - whole) * 365.25 / 12,
        horizon_months=horizon_months,
        **kw,
    )


def pricing(**kw) -> Pricing:
    """Plain round numbers: $2 on demand, $1.50 reserved, 80 % of the hours used, half reserved, no decline."""
    values = dict(
        usd_per_gpu_hour=2.0,
        utilization=0.8,
        reserved_share=0.5,
        reserved_price_multiple=0.75,
        on_demand_price_multiple=1.0,
        price_decline_per_year=0.0,
        ramp_months=0,
        sla_credit_share=0.1,
        reserved_term_months=12,
    )
    return Pricing(**{**values, **kw})


# --- dates ----------------------------------------------------------------------------------------------------------


def test_go_live_adds_lead_time_integration_install_and_burn_in():
    d = dates(
        Timeline(
            delivery_lead_months=3,
            integration_burn_in_weeks=3.5,
            site_install_weeks=2.0,
            onsite_burn_in_days=3.0,
            horizon_months=72,
        )
    )
    weeks_per_month = 52.1775 / 12
    assert d.delivery_month == 3.0
    assert d.install_start_month == pytest.approx(3 + 3.5 / weeks_per_month)
    assert d.go_live_month == pytest.approx(3 + 5.5 / weeks_per_month + 3.0 / (365.25 / 12))
    assert d.go_live_month == pytest.approx(4.3635, abs=1e-4)
    assert d.months == 72


def test_go_live_at_or_after_the_horizon_is_refused():
    with pytest.raises(ValueError, match=r"timeline\.horizon_months must be after go-live"):
        dates(
            Timeline(
                delivery_lead_months=12,
                integration_burn_in_weeks=0,
                site_install_weeks=0,
                onsite_burn_in_days=0,
                horizon_months=12,
            )
        )


def test_a_delivery_delay_moves_every_later_date():
    d = dates(timeline(go_live_month=2.0, horizon_months=24))
    c = delayed(d, np.array([-2.0, 0.0, 3.0]))
    assert c.go_live_month.shape == (3, 1)
    assert c.go_live_month[:, 0].tolist() == [0.0, 2.0, 5.0]
    assert c.delivery_month[:, 0].tolist() == [0.0, 2.0, 5.0]
    with pytest.raises(ValueError, match="delivery cannot precede the order"):
        delayed(d, np.array([-2.5]))
    with pytest.raises(ValueError, match="at or after the horizon"):
        delayed(d, np.array([22.0]))


# --- month shares ---------------------------------------------------------------------------------------------------


def test_the_go_live_month_earns_pro_rata():
    assert active_share(5, 1.5).tolist() == [0.0, 0.5, 1.0, 1.0, 1.0]
    assert active_share(3, 0.0).tolist() == [1.0, 1.0, 1.0]


def test_years_since_count_to_the_middle_of_each_month():
    assert (years_since(4, 1.0) * 12).tolist() == [0.0, 0.5, 1.5, 2.5]


def test_ramp_is_the_month_average_of_a_linear_ramp():
    assert ramp(6, 0.0, 2).tolist() == [0.25, 0.75, 1.0, 1.0, 1.0, 1.0]  # ∫ x/2 over [0,1] and [1,2]
    # start mid-month, 1-month ramp: ∫_0.5^1 (x-0.5) = 0.125; ∫_1^1.5 (x-0.5) + 0.5 = 0.875
    assert ramp(3, 0.5, 1).tolist() == pytest.approx([0.125, 0.875, 1.0])
    assert ramp(4, 1.5, 0).tolist() == active_share(4, 1.5).tolist()  # no ramp: pro rata from go-live


# --- contract book --------------------------------------------------------------------------------------------------


def test_sold_hours_prices_and_revenue_of_a_steady_month():
    s = revenue_schedule(pricing(), 10, dates(timeline(go_live_month=1.0)))
    capacity = 10 * HOURS  # 7,305 GPU-hours
    assert s.reserved_gpu_hours[0] == 0 and s.on_demand_gpu_hours[0] == 0  # before go-live
    assert s.reserved_gpu_hours[1] == pytest.approx(capacity * 0.5)  # 3,652.5 reserved
    assert s.on_demand_gpu_hours[1] == pytest.approx(capacity * (0.8 - 0.5))  # 2,191.5: the use above the reserved
    assert s.sold_gpu_hours[1] == pytest.approx(5844.0) == s.used_gpu_hours[1]
    assert s.reserved_usd_per_gpu_hour[1] == 1.5 and s.on_demand_usd_per_gpu_hour[1] == 2.0
    assert s.gross_usd[1] == pytest.approx(3652.5 * 1.5 + 2191.5 * 2.0)  # 9,861.75
    assert s.sla_credits_usd[1] == pytest.approx(986.175)
    assert s.revenue_usd[1] == pytest.approx(8875.575)
    assert s.revenue_usd.shape == (36,)


def test_take_or_pay_at_zero_utilization_earns_the_reserved_book():
    """Textbook: nobody uses a GPU, yet reserved_share × GPUs × hours × reserved price is paid."""
    s = revenue_schedule(pricing(utilization=0.0, reserved_share=0.6), 10, dates(timeline(go_live_month=1.0)))
    assert s.gross_usd[5] == pytest.approx(0.6 * 10 * HOURS * 1.5)  # 6,574.5 a month
    assert s.revenue_usd[5] == pytest.approx(0.6 * 10 * HOURS * 1.5 * (1 - 0.1))
    assert not s.on_demand_gpu_hours.any() and not s.used_gpu_hours.any()
    assert s.revenue_usd[1:].sum() == pytest.approx(35 * 0.6 * 10 * HOURS * 1.5 * 0.9)


def test_below_the_reserved_share_billing_holds_while_use_falls():
    s = revenue_schedule(pricing(utilization=0.3, reserved_share=0.5), 10, dates(timeline(go_live_month=1.0)))
    assert s.sold_gpu_hours[3] == pytest.approx(10 * HOURS * 0.5)  # billed: the whole reserved book
    assert s.used_gpu_hours[3] == pytest.approx(10 * HOURS * 0.3)  # used: what customers run (power follows it)
    assert s.on_demand_gpu_hours[3] == 0


def test_reserved_hours_are_sold_from_go_live_while_on_demand_ramps_in():
    s = revenue_schedule(pricing(ramp_months=3), 8, dates(timeline(go_live_month=1.0)))
    full_reserved = 8 * HOURS * 0.5
    full_on_demand = 8 * HOURS * 0.3
    assert s.reserved_gpu_hours[1:5] == pytest.approx([full_reserved] * 4)
    # month averages of a 3-month ramp: 1/6, 1/2, 5/6, then 1
    assert s.on_demand_gpu_hours[1:5] == pytest.approx([full_on_demand * f for f in (1 / 6, 1 / 2, 5 / 6, 1)])
    assert s.used_gpu_hours[1:5] == pytest.approx(s.sold_gpu_hours[1:5])  # use above the reserved share


def test_reserved_price_holds_for_the_term_and_renews_at_the_declined_price():
    # go-live at 0.5: month t's middle is t years/12 after go-live; (1 − 0.19) = 0.9²
    s = revenue_schedule(pricing(price_decline_per_year=0.19), 4, dates(timeline(go_live_month=0.5)))
    on_demand = s.on_demand_usd_per_gpu_hour
    assert on_demand[6] == pytest.approx(2.0 * 0.9)
    assert on_demand[12] == pytest.approx(2.0 * 0.81)
    assert on_demand[24] == pytest.approx(2.0 * 0.81**2)
    reserved = s.reserved_usd_per_gpu_hour
    assert reserved[1] == reserved[11] == 1.5
    assert reserved[12] == reserved[23] == pytest.approx(1.5 * 0.81)
    assert reserved[24] == pytest.approx(1.5 * 0.81**2)


def test_a_pinned_reserved_price_holds_for_the_first_term_and_renews_at_the_market():
    p = pricing(reserved_usd_per_gpu_hour=1.2, price_decline_per_year=0.19)
    s = revenue_schedule(p, 4, dates(timeline(go_live_month=0.5)))
    assert s.reserved_usd_per_gpu_hour[1] == s.reserved_usd_per_gpu_hour[11] == 1.2
    # renewal after 12 months: the headline price then (2.00 × 0.81) × the reserved multiple 0.75, not 1.2 × 0.81
    assert s.reserved_usd_per_gpu_hour[12] == pytest.approx(2.0 * 0.81 * 0.75)
    assert s.reserved_usd_per_gpu_hour[24] == pytest.approx(2.0 * 0.81**2 * 0.75)


def test_on_demand_multiple_scales_the_on_demand_price_only():
    s = revenue_schedule(pricing(on_demand_price_multiple=1.5), 4, dates(timeline()))
    assert s.on_demand_usd_per_gpu_hour[2] == pytest.approx(3.0, rel=1e-12)
    assert s.reserved_usd_per_gpu_hour[2] == pytest.approx(1.5, rel=1e-12)


def test_total_revenue_matches_the_closed_form_without_ramp_or_decline():
    d = dates(timeline(go_live_month=2.25, horizon_months=24))
    s = revenue_schedule(pricing(), 16, d)
    live_months = 24 - 2.25
    per_live_month = 16 * HOURS * (0.5 * 1.5 + 0.3 * 2.0) * (1 - 0.1)
    assert s.revenue_usd.sum() == pytest.approx(live_months * per_live_month)


def test_cases_broadcast_as_columns():
    d = dates(timeline())
    s = revenue_schedule(
        pricing(), 8, d, usd_per_gpu_hour=np.array([[1.0], [2.0], [4.0]]), utilization=np.array([[0.8], [0.8], [0.25]])
    )
    assert s.revenue_usd.shape == (3, 36)
    one = revenue_schedule(pricing(usd_per_gpu_hour=4.0, utilization=0.25), 8, d)
    assert s.revenue_usd[2] == pytest.approx(one.revenue_usd)
    assert s.revenue_usd[1] == pytest.approx(2 * s.revenue_usd[0])  # linear in price at a fixed multiple


def test_hot_spares_earn_nothing_so_zero_sellable_gpus_earn_zero():
    s = revenue_schedule(pricing(), 0, dates(timeline()))
    assert not s.revenue_usd.any() and not s.sold_gpu_hours.any()


# --- invariants -----------------------------------------------------------------------------------------------------

fractions = st.floats(0.0, 1.0)


@settings(max_examples=60, deadline=None)
@given(
    price=st.floats(0.0, 20.0),
    rise=st.floats(0.01, 5.0),
    util=fractions,
    more_util=st.floats(0.0, 0.5),
    reserved_share=fractions,
    reserved_multiple=st.floats(0.0, 3.0),
    decline=st.floats(0.0, 0.95),
    ramp_months=st.integers(0, 36),
    term=st.integers(1, 120),
    sla=st.floats(0.0, 0.5),
    go_live=st.floats(0.0, 30.0),
    gpus=st.integers(0, 5000),
)
def test_revenue_is_non_negative_bounded_and_rises_with_price_and_utilization(
    price, rise, util, more_util, reserved_share, reserved_multiple, decline, ramp_months, term, sla, go_live, gpus
):
    p = pricing(
        usd_per_gpu_hour=price,
        utilization=util,
        reserved_share=reserved_share,
        reserved_price_multiple=reserved_multiple,
        price_decline_per_year=decline,
        ramp_months=ramp_months,
        reserved_term_months=term,
        sla_credit_share=sla,
    )
    d = dates(timeline(go_live_month=go_live, horizon_months=48))
    s = revenue_schedule(p, gpus, d)
    assert (s.revenue_usd >= 0).all() and (s.sla_credits_usd >= 0).all()
    assert s.revenue_usd == pytest.approx((1 - sla) * s.gross_usd)
    # billed: the reserved book plus the use above it, never more than capacity; used never above billed
    assert (s.sold_gpu_hours <= gpus * HOURS * max(util, reserved_share) * (1 + 1e-12) + 1e-9).all()
    assert (s.used_gpu_hours <= s.sold_gpu_hours * (1 + 1e-12) + 1e-9).all()
    assert (s.used_gpu_hours <= gpus * HOURS * util * (1 + 1e-12) + 1e-9).all()
    assert not s.sold_gpu_hours[: int(go_live)].any()
    # prices never rise over time: on demand declines monthly, reserved at each renewal (months with sales: a
    # price is revenue ÷ hours, 0 in a month without any)
    for per_hour, hours in (
        (s.on_demand_usd_per_gpu_hour, s.on_demand_gpu_hours),
        (s.reserved_usd_per_gpu_hour, s.reserved_gpu_hours),
    ):
        sold = per_hour[hours > 1e-9]
        assert (np.diff(sold) <= 1e-9 * (1 + sold[:-1])).all()

    dearer = revenue_schedule(p, gpus, d, usd_per_gpu_hour=price + rise)
    busier = revenue_schedule(p, gpus, d, utilization=min(1.0, util + more_util))
    tol = 1e-9 * (1 + s.revenue_usd)
    assert (dearer.revenue_usd >= s.revenue_usd - tol).all()
    assert (busier.revenue_usd >= s.revenue_usd - tol).all()
    assert (dearer.sold_gpu_hours == s.sold_gpu_hours).all()  # price does not change hours sold


# --- end of life ----------------------------------------------------------------------------------------------------


def test_a_shutdown_ends_the_book_at_the_end_of_the_useful_life():
    # go-live 1.0, life 12 months: service ends at month 13.0; horizon 24
    d = dates(timeline(go_live_month=1.0, horizon_months=24, useful_life_months=12))
    s = revenue_schedule(pricing(), 10, d)
    assert s.revenue_usd[12] > 0 and not s.revenue_usd[13:].any() and not s.used_gpu_hours[13:].any()
    assert in_service(24, d)[12:14].tolist() == [1.0, 0.0]
    half = dates(timeline(go_live_month=1.5, horizon_months=24, useful_life_months=12))  # ends mid-month 13
    assert in_service(24, half)[13] == 0.5
    assert revenue_schedule(pricing(), 10, half).reserved_gpu_hours[13] == pytest.approx(10 * HOURS * 0.5 * 0.5)


def test_a_refresh_restarts_prices_at_the_headline_and_signs_new_contracts():
    d = dates(timeline(go_live_month=0.5, horizon_months=40, useful_life_months=12, end_of_life="refresh"))
    assert refresh_go_live_months(d) == [12.5, 24.5, 36.5]
    assert cluster_index(40, d)[[11, 12, 24, 36]].tolist() == [0, 1, 2, 3]
    assert months_into_cluster(40, d)[[12, 13]].tolist() == [0.0, 1.0]
    s = revenue_schedule(pricing(price_decline_per_year=0.19, reserved_term_months=6), 4, d)
    od, res = s.on_demand_usd_per_gpu_hour, s.reserved_usd_per_gpu_hour
    assert od[6] == pytest.approx(2.0 * 0.9) and od[12] == od[24] == 2.0  # a new cluster earns a new one's price
    assert res[6] == pytest.approx(1.5 * 0.9) and res[12] == 1.5  # contracts re-signed at go-live of the refresh
    assert (s.sold_gpu_hours[1:] == s.sold_gpu_hours[1]).all()  # service never stops


def test_a_horizon_within_the_life_is_the_same_whatever_the_end_of_life():
    p = pricing(price_decline_per_year=0.1, reserved_usd_per_gpu_hour=1.4)
    a = revenue_schedule(p, 8, dates(timeline(horizon_months=36, useful_life_months=36)))
    b = revenue_schedule(p, 8, dates(timeline(horizon_months=36, useful_life_months=36, end_of_life="refresh")))
    np.testing.assert_allclose(a.revenue_usd, b.revenue_usd, rtol=1e-12)
    assert a.revenue_usd[-1] > 0


def test_each_case_can_have_its_own_life():
    d = delayed(dates(timeline(horizon_months=40)), np.zeros(2), life_months=np.array([12.0, 72.0]))
    s = revenue_schedule(pricing(), 4, d)
    assert not s.revenue_usd[0, 13:].any() and s.revenue_usd[1, 13:].all()


@settings(max_examples=60, deadline=None)
@given(
    go_live=st.floats(0.0, 11.0),
    life=st.integers(12, 60),
    horizon=st.integers(12, 240),
    util=fractions,
    reserved_share=fractions,
    decline=st.floats(0.0, 0.95),
)
def test_shutdown_ends_the_book_and_refresh_repeats_it(go_live, life, horizon, util, reserved_share, decline):
    p = pricing(utilization=util, reserved_share=reserved_share, price_decline_per_year=decline, ramp_months=0)
    kw = dict(go_live_month=go_live, horizon_months=horizon, useful_life_months=life)
    off = revenue_schedule(p, 8, dates(timeline(**kw)))
    on = revenue_schedule(p, 8, dates(timeline(**kw, end_of_life="refresh")))
    end = go_live + life
    if end >= horizon:  # the life outlasts the horizon: nothing to decide
        np.testing.assert_allclose(off.revenue_usd, on.revenue_usd, rtol=1e-12)
        return
    assert not off.sold_gpu_hours[math.ceil(end) :].any()
    np.testing.assert_allclose(off.revenue_usd[: math.floor(end)], on.revenue_usd[: math.floor(end)], rtol=1e-12)
    # a refresh keeps the same hours in service; each cluster's prices repeat the first one's path
    steady = 8 * HOURS * max(util, reserved_share)
    assert on.sold_gpu_hours[math.ceil(go_live) :] == pytest.approx(steady)
    since = months_into_cluster(horizon, dates(timeline(**kw, end_of_life="refresh")))
    assert (since < life + 1e-9).all()
    expected = 2.0 * (1 - decline) ** (since / 12)
    sold = on.on_demand_gpu_hours > 0
    assert on.on_demand_usd_per_gpu_hour[sold] == pytest.approx(expected[sold])
