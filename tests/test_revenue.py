"""Revenue: the timeline to go-live and the contract book (reserved take-or-pay and on-demand sales).

Reference values are worked by hand from the conventions in ``neoplan/revenue.py``: month ``t`` covers
``[t, t+1)``; a mean month holds 8,766 / 12 = 730.5 hours; the go-live month earns pro rata; reserved hours
start in full at go-live, on-demand hours ramp in linearly; on-demand prices decline every month, reserved
prices only at each renewal; SLA credits are a share of gross revenue.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neoplan.revenue import (
    active_share,
    dates,
    delayed,
    ramp,
    revenue_schedule,
    years_since,
)
from neoplan.scenario import Pricing, Timeline

HOURS = 8766.0 / 12  # 730.5 h in a mean Julian month


def timeline(go_live_month: float = 1.0, horizon_months: int = 36) -> Timeline:
    """A timeline that goes live at ``go_live_month`` (delivery then, nothing after but on-site burn-in)."""
    whole = int(go_live_month)
    return Timeline(
        delivery_lead_months=whole,
        integration_burn_in_weeks=0,
        site_install_weeks=0,
        onsite_burn_in_days=(go_live_month - whole) * 365.25 / 12,
        horizon_months=horizon_months,
    )


def pricing(**kw) -> Pricing:
    """Plain round numbers: $2 on demand, $1.50 reserved, half the hours sold, 60 % reserved, no decline."""
    values = dict(
        usd_per_gpu_hour=2.0,
        utilization=0.5,
        reserved_share=0.6,
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
    d = dates(Timeline(delivery_lead_months=3, integration_burn_in_weeks=3.5, site_install_weeks=2.0,
                       onsite_burn_in_days=3.0, horizon_months=72))
    weeks_per_month = 52.1775 / 12
    assert d.delivery_month == 3.0
    assert d.install_start_month == pytest.approx(3 + 3.5 / weeks_per_month)
    assert d.go_live_month == pytest.approx(3 + 5.5 / weeks_per_month + 3.0 / (365.25 / 12))
    assert d.go_live_month == pytest.approx(4.3635, abs=1e-4)
    assert d.months == 72


def test_go_live_at_or_after_the_horizon_is_refused():
    with pytest.raises(ValueError, match=r"timeline\.horizon_months must be after go-live"):
        dates(Timeline(delivery_lead_months=12, integration_burn_in_weeks=0, site_install_weeks=0,
                       onsite_burn_in_days=0, horizon_months=12))


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
    assert s.reserved_gpu_hours[1] == pytest.approx(capacity * 0.5 * 0.6)  # 2,191.5
    assert s.on_demand_gpu_hours[1] == pytest.approx(capacity * 0.5 * 0.4)  # 1,461
    assert s.sold_gpu_hours[1] == pytest.approx(3652.5)
    assert s.reserved_usd_per_gpu_hour[1] == 1.5 and s.on_demand_usd_per_gpu_hour[1] == 2.0
    assert s.gross_usd[1] == pytest.approx(2191.5 * 1.5 + 1461 * 2.0)  # 6,209.25
    assert s.sla_credits_usd[1] == pytest.approx(620.925)
    assert s.revenue_usd[1] == pytest.approx(5588.325)
    assert s.revenue_usd.shape == (36,)


def test_reserved_hours_are_sold_from_go_live_while_on_demand_ramps_in():
    s = revenue_schedule(pricing(ramp_months=3), 8, dates(timeline(go_live_month=1.0)))
    full_reserved = 8 * HOURS * 0.5 * 0.6
    full_on_demand = 8 * HOURS * 0.5 * 0.4
    assert s.reserved_gpu_hours[1:5] == pytest.approx([full_reserved] * 4)
    # month averages of a 3-month ramp: 1/6, 1/2, 5/6, then 1
    assert s.on_demand_gpu_hours[1:5] == pytest.approx([full_on_demand * f for f in (1 / 6, 1 / 2, 5 / 6, 1)])


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


def test_a_pinned_reserved_price_replaces_the_multiple_and_still_renews_lower():
    p = pricing(reserved_usd_per_gpu_hour=1.2, price_decline_per_year=0.19)
    s = revenue_schedule(p, 4, dates(timeline(go_live_month=0.5)))
    assert s.reserved_usd_per_gpu_hour[1] == 1.2
    assert s.reserved_usd_per_gpu_hour[12] == pytest.approx(1.2 * 0.81)


def test_on_demand_multiple_scales_the_on_demand_price_only():
    s = revenue_schedule(pricing(on_demand_price_multiple=1.5), 4, dates(timeline()))
    assert s.on_demand_usd_per_gpu_hour[2] == 3.0 and s.reserved_usd_per_gpu_hour[2] == 1.5


def test_total_revenue_matches_the_closed_form_without_ramp_or_decline():
    d = dates(timeline(go_live_month=2.25, horizon_months=24))
    s = revenue_schedule(pricing(), 16, d)
    live_months = 24 - 2.25
    per_live_month = 16 * HOURS * 0.5 * (0.6 * 1.5 + 0.4 * 2.0) * (1 - 0.1)
    assert s.revenue_usd.sum() == pytest.approx(live_months * per_live_month)


def test_cases_broadcast_as_columns():
    d = dates(timeline())
    s = revenue_schedule(pricing(), 8, d, usd_per_gpu_hour=np.array([[1.0], [2.0], [4.0]]),
                         utilization=np.array([[0.5], [0.5], [0.25]]))
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
    # never more hours than the sold share of capacity, never before go-live
    assert (s.sold_gpu_hours <= gpus * HOURS * util * (1 + 1e-12) + 1e-9).all()
    assert not s.sold_gpu_hours[: int(go_live)].any()
    # prices never rise over time: on demand declines monthly, reserved at each renewal
    assert (np.diff(s.on_demand_usd_per_gpu_hour) <= 1e-12).all()
    assert (np.diff(s.reserved_usd_per_gpu_hour) <= 1e-12).all()

    dearer = revenue_schedule(p, gpus, d, usd_per_gpu_hour=price + rise)
    busier = revenue_schedule(p, gpus, d, utilization=min(1.0, util + more_util))
    tol = 1e-9 * (1 + s.revenue_usd)
    assert (dearer.revenue_usd >= s.revenue_usd - tol).all()
    assert (busier.revenue_usd >= s.revenue_usd - tol).all()
    assert (dearer.sold_gpu_hours == s.sold_gpu_hours).all()  # price does not change hours sold
