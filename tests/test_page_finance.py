"""AppTest of the Financing, Pricing & revenue and Results pages, and the yearly roll-ups behind their tables.

Each page runs on its own (it reads the scenario from session state: the default preset on first run);
tests/test_app.py covers them inside the app's navigation once app.py lists them.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import neoplan
from neoplan.charts.finance import debt_by_year, pnl_by_year, price_grid
from ui import format as fmt

ROOT = Path(__file__).resolve().parent.parent
FINANCING, PRICING, RESULTS = (str(ROOT / "pages" / f"{p}.py") for p in ("financing", "pricing", "results"))


@pytest.fixture(scope="module")
def optimized() -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario("optimized"))


def _page(path: str) -> AppTest:
    at = AppTest.from_file(path, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def _metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r} among {[m.label for m in at.metric]}")


def _pct(text: str) -> float:
    """'−58.4 %' → -0.584."""
    return float(text.replace("−", "-").replace("%", "").replace(",", "").strip()) / 100


@pytest.mark.parametrize(("path", "charts"), [(FINANCING, 2), (PRICING, 3), (RESULTS, 3)])
def test_page_runs_without_errors(path: str, charts: int) -> None:
    at = _page(path)
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == charts


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
    at.number_input(key="w.pricing.usd_per_gpu_hour").set_value(4.0).run()
    assert not at.exception and not at.error
    assert _pct(_metric(at, "Equity IRR")) > before
    assert _metric(at, "Payback") != fmt.NA  # at $4.00 the optimized preset pays back within the horizon


def test_pinned_reserved_price_moves_returns_and_unpins() -> None:
    at = _page(PRICING)
    before = _metric(at, "Equity IRR")
    assert at.number_input(key="w.pricing.reserved_usd_per_gpu_hour").disabled
    at.checkbox(key="w.pricing.reserved_usd_per_gpu_hour.pinned").check().run()
    assert _metric(at, "Equity IRR") == before  # pinned at the implied price: nothing moves yet
    at.number_input(key="w.pricing.reserved_usd_per_gpu_hour").set_value(3.0).run()
    assert _pct(_metric(at, "Equity IRR")) > _pct(before)
    at.checkbox(key="w.pricing.reserved_usd_per_gpu_hour.pinned").uncheck().run()
    assert _metric(at, "Equity IRR") == before
    assert not at.exception and not at.error


def test_higher_interest_rate_lowers_equity_irr() -> None:
    at = _page(FINANCING)
    before = _pct(_metric(at, "Equity IRR"))
    at.number_input(key="w.financing.interest_rate").set_value(0.15).run()
    assert not at.exception and not at.error
    assert _pct(_metric(at, "Equity IRR")) < before


def test_out_of_range_interest_rate_shows_error_and_keeps_last_good_scenario() -> None:
    at = _page(FINANCING)
    before = _metric(at, "Equity IRR")
    at.number_input(key="w.financing.interest_rate").set_value(2.0).run()
    assert not at.exception
    assert any("financing.interest_rate" in e.value for e in at.error), [e.value for e in at.error]
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
    assert total["principal_usd"] + total["payoff_usd"] == pytest.approx(borrowed)
    assert debt["balance_end_usd"].iloc[-1] == pytest.approx(0.0, abs=1e-6)
    assert total["draws_usd"] == pytest.approx(0.6 * optimized.capex_total_usd)


def test_price_grid_brackets_breakeven_and_headline(optimized: neoplan.Result) -> None:
    grid = price_grid(optimized)
    assert grid.size == 41
    for price in (optimized.kpis["breakeven_usd_per_gpu_hour"], optimized.scenario.pricing.usd_per_gpu_hour):
        assert grid[0] < price < grid[-1]
