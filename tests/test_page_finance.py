"""AppTest of the Financing, Pricing & revenue and Results pages, and the yearly roll-ups behind their tables.

Each page runs on its own (it reads the scenario from session state: the default preset on first run);
tests/test_app.py covers them inside the app's navigation once app.py lists them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import metric as _metric
from conftest import page_path, run_page
from plotly_support import drawn_charts
from streamlit.testing.v1 import AppTest
from test_user_text import shown  # Markdown as it reads on screen

import neoplan
from neoplan.charts.finance import debt_by_year, pnl_by_year, price_grid
from neoplan.economics import market, revenue
from neoplan.formats import parse_number
from ui import format as fmt
from ui.state import SCENARIO

FINANCING, PRICING, RESULTS = (page_path(p) for p in ("financing", "pricing", "results"))


def _page(path: str) -> AppTest:
    return run_page(path)


def _shorthand(path: str) -> AppTest:
    """The page on the optimized preset sold through the shorthand book (reserved share, on demand): its reserved
    fields are shown, its utilization typed (a contract book sets both)."""
    at = run_page(path)
    at.session_state[SCENARIO] = neoplan.load_scenario({"base": "optimized", "pricing": {"contracts": None}})
    at.run()
    assert not at.exception, at.exception
    return at


def _pct(text: str) -> float:
    """'−58.4 %' → -0.584."""
    return float(text.replace("−", "-").replace("%", "").replace(",", "").strip()) / 100


@pytest.mark.parametrize(
    ("path", "key", "tabs"),
    [
        (FINANCING, "financing.tab", ["Timeline", "Debt"]),
        (PRICING, "pricing.tab", ["Revenue", "IRR against price", "TCO"]),
        (RESULTS, "results.tab", ["TCO and the price path", "Cash flow", "Margins"]),
    ],
)
def test_page_runs_without_errors(path: str, key: str, tabs: list[str]) -> None:
    at = _page(path)
    for tab in tabs:  # only the open tab is drawn: one figure each
        at.session_state[key] = tab
        at.run()
        assert not at.exception and not at.error, (tab, [e.value for e in at.error])
        assert drawn_charts(at) == 1, tab


def test_results_kpis_equal_the_model(optimized: neoplan.Result) -> None:
    k = optimized.kpis
    expected = {
        "TCO / GPU-h": fmt.usd_per_gpu_hour(k["tco_usd_per_gpu_hour"]),
        "Break-even price": fmt.usd_per_gpu_hour(k["breakeven_usd_per_gpu_hour"]),
        "NPV": fmt.usd(k["npv_usd"]),
        "Project IRR": fmt.pct(k["project_irr"]),
        "Equity IRR": fmt.pct(k["equity_irr"]),
        "Payback": fmt.NA if not math.isfinite(k["payback_months"]) else f"{k['payback_months']:,.1f} months",
        "Min DSCR": f"{k['min_dscr']:,.2f}×",
        "Gross margin": fmt.pct(k["gross_margin"]),
        "EBITDA margin": fmt.pct(k["ebitda_margin"]),
        "Equity MOIC": f"{k['equity_moic']:,.2f}×",
    }
    at = _page(RESULTS)
    assert {label: _metric(at, label) for label in expected} == expected
    assert len(at.get("download_button")) == 1


def test_financing_kpis_equal_the_model(optimized: neoplan.Result) -> None:
    at = _page(FINANCING)
    assert _metric(at, "Equity IRR") == fmt.pct(optimized.kpis["equity_irr"])
    assert _metric(at, "NPV") == fmt.usd(optimized.kpis["npv_usd"])
    assert _metric(at, "Go-live") == f"month {optimized.kpis['go_live_month']:,.1f}"


def test_higher_headline_price_raises_equity_irr() -> None:
    at = _page(PRICING)
    before = _pct(_metric(at, "Equity IRR"))
    at.text_input(key="w.pricing.usd_per_gpu_hour").input(str(4.0)).run()
    assert not at.exception and not at.error
    assert _pct(_metric(at, "Equity IRR")) > before
    assert _metric(at, "Payback") != fmt.NA  # at $4.00 the optimized preset pays back within the horizon


def test_pinned_reserved_price_moves_returns_and_unpins() -> None:
    at = _shorthand(PRICING)
    before = _metric(at, "Equity IRR")
    assert at.text_input(key="w.pricing.reserved_usd_per_gpu_hour").disabled
    at.checkbox(key="w.pricing.reserved_usd_per_gpu_hour.pinned").check().run()
    assert _metric(at, "Equity IRR") == before  # pinned at the implied price: nothing moves yet
    at.text_input(key="w.pricing.reserved_usd_per_gpu_hour").input(str(3.0)).run()
    assert _pct(_metric(at, "Equity IRR")) > _pct(before)
    at.checkbox(key="w.pricing.reserved_usd_per_gpu_hour.pinned").uncheck().run()
    assert _metric(at, "Equity IRR") == before
    assert not at.exception and not at.error


def test_higher_interest_rate_lowers_equity_irr() -> None:
    at = _page(FINANCING)
    before = _pct(_metric(at, "Equity IRR"))
    at.text_input(key="w.financing.interest_rate").input(str(15.0)).run()  # percent
    assert not at.exception and not at.error
    assert _pct(_metric(at, "Equity IRR")) < before


def test_out_of_range_interest_rate_shows_error_and_keeps_last_good_scenario() -> None:
    at = _page(FINANCING)
    before = _metric(at, "Equity IRR")
    at.text_input(key="w.financing.interest_rate").input(str(200.0)).run()
    assert not at.exception
    messages = [shown(e.value) for e in at.error]
    assert "Interest rate [% per year] must be between 0 and 100 %, got 200.0 %; kept 11.0 %" in messages, messages
    assert at.text_input(key="w.financing.interest_rate").value == "11.0"  # springs back to the last good value
    assert _metric(at, "Equity IRR") == before


def test_pnl_by_year_adds_up_to_the_model(optimized: neoplan.Result) -> None:
    pnl = pnl_by_year(optimized)
    years = pnl.drop(index="Total")
    assert len(years) == 6  # 72-month horizon
    total = pnl.loc["Total"]
    assert total["gross_margin"] == pytest.approx(optimized.kpis["gross_margin"])
    assert total["ebitda_margin"] == pytest.approx(optimized.kpis["ebitda_margin"])
    assert total["revenue_usd"] == pytest.approx(optimized.ops.cash.revenue.sum())
    assert total["project_fcf_usd"] == pytest.approx(optimized.ops.cash.project_fcf.sum())
    steps = ["ebit_usd", "interest_usd", "fees_usd", "gain_on_sale_usd", "tax_usd"]
    np.testing.assert_allclose(years[steps].sum(axis=1), years["net_income_usd"], atol=0.01)
    np.testing.assert_allclose(
        years["revenue_usd"] + years["cost_of_revenue_usd"] + years["other_opex_usd"], years["ebitda_usd"], atol=0.01
    )


def test_debt_by_year_repays_what_was_borrowed(optimized: neoplan.Result) -> None:
    debt = debt_by_year(optimized)
    total = debt.loc["Total"]
    borrowed = total["draws_usd"] + total["interest_capitalized_usd"]
    repaid = total["principal_usd"] + total["cash_sweep_usd"] + total["sweep_usd"] + total["payoff_usd"]
    assert repaid == pytest.approx(borrowed)
    assert debt["balance_end_usd"].iloc[-1] == pytest.approx(0.0, abs=1e-6)
    assert total["draws_usd"] == pytest.approx(optimized.debt_usd)  # sized on the contracts at close


def test_price_grid_brackets_breakeven_and_headline(optimized: neoplan.Result) -> None:
    grid = price_grid(optimized)
    assert grid.size == 41
    for price in (optimized.kpis["breakeven_usd_per_gpu_hour"], optimized.scenario.pricing.usd_per_gpu_hour):
        assert grid[0] < price < grid[-1]


def _scenario(at: AppTest) -> neoplan.Scenario:
    return at.session_state[SCENARIO]


@pytest.mark.parametrize(
    ("path", "key", "shown_before", "typed", "stored"),
    [
        (FINANCING, "financing.interest_rate", 11.0, 9.0, 0.09),
        (FINANCING, "financing.max_debt_share", 65.0, 45.0, 0.45),
        (FINANCING, "financing.upfront_fee_rate", 2.0, 1.5, 0.015),
        (FINANCING, "financing.credit_spread", 0.0, 6.5, 0.065),
        (PRICING, "pricing.utilization", 85.0, 70.0, 0.70),
        (PRICING, "pricing.sla_credit_share", 1.0, 0.5, 0.005),
    ],
)
def test_rates_are_typed_in_percent(path: str, key: str, shown_before: float, typed: float, stored: float) -> None:
    at = _shorthand(path)
    widget = at.text_input(key=f"w.{key}")
    assert parse_number(widget.value) == pytest.approx(shown_before) and "%" in widget.label
    assert "Allowed: 0 to " in widget.help and widget.help.endswith(" %.")
    widget.input(str(typed)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    section, field = key.split(".")
    assert getattr(getattr(_scenario(at), section), field) == pytest.approx(stored, abs=1e-12)
    assert parse_number(at.text_input(key=f"w.{key}").value) == pytest.approx(typed)


def test_market_data_switches_fill_the_reserved_multiple_and_the_decline_until_unticked() -> None:
    """The reserved multiple and the price decline come from the market data (fields empty) until the user unticks
    the switch; the number then becomes the scenario's own, starting at what the data gave."""
    at = _shorthand(PRICING)
    scenario = _scenario(at)
    assert scenario.pricing.reserved_price_multiple is None and scenario.pricing.price_decline_per_year is None
    decline = at.text_input(key="w.pricing.price_decline_per_year")
    assert decline.disabled and decline.value == ""  # empty: the data gives it, shown as the placeholder
    go_live = revenue.dates(scenario.timeline).go_live_month
    data_decline = market.scenario_average_decline(scenario, go_live)  # the Hopper curve of 2024-10, live 2025-02
    assert decline.placeholder == f"{100 * data_decline:.1f} from the data"
    multiple = at.text_input(key="w.pricing.reserved_price_multiple")
    data_multiple = market.reserved_multiple(scenario)  # the 24-month contract of the 2024-10 market
    assert multiple.disabled and multiple.placeholder == f"{data_multiple:.3f} from the data"
    npv = at.session_state[SCENARIO]
    at.checkbox(key="w.pricing.price_decline_per_year.from_data").uncheck().run()
    assert not at.exception and _scenario(at).pricing.price_decline_per_year == pytest.approx(data_decline, abs=1e-6)
    at.text_input(key="w.pricing.price_decline_per_year").input("20.0").run()
    assert _scenario(at).pricing.price_decline_per_year == pytest.approx(0.20)
    at.checkbox(key="w.pricing.price_decline_per_year.from_data").check().run()
    assert _scenario(at).pricing.price_decline_per_year is None
    at.checkbox(key="w.pricing.reserved_price_multiple.from_data").uncheck().run()
    at.text_input(key="w.pricing.reserved_price_multiple").input("0.9").run()
    assert _scenario(at).pricing.reserved_price_multiple == pytest.approx(0.9) and npv is not None
    assert not at.exception and not at.error


def test_every_percent_field_on_the_money_pages_is_a_fraction_of_the_model() -> None:
    for path in (FINANCING, PRICING):
        at = _page(path)
        for widget in at.text_input:
            if "%" in widget.label:
                assert widget.help and "Allowed:" in widget.help and widget.help.endswith("%."), widget.label


def test_lender_view_shows_the_model_and_sculpting_sizes_the_debt() -> None:
    # at $4.00 a sculpted loan reaches its 1.30× target (at the 2024-10 preset's own $2.99 its CFADS cannot)
    paying = neoplan.load_scenario({"base": "optimized", "pricing": {"usd_per_gpu_hour": 4.0}})
    at = _page(FINANCING)
    at.session_state[SCENARIO] = paying
    at.run()
    result = neoplan.evaluate(paying)
    d = result.to_dict()
    assert _metric(at, "LLCR") == fmt.ratio(d["llcr"])
    assert _metric(at, "Covenant headroom") == fmt.pct(d["covenant_headroom"])
    assert _metric(at, "Debt drawn") == fmt.usd(d["debt_usd"])
    assert _metric(at, "Covenant breaches") == "0" and _metric(at, "Months locked up") == fmt.months(0.0)
    frame = next(df.value for df in at.dataframe if "Headroom to covenant" in df.value.columns)
    assert len(frame) == len(result.dscr_by_year()["dscr"]) == 3  # repaid as the three-year contracts pay
    assert (frame["DSCR"] >= result.scenario.financing.target_dscr - 1e-9).all()
    assert any("compounding monthly" in c.value for c in at.caption)
    assert any("Lent" in shown(c.value) and "sculpted to 1.30×" in shown(c.value) for c in at.caption)
    assert any("2 tests in a row" in shown(m.value) for m in at.markdown)  # the waterfall's rules, stated
    at.selectbox(key="w.financing.sizing").set_value("capex_share").run()
    at.selectbox(key="w.financing.amortization").set_value("sculpted").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    sculpted = _scenario(at)
    assert sculpted.financing.amortization == "sculpted" and sculpted.financing.sizing == "capex_share"
    assert _metric(at, "Min DSCR") == fmt.ratio(sculpted.financing.target_dscr)  # sized down to the target
    assert _pct(_metric(at, "Covenant headroom")) == pytest.approx(1 - 1.2 / 1.3, abs=0.001)
    drawn = float(_metric(at, "Debt drawn").replace("$", "").replace("M", "").replace(",", ""))
    assert drawn * 1e6 < 0.6 * result.capex_total_usd


def test_tranches_and_phases_are_edited_as_tables() -> None:
    at = _page(FINANCING)
    at.session_state["financing.tranches_open"] = True
    at.session_state["financing.phases_open"] = True
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Tranches, most senior first" in m.value for m in at.markdown)
    assert any(m.value.startswith("**Phases**") for m in at.markdown)


def test_the_financing_page_shows_the_lenders_conventions_and_the_new_inputs(optimized: neoplan.Result) -> None:
    at = _page(FINANCING)
    captions = " ".join(c.value for c in at.caption)
    assert "Prepayments (the cash sweep, sale proceeds) leave the installments as they are" in captions
    assert "fixed at financial close" in captions
    assert _metric(at, "Equity MIRR") == fmt.pct(optimized.kpis["equity_mirr"])
    assert _metric(at, "Equity NPV") == fmt.usd(optimized.kpis["equity_npv_usd"])
    residual = at.text_input(key="w.timeline.residual_value_share")
    assert residual.value == ""  # empty: the platform's resale curve
    residual.input("20").run()
    assert _scenario(at).timeline.residual_value_share == pytest.approx(0.2)
    life = at.text_input(key="w.financing.tax_life_months")
    assert life.value == ""  # empty: the useful life
    life.input("96").run()
    assert _scenario(at).financing.tax_life_months == 96
    at.selectbox(key="w.financing.tax_depreciation").set_value("macrs_5").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "w.financing.tax_life_months" not in {w.key for w in at.text_input}  # MACRS fixes its own life
    at.text_input(key="w.financing.dsra_months").input("6").run()
    at.selectbox(key="w.financing.sizing").set_value("contracted_revenue").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    fin = _scenario(at).financing
    assert (fin.tax_depreciation, fin.dsra_months, fin.sizing) == ("macrs_5", 6, "contracted_revenue")
    cover = next(df.value for df in at.dataframe if "Headroom to covenant" in df.value.columns)
    assert "LLCR at the period's start" in cover.columns


def test_the_financing_page_sets_the_tax_period_and_the_capex_timing() -> None:
    """Tax years by default; each month on its own, then mid-month capex: the scenario takes them, the KPIs follow
    the model (NPV falls with capex paid half a month earlier) and the page shows no error."""
    at = _page(FINANCING)
    captions = " ".join(c.value for c in at.caption)
    assert "Tax years net a month's loss against the same year's profits" in captions
    assert "unless it is paid mid-month" in captions
    tax = at.selectbox(key="w.financing.tax_period_months")
    assert tax.value == 12 and tax.options == ["Tax years", "Each month"]  # short: whole in the field at 1,280 px
    tax.set_value(1).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    monthly = _scenario(at)
    assert monthly.financing.tax_period_months == 1
    assert _metric(at, "NPV") == fmt.usd(neoplan.evaluate(monthly).kpis["npv_usd"])
    timing = at.selectbox(key="w.timeline.capex_timing")
    assert timing.value == "end_of_month"
    timing.set_value("mid_month").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    mid = _scenario(at)
    assert mid.timeline.capex_timing == "mid_month"
    kpis = neoplan.evaluate(mid).kpis
    assert (
        _metric(at, "NPV") == fmt.usd(kpis["npv_usd"]) and kpis["npv_usd"] < neoplan.evaluate(monthly).kpis["npv_usd"]
    )
