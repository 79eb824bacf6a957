"""AppTest of the Stress test page: it runs, a small Monte Carlo shows its percentiles, bad input shows st.error."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import metric as _metric
from conftest import page_path, run_page
from streamlit.testing.v1 import AppTest
from test_user_text import shown  # Markdown as it reads on screen

import neoplan
from neoplan import stress
from neoplan.formats import parse_number
from neoplan.scenario import scenario_json
from ui import format as fmt

PAGE = page_path("stress_test")
DRAWS = 500
TAB = "stress.tab"
TORNADO, GRID, MC, SOLVERS = (
    "Tornado: one at a time",
    "Grid: two at a time",
    "Monte Carlo: all at once",
    "Break-even solvers",
)


def _submit(at: AppTest, widget: Any, value: Any, button: str) -> None:
    """Type ``value`` into a widget of one of the page's forms and press the form's button (ranges or Monte Carlo)."""
    if hasattr(widget, "input"):  # a text field: numbers are typed
        widget.input(str(value))
    else:
        widget.set_value(value)
    at.button(key=button).click().run()


OPEN = {"stress.drivers_open": True, "stress.tornado_table_open": True}
"""The drivers' and the tornado table's expanders open (closed, they draw nothing)."""


def _page(draws: int = DRAWS, **state: object) -> AppTest:
    return run_page(PAGE, 90, **{"stress.draws": str(draws), **OPEN, **state})


def _mc_table(at: AppTest):  # type: ignore[no-untyped-def]
    for frame in at.dataframe:
        if "P50" in frame.value.columns:
            return frame.value.set_index("Metric")
    raise AssertionError("no Monte Carlo table")


def _open(at: AppTest, tab: str) -> AppTest:
    """Open one of the page's tabs (only the open tab runs and draws its figures)."""
    at.session_state[TAB] = tab
    at.run()
    return at


def test_page_runs_with_every_section(optimized: neoplan.Result) -> None:
    at = _page()
    for tab, charts in ((TORNADO, 1), (GRID, 1), (MC, 2), (SOLVERS, 0)):  # histogram and CDF for the Monte Carlo
        _open(at, tab)
        assert not at.exception and not at.error, (tab, [e.value for e in at.error])
        assert len(at.get("plotly_chart")) == charts, tab
    assert _metric(at, "Price for 20.0 % equity IRR")  # the solvers' tab shows its answers
    assert _metric(at, "Equity IRR") == fmt.pct(optimized.kpis["equity_irr"])
    assert _metric(at, "Break-even") == fmt.usd_per_gpu_hour(optimized.kpis["breakeven_usd_per_gpu_hour"])


def test_small_monte_carlo_shows_p10_p50_p90(optimized: neoplan.Result) -> None:
    at = _page(**{TAB: MC})
    table = _mc_table(at)
    assert list(table.columns[:3]) == ["P10", "P50", "P90"]
    mc = stress.monte_carlo(optimized, draws=DRAWS, seed=0)
    expected = mc.percentiles("equity_irr")
    assert [table.loc["Equity IRR", k.upper()] for k in expected] == [fmt.pct(v) for v in expected.values()]
    assert table.loc["NPV", "P50"] == fmt.usd(mc.percentiles("npv_usd")["p50"])
    loss, breach = mc.probability_of_loss, mc.probability_dscr_breach  # each ± its standard error
    assert _metric(at, "Probability of loss") == f"{fmt.pct(loss)} ± {fmt.pct(mc.probability_error(loss))}"
    covenant = optimized.scenario.financing.covenant_dscr  # the scenario's covenant by default
    assert _metric(at, f"Covenant breach (DSCR < {covenant:.2f}×)") == (
        f"{fmt.pct(breach)} ± {fmt.pct(mc.probability_error(breach))}"
    )
    errors = mc.percentile_errors("npv_usd")
    assert table.loc["NPV", "± SE P50"] == fmt.usd(errors["p50"])
    # where the scenario sits among the draws, per metric and in words
    for label, key in (("Equity IRR", "equity_irr"), ("NPV", "npv_usd")):
        assert table.loc[label, "Scenario sits at"] == f"P{mc.base_percentile(key):.0f}", label
    where = mc.base_percentile("equity_irr")
    assert any(f"at **P{where:.0f}** of the draws ({where:.0f} % of draws do worse)" in m.value for m in at.markdown)


def test_page_says_why_the_default_ranges_are_what_they_are() -> None:
    at = _page()
    reasons = next(f.value for f in at.dataframe if "Source" in f.value.columns).set_index("Driver")
    for spec in stress.DRIVERS.values():
        assert reasons.loc[spec.label, "Why"] == spec.why and reasons.loc[spec.label, "Source"] == spec.source
    assert reasons.loc["Utilization", "Default low"] == "75.0 %"  # ±10 points around 85 %


def test_the_run_shown_is_left_for_the_export_page() -> None:
    at = _page(**{TAB: MC})
    _submit(at, at.text_input(key="stress.seed"), 5, "stress.run_mc")
    scenario_text, settings = at.session_state["stress.export_settings"]
    assert scenario_text == scenario_json(neoplan.load_scenario("optimized"))
    assert (settings.draws, settings.seed, settings.grid_x, settings.grid_points) == (DRAWS, 5, "usd_per_gpu_hour", 21)
    assert settings.ranges == stress.default_ranges(neoplan.load_scenario("optimized"))


def test_new_seed_reruns_the_monte_carlo() -> None:
    at = _page(**{TAB: MC})
    before = _mc_table(at).loc["NPV"].tolist()
    _submit(at, at.text_input(key="stress.seed"), 3, "stress.run_mc")
    assert not at.exception and not at.error
    assert _mc_table(at).loc["NPV"].tolist() != before


def test_solvers_show_their_answers(optimized: neoplan.Result) -> None:
    at = _page(**{TAB: SOLVERS})
    price = stress.price_for_equity_irr(optimized, 0.20)
    assert _metric(at, "Price for 20.0 % equity IRR") == fmt.usd_per_gpu_hour(price.value)
    at.text_input(key="stress.target_irr").input(str(30.0)).run()
    assert _metric(at, "Price for 30.0 % equity IRR") == fmt.usd_per_gpu_hour(
        stress.price_for_equity_irr(optimized, 0.30).value
    )


def test_too_few_draws_shows_an_error() -> None:
    at = _page(draws=5, **{TAB: MC})
    assert any("draws must be a whole number" in shown(e.value) for e in at.error), [e.value for e in at.error]
    assert not any("P50" in f.value.columns for f in at.dataframe)


def test_inverted_range_shows_an_error_and_stops() -> None:
    at = _page()
    _submit(at, at.text_input(key="stress.low.utilization"), 99.0, "stress.apply_ranges")
    assert not at.exception
    messages = [shown(e.value) for e in at.error]
    assert any("Utilization: low (99.0 %) must be ≤ high (95.0 %)" in m for m in messages), messages
    assert len(at.get("plotly_chart")) == 0
    at.button(key="stress.reset").click().run()
    assert not at.error and len(at.get("plotly_chart")) == 1  # the open tab's tornado


def test_tornado_metric_switch() -> None:
    at = _page()
    at.radio(key="stress.tornado_metric").set_value("npv_usd").run()
    assert not at.exception and not at.error


# --- inside the app: leaving the page and coming back -----------------------------------------------------------------

APP = page_path("app")


def _app_on_stress_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    at.switch_page("pages/stress_test.py")
    at.session_state["stress.draws"] = str(DRAWS)
    for key, value in OPEN.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _tornado_table(at: AppTest):  # type: ignore[no-untyped-def]
    for frame in at.dataframe:
        if "Driver" in frame.value.columns and "Low" in frame.value.columns:
            return frame.value.set_index("Driver")
    raise AssertionError("no tornado table")


def test_ranges_and_results_survive_leaving_and_returning() -> None:
    at = _app_on_stress_page()
    _submit(at, at.text_input(key="stress.low.utilization"), 50.0, "stress.apply_ranges")  # typed in percent
    _submit(at, at.text_input(key="stress.high.capex_multiple"), 1.5, "stress.apply_ranges")
    _submit(at, at.selectbox(key="stress.dist.pue"), "uniform", "stress.apply_ranges")
    at.radio(key="stress.tornado_metric").set_value("npv_usd").run()
    tornado = _tornado_table(at)
    assert tornado.loc["Utilization", "Low"] == "50.0 %" and tornado.loc["Capex", "High"] == "1.50 ×"
    _open(at, GRID)
    at.selectbox(key="stress.grid_y").set_value("interest_rate").run()
    at.slider(key="stress.grid_points").set_value(11).run()
    _open(at, MC)
    _submit(at, at.text_input(key="stress.seed"), 3, "stress.run_mc")
    mc = _mc_table(at)
    _open(at, SOLVERS)
    at.text_input(key="stress.target_irr").input(str(25.0)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    price = _metric(at, "Price for 25.0 % equity IRR")

    for page in ("pages/overview.py", "pages/financing.py"):
        at.switch_page(page).run()
        assert not at.exception, at.exception
    at.switch_page("pages/stress_test.py").run()

    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state[TAB] == SOLVERS  # back on the tab it was left on
    assert _metric(at, "Price for 25.0 % equity IRR") == price
    assert parse_number(at.text_input(key="stress.low.utilization").value) == 50.0
    assert at.selectbox(key="stress.dist.pue").value == "uniform"
    _open(at, TORNADO)
    assert at.radio(key="stress.tornado_metric").value == "npv_usd" and _tornado_table(at).equals(tornado)
    _open(at, GRID)
    assert (at.selectbox(key="stress.grid_y").value, at.slider(key="stress.grid_points").value) == ("interest_rate", 11)
    _open(at, MC)
    assert parse_number(at.text_input(key="stress.seed").value) == 3 and _mc_table(at).equals(mc)
    assert len(at.get("plotly_chart")) == 2  # histogram and CDF


def test_a_new_scenario_resets_only_the_ranges_of_drivers_it_moved() -> None:
    at = _app_on_stress_page()
    _submit(at, at.text_input(key="stress.low.utilization"), 50.0, "stress.apply_ranges")
    at.switch_page("pages/pricing.py").run()
    at.text_input(key="w.pricing.usd_per_gpu_hour").input(str(3.2)).run()
    at.switch_page("pages/stress_test.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert parse_number(at.text_input(key="stress.low.usd_per_gpu_hour").value) == pytest.approx(
        0.75 * 3.2
    )  # around the new price
    assert parse_number(at.text_input(key="stress.low.utilization").value) == 50.0  # untouched driver: kept as typed


def test_out_of_bounds_range_names_the_driver_in_percent() -> None:
    at = _page()
    _submit(at, at.text_input(key="stress.high.utilization"), 120.0, "stress.apply_ranges")
    assert not at.exception
    messages = [shown(e.value) for e in at.error]
    assert any("Utilization: high must be between 0.0 % and 100.0 %, got 120.0 %" in m for m in messages), messages
    assert len(at.get("plotly_chart")) == 0


def test_closed_drivers_draw_no_field_and_keep_the_ranges_typed() -> None:
    at = _app_on_stress_page()
    _submit(at, at.text_input(key="stress.low.utilization"), 50.0, "stress.apply_ranges")
    typed = _tornado_table(at)
    assert typed.loc[stress.DRIVERS["utilization"].label, "Low"].startswith("50")
    at.session_state["stress.drivers_open"] = False
    at.run()
    assert not at.exception, at.exception
    assert not [w for w in at.text_input if str(w.key).startswith(("stress.low.", "stress.high."))]
    assert _tornado_table(at).equals(typed)  # the tornado still runs on the range typed while it was open
