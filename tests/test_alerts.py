"""Warnings where a lender looks (issue 23): a covenant breach and a negative NPV at the headline price on Overview,
each with a one-line reason and a link to the page that explains it, above the dated-book notice; the TCO chart
against the price path (what a GPU-hour sells for at go-live and on average over the life)."""

from __future__ import annotations

import pytest
from conftest import page_path
from streamlit.testing.v1 import AppTest

import neoplan
from neoplan.analysis.alerts import alerts, covenant_breach, negative_npv
from neoplan.charts.finance import tco_figure
from neoplan.economics import market
from neoplan.formats import pct, ratio, usd, usd_per_gpu_hour

pytestmark = pytest.mark.usefixtures("run_like_the_server")


def _result(**changes: object) -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario({"base": "optimized", **changes}))


def test_the_default_plan_meets_its_covenant_and_loses_money() -> None:
    """Issue 37: the default loan is sized on the contracts, so the default plan meets its covenant (no alert); it
    still loses money at the hurdle rate. A loan of 60 % of capex whatever the contracts carry breaches."""
    r = _result()
    assert covenant_breach(r) is None and r.kpis["min_dscr"] >= r.scenario.financing.covenant_dscr
    loss = negative_npv(r)
    assert loss is not None and loss.page == "pages/pricing.py"
    decline = market.scenario_average_decline(r.scenario, r.ops.dates.go_live_month)  # the Hopper curve's average
    assert f"NPV {usd(r.kpis['npv_usd'])}" in loss.reason and f"prices fall {pct(decline, 0)} a year" in loss.reason
    assert usd_per_gpu_hour(r.sold_usd_per_gpu_hour_lifetime) in loss.reason
    assert [a.key for a in alerts(r)] == ["negative_npv"]
    levered = _result(financing={"sizing": "capex_share", "debt_share": 0.6})
    breach = covenant_breach(levered)
    assert breach is not None and breach.page == "pages/financing.py"
    assert f"Minimum DSCR {ratio(levered.kpis['min_dscr'])}" in breach.reason
    assert "below the 1.20× covenant" in breach.reason
    assert [a.key for a in alerts(levered)] == ["covenant_breach", "negative_npv"]
    assert all("\n" not in a.reason for a in alerts(levered))


def test_a_plan_that_pays_raises_no_alert() -> None:
    paying = {  # NPV +$1.65 M, min DSCR 1.47×
        "base": "b300_1024",
        "financing": {"debt_share": 0.2},
        "pricing": {"contracts": "neocloud_2024"},
    }
    assert alerts(neoplan.evaluate(neoplan.load_scenario(paying))) == []


def test_no_debt_no_covenant() -> None:
    assert covenant_breach(_result(financing={"sizing": "capex_share", "debt_share": 0.0})) is None


def test_a_price_above_break_even_clears_the_npv_alert() -> None:
    r = _result()
    assert negative_npv(_result(pricing={"usd_per_gpu_hour": r.kpis["breakeven_usd_per_gpu_hour"] * 1.05})) is None


def test_with_one_flat_price_every_sold_hour_sells_at_the_headline() -> None:
    """No decline, no reserved book, no spot, no ramp, no credits, no performance discount, no churn or acceptance
    test: the price path is flat, at the headline × the market tier's on-demand premium."""
    no_churn = {f"churn_{tier}_per_year": 0.0 for tier in ("gold", "silver", "bronze")}
    flat_book = {"contracts": None, "reserved_share": 0.0, "spot_share_of_idle": 0.0}
    r = _result(
        pricing={"price_decline_per_year": 0.0, **flat_book, "ramp_months": 0, "sla_credit_share": 0.0},
        operations={"sla_credits": "fixed_share", "performance_elasticity": 0.0},
        customers={**no_churn, "acceptance_test_days": 0, "acceptance_failure_credit": 0.0},
    )
    flat = r.scenario.pricing.usd_per_gpu_hour * (1 + r.to_dict()["customers"]["on_demand_premium"])
    assert r.sold_usd_per_gpu_hour_at_go_live == pytest.approx(flat, rel=1e-12)
    assert r.sold_usd_per_gpu_hour_lifetime == pytest.approx(flat, rel=1e-12)


def test_the_lifetime_price_falls_with_the_decline_and_sits_below_go_live() -> None:
    prices = [_result(pricing={"price_decline_per_year": d}).sold_usd_per_gpu_hour_lifetime for d in (0.0, 0.13, 0.3)]
    assert prices[0] > prices[1] > prices[2]
    r = _result()
    assert r.sold_usd_per_gpu_hour_lifetime < r.sold_usd_per_gpu_hour_at_go_live


def test_the_tco_chart_draws_the_price_path() -> None:
    r = _result()
    fig = tco_figure(r)
    notes = [a.text for a in fig.layout.annotations]
    assert f"sold on average ${r.sold_usd_per_gpu_hour_lifetime:.2f}" in notes
    assert f"sold at go-live ${r.sold_usd_per_gpu_hour_at_go_live:.2f}" in notes
    assert "headline price" not in " ".join(notes)
    lines = {s.x0: s.line for s in fig.layout.shapes if s.type == "line"}
    go_live, average = lines[r.sold_usd_per_gpu_hour_at_go_live], lines[r.sold_usd_per_gpu_hour_lifetime]
    assert (go_live.dash, average.dash) == ("dash", "solid")  # go-live dashed, the average solid
    margin = 1 - r.kpis["tco_usd_per_gpu_hour"] / r.sold_usd_per_gpu_hour_lifetime  # TCO $2.02 over $1.85: a loss
    assert margin < 0 and f"margin on the average sold price −{abs(margin):.0%}" in fig.layout.title.subtitle.text


def test_overview_shows_the_alerts_with_links_and_no_dated_book_notice() -> None:
    """The default plan is of one vintage (2024-10 book, market and site): no prices_as_of notice below the alerts;
    its loan is sized on its contracts, so its one alert is its negative NPV, not a covenant breach."""
    at = AppTest.from_file(page_path("app"), default_timeout=120)
    at.run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    warnings = [w.value.replace("\\", "") for w in at.main.warning]
    book = ("Price book (hardware prices as of)", "prices_as_of")  # by its label, never by its path
    assert any(w.startswith("**Negative NPV.**") for w in warnings)
    assert not any(w.startswith(("**Covenant breach.**", *book)) for w in warnings)
    links = [(link.proto.page, link.proto.label) for link in at.get("page_link")]
    assert links[:1] == [("pricing", "Why: Pricing & revenue →")]
