"""End of life and payback: a horizon past the hardware's useful life shuts the cluster down or refreshes it.

Textbook cases are worked by hand from the conventions in ``neoplan/finance.py`` and ``neoplan/revenue.py``:
each cluster depreciates straight-line from its go-live over its life and is sold for the residual share of
its capex in the month its life ends (or in the last month), a share that follows the resale curve by age;
a refresh repeats the order one life later so
that the new cluster goes live as the old one is sold. Payback counts only once cumulative cash stays ≥ 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_golden import _same as same_json

import neoplan
from neoplan.economics import residual, revenue
from neoplan.finance import project as finance

CAPEX = 720.0  # 10 a month over a 72-month life


# --- textbook: depreciation and residual of one cluster and of refreshes ----------------------------------------


def test_a_shutdown_sells_the_cluster_at_the_end_of_its_life_not_at_the_horizon():
    dep = finance.depreciation(np.array([CAPEX]), 240, 0.0, 72)
    assert dep[0, :72].tolist() == [10.0] * 72 and not dep[0, 72:].any()
    sale = finance.asset_flows(np.array([CAPEX]), 240, 0.0, 72.0, 0.1, end_of_life="shutdown")
    assert np.flatnonzero(sale.proceeds[0]).tolist() == [72] and sale.proceeds[0, 72] == pytest.approx(72.0)
    assert sale.book_gain[0, 72] == pytest.approx(72.0) and sale.book_gain[0, -1] == pytest.approx(0.0)  # all gain
    # without an end of life (or one past the horizon) the sale stays in the last month, at book value 0 here
    at_horizon = finance.asset_flows(np.array([CAPEX]), 240, 0.0, 72.0, 0.1)
    assert np.flatnonzero(at_horizon.proceeds[0]).tolist() == [239]


def test_a_240_month_horizon_with_a_72_month_life_refreshes_three_times():
    """Go-live 0, life 72, horizon 240: clusters go live at 0, 72, 144 and 216; refreshes cost 360."""
    refresh = np.array([360.0])
    dep = finance.depreciation(np.array([CAPEX]), 240, 0.0, 72, refresh_capex_usd=refresh)
    assert dep[0, [0, 71, 72, 143, 144, 215, 216, 239]].tolist() == [10, 10, 5, 5, 5, 5, 5, 5]
    assert dep.sum() == pytest.approx(720 + 360 + 360 + 24 * 5)  # the last refresh is 24 months old at the horizon
    sales = finance.asset_flows(
        np.array([CAPEX]), 240, 0.0, 72.0, 0.1, end_of_life="refresh", refresh_capex_usd=refresh
    )
    assert np.flatnonzero(sales.proceeds[0]).tolist() == [72, 144, 216, 239]
    assert sales.proceeds[0, [72, 144, 216, 239]] == pytest.approx([72.0, 36.0, 36.0, 36.0])
    assert sales.book_gain[0, 239] == pytest.approx(36.0 - (360.0 - 120.0))  # sold below its book value of 240
    # on a resale curve the 24-month-old cluster sells for the curve's value at 24 months, the others at 72
    curve = (np.array([36.0, 72.0]), np.array([3.0, 1.0]))  # relative to the value at 72 months
    aged = finance.asset_flows(
        np.array([CAPEX]), 240, 0.0, 72.0, 0.1, residual_shape=curve, end_of_life="refresh", refresh_capex_usd=refresh
    )
    assert aged.proceeds[0, [72, 144, 216, 239]] == pytest.approx([72.0, 36.0, 36.0, 3 * 36.0])  # flat below 36


def test_refresh_payments_repeat_the_order_one_life_later():
    d = revenue.CaseDates(240, np.array([[3.0]]), np.array([[3.5]]), np.array([[4.25]]), 72.0, "refresh")
    pay = neoplan.finance.engine.refresh_payments(np.array([1000.0]), d, 0.3, 0.5)
    # orders at 72, 144, 216 (deposit 30 % of 500), deliveries 3 months later; go-lives 76.25, 148.25, 220.25
    assert np.flatnonzero(pay[0]).tolist() == [72, 75, 144, 147, 216, 219]
    assert pay[0, [72, 75]] == pytest.approx([150.0, 350.0])
    shutdown = revenue.CaseDates(240, np.array([[3.0]]), np.array([[3.5]]), np.array([[4.25]]), 72.0, "shutdown")
    assert not neoplan.finance.engine.refresh_payments(np.array([1000.0]), shutdown, 0.3, 0.5).any()


@settings(max_examples=80, deadline=None)
@given(
    capex=st.floats(1.0, 1e8),
    refresh_multiple=st.floats(0.0, 5.0),
    go_live=st.floats(0.0, 30.0),
    life=st.floats(12.0, 180.0),
    horizon=st.integers(31, 240),
    share=st.floats(0.0, 1.0),
    refresh=st.booleans(),
)
def test_every_cluster_bought_is_depreciated_or_sold_at_book_value(
    capex, refresh_multiple, go_live, life, horizon, share, refresh
):
    """Conservation: capex bought = depreciation + book value left at the horizon; gains = proceeds − that book."""
    extra = np.array([capex * refresh_multiple]) if refresh else None
    sales = finance.asset_flows(
        np.array([capex]),
        horizon,
        go_live,
        life,
        share,
        end_of_life="refresh" if refresh else "shutdown",
        refresh_capex_usd=extra,
    )
    dep, residual = sales.book_depreciation, sales.proceeds
    starts = [go_live + k * life for k in range(1, 20) if go_live + k * life < horizon] if refresh else []
    bought = capex + len(starts) * capex * refresh_multiple
    in_service = starts[-1] if starts else go_live
    cost = capex * refresh_multiple if starts else capex
    book = cost * max(0.0, 1 - max(horizon - in_service, 0.0) / life)  # straight line, what is left at the horizon
    assert dep.sum() + book == pytest.approx(bought, rel=1e-9, abs=1e-6)
    assert dep.sum() + sales.book_written_off.sum() == pytest.approx(bought, rel=1e-9, abs=1e-6)
    assert residual.sum() == pytest.approx(share * bought, rel=1e-9, abs=1e-6)
    assert sales.book_gain.sum() == pytest.approx(residual.sum() - book, rel=1e-9, abs=1e-6 * capex)
    assert (dep >= -1e-9).all() and (residual >= 0).all()
    got = np.flatnonzero(residual[0]).tolist()
    expected = sorted({min(math.floor(go_live + life * k), horizon - 1) for k in range(1, len(starts) + 2)})
    if share > 0 and (share * capex * refresh_multiple > 0 or not starts):  # a free (or denormal) refresh sells for 0
        assert got == expected


# --- payback -----------------------------------------------------------------------------------------------------


def test_payback_counts_only_when_cumulative_cash_stays_non_negative():
    assert finance.payback_months(np.array([-100.0, 30, 30, 30, 30])) == pytest.approx(3 + 1 / 3)
    # back above 0 in month 1, then a second investment pulls it below 0 for good: not paid back
    assert math.isnan(finance.payback_months(np.array([-100.0, 150, -100, 10])))
    # ... and it recovers again: payback is the last crossing (month 3 + half of month 4)
    assert finance.payback_months(np.array([-100.0, 150, -100, 25, 50])) == pytest.approx(3.5)
    assert math.isnan(finance.payback_months(np.array([10.0, 20])))  # never negative: nothing to pay back


def test_discounted_payback_discounts_each_month_at_the_rate():
    cf = np.array([-100.0] + [10.0] * 30)
    r_m = finance.monthly_rate(0.12)
    cum = np.cumsum(cf / (1 + r_m) ** np.arange(31))
    t = int(np.argmax(cum >= 0))
    expected = t - 1 + -cum[t - 1] / (cf[t] / (1 + r_m) ** t)
    assert finance.payback_months(cf, 0.12) == pytest.approx(expected)
    assert finance.payback_months(cf, 0.12) > finance.payback_months(cf) == pytest.approx(10.0)


@settings(max_examples=60, deadline=None)
@given(
    flows=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=60),
    rate=st.floats(0.0, 0.5),
)
def test_paid_back_means_cumulative_cash_ends_non_negative(flows, rate):
    cf = np.array(flows)
    for annual, discounted in ((None, cf), (rate, cf / (1 + finance.monthly_rate(rate)) ** np.arange(cf.size))):
        pb = finance.payback_months(cf, annual)
        cum = np.cumsum(discounted)
        if math.isnan(pb):
            assert cum[-1] < 0 or not (cum < 0).any()
        else:
            assert (cum[math.ceil(pb + 1e-9) :] >= 0).all() and (cum < 0).any()
    # a discounted payback exists exactly when NPV ≥ 0 (and cash was negative once)
    defined = not math.isnan(finance.payback_months(cf, rate))
    assert defined == (
        float(finance.npv(rate, cf)) >= 0
        and bool((np.cumsum(cf / (1 + finance.monthly_rate(rate)) ** np.arange(cf.size)) < 0).any())
    )


# --- the model: the optimized preset over 240 months ----------------------------------------------------------


def _eval(**timeline) -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "timeline": timeline}))


@pytest.fixture(scope="module")
def six_years() -> neoplan.Result:
    return _eval(horizon_months=72)


@pytest.fixture(scope="module")
def shutdown() -> neoplan.Result:
    return _eval(horizon_months=240, end_of_life="shutdown")


@pytest.fixture(scope="module")
def refresh() -> neoplan.Result:
    return _eval(horizon_months=240, end_of_life="refresh", refresh_capex_multiple=0.8)


def test_shutdown_stops_revenue_and_opex_and_sells_at_the_end_of_life(shutdown, six_years):
    d, c = shutdown.ops.dates, shutdown.ops.cash
    end = d.go_live_month + 72
    last, after = int(end), math.ceil(end)
    assert c.revenue[0, last] > 0 and not c.revenue[0, after:].any()
    for category, monthly in shutdown.ops.opex_by_category.items():
        assert not monthly[after:].any(), category
    capex = shutdown.capex_total_usd
    assert np.flatnonzero(c.residual[0]).tolist() == [last]
    at_life = residual.default_curves()["h100-sxm"].at(72.0)  # the resale curve at the end of a 72-month life
    assert c.residual[0, last] == pytest.approx(at_life * capex)
    assert c.depreciation[0, last - 1] > 0 and not c.depreciation[0, after:].any()  # fully written off by then
    # up to the end of life nothing depends on the horizon
    assert c.revenue[0, :72] == pytest.approx(six_years.ops.cash.revenue[0])
    assert c.opex[0, :72] == pytest.approx(six_years.ops.cash.opex[0])
    assert any("shuts down" in w and "useful life" in w for w in shutdown.warnings)
    assert not any("useful life" in w for w in six_years.warnings)


def test_refresh_buys_new_clusters_paid_by_equity_and_keeps_selling(refresh, shutdown):
    d, c = refresh.ops.dates, refresh.ops.cash
    capex = refresh.capex_total_usd
    go_lives = revenue.refresh_go_live_months(d)
    assert len(go_lives) == 3
    assert c.capex.sum() == pytest.approx(capex * (1 + 3 * 0.8))
    # from the first refresh's first full month: the rest of refresh 1, all of refresh 2, refresh 3 to the horizon
    first = math.ceil(go_lives[0])
    left = 1 - (first - go_lives[0]) / 72
    assert c.depreciation[0, first:].sum() == pytest.approx(0.8 * capex * (left + 1 + (240 - go_lives[2]) / 72))
    curve = residual.default_curves()["h100-sxm"]
    last_age = 240 - go_lives[2]  # the last refresh is sold at the horizon, younger than its life
    expected = curve.at(72.0) * capex * (1 + 2 * 0.8) + curve.at(last_age) * 0.8 * capex
    assert c.residual.sum() == pytest.approx(expected)
    assert (c.revenue[0, math.ceil(d.go_live_month) :] > 0).all()
    assert (c.debt.draws == shutdown.ops.cash.debt.draws).all()  # the debt funds the first cluster only
    # a new cluster earns a new cluster's price, and its warranty covers it again
    od = refresh.ops.revenue.on_demand_usd_per_gpu_hour
    assert od[first] > od[first - 2] and od[first] == pytest.approx(od[math.ceil(d.go_live_month)], rel=0.02)
    support = refresh.ops.opex_by_category["hardware_support"]
    assert support[first - 2] > 0 and support[first] == 0
    assert any("3 refresh cluster(s)" in w for w in refresh.warnings)


def test_payback_is_reported_only_when_reached(refresh, shutdown):
    for r in (refresh, shutdown):
        cum = np.cumsum(r.ops.cash.project_fcf[0])
        payback = r.kpis["payback_months"]
        assert (payback is not None and not math.isnan(payback)) == (cum[-1] >= 0 and bool((cum < 0).any()))
        discounted = r.kpis["discounted_payback_months"]
        assert (discounted is not None and not math.isnan(discounted)) == (r.kpis["npv_usd"] >= 0)


def test_within_the_life_the_end_of_life_changes_nothing(six_years):
    other = _eval(horizon_months=72, end_of_life="refresh")
    same_json(other.to_dict(), six_years.to_dict())  # numbers to a relative 1e-9: refresh takes other code


def test_cases_with_their_own_life_match_a_scenario_with_that_life(shutdown):
    cases = shutdown.cases(shutdown.drivers(2).with_values(useful_life_months=[48.0, 72.0]))
    alone = _eval(horizon_months=240, useful_life_months=48)
    assert cases.cash.project_fcf[0] == pytest.approx(alone.ops.cash.project_fcf[0])
    assert cases.cash.project_fcf[1] == pytest.approx(shutdown.ops.cash.project_fcf[0])


@settings(max_examples=15, deadline=None)
@given(
    horizon=st.integers(12, 240),
    life=st.integers(12, 180),
    end_of_life=st.sampled_from(["shutdown", "refresh"]),
    multiple=st.floats(0.0, 5.0),
    price=st.floats(0.5, 8.0),
)
def test_any_horizon_and_life_keep_the_books_whole(horizon, life, end_of_life, multiple, price):
    r = neoplan.evaluate(
        neoplan.load_scenario(
            {
                "base": "optimized",
                "pricing": {"usd_per_gpu_hour": price},
                "timeline": {
                    "horizon_months": horizon,
                    "useful_life_months": life,
                    "end_of_life": end_of_life,
                    "refresh_capex_multiple": multiple,
                },
            }
        )
    )
    d, c = r.ops.dates, r.ops.cash
    end = d.go_live_month + life
    refreshes = revenue.refresh_go_live_months(d)
    assert c.capex.sum() == pytest.approx(r.capex_total_usd * (1 + multiple * len(refreshes)))
    curve = residual.default_curves()["h100-sxm"]
    sold_at = [min(life, horizon - g) for g in [d.go_live_month, *refreshes]]
    costs = [1.0] + [multiple] * len(refreshes)
    expected = sum(cost * curve.at(age) for cost, age in zip(costs, sold_at, strict=True)) * r.capex_total_usd
    assert c.residual.sum() == pytest.approx(expected)
    if end_of_life == "shutdown" and end < horizon:
        assert not c.revenue[0, math.ceil(end) :].any() and not c.opex[0, math.ceil(end) :].any()
    elif end_of_life == "refresh" and end < horizon:
        assert refreshes and (c.revenue[0, math.ceil(d.go_live_month) :] > 0).all()
    assert any("useful life" in w for w in r.warnings) == (end < horizon)
    cum = np.cumsum(c.project_fcf[0])
    payback = r.kpis["payback_months"]
    assert (payback is not None and not math.isnan(payback)) == (cum[-1] >= 0 and bool((cum < 0).any()))


# --- the pages ---------------------------------------------------------------------------------------------------


def test_the_pages_edit_the_end_of_life_and_explain_the_contract_book():
    from conftest import page_path, run_page

    from ui.state import SCENARIO

    at = run_page(page_path("financing"))
    assert not at.error, [e.value for e in at.error]
    keys = {w.key for w in at.text_input}
    assert "w.timeline.refresh_capex_multiple" not in keys  # only asked for with a refresh
    at.text_input(key="w.timeline.horizon_months").input(str(240)).run()
    at.selectbox(key="w.timeline.end_of_life").set_value("refresh").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.text_input(key="w.timeline.refresh_capex_multiple").input(str(0.7)).run()
    timeline = at.session_state[SCENARIO].timeline
    assert (timeline.horizon_months, timeline.end_of_life, timeline.refresh_capex_multiple) == (240, "refresh", 0.7)

    pricing = run_page(page_path("pricing"))
    note = next(c.value for c in pricing.caption if "**Committed:**" in c.value)  # the preset's named book
    assert "70 % of the GPU-hours are billed" in note and "sum of the shares, 90 %" in note
    pricing.selectbox(key="pricing.book").set_value("Shorthand: a reserved share and on demand").run()
    note = next(c.value for c in pricing.caption if "Take-or-pay" in c.value)
    assert "85 % used − 60 % reserved = 25 %" in note and "every 24 months" in note
