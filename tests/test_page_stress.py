"""AppTest of the Stress test page: it runs, a small Monte Carlo shows its percentiles, bad input shows st.error."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest
from conftest import metric as _metric
from conftest import page_path, run_page
from streamlit.testing.v1 import AppTest
from test_user_text import shown  # Markdown as it reads on screen
from vega_support import drawn_charts, drawn_specs

import neoplan
from neoplan.analysis import stress
from neoplan.charts import stress as stress_charts
from neoplan.formats import parse_number
from neoplan.inputs.loading import scenario_json
from ui import format as fmt
from ui.state import PAGE_STATE, SCENARIO, STRESS_RUN

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
        assert drawn_charts(at) == charts, tab
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


def _left_for_export(at: AppTest) -> stress.Settings:
    """The stress run the page left for the exports (read as the Export page reads it)."""
    kept = at.session_state[PAGE_STATE][STRESS_RUN]
    assert kept["scenario"] == hashlib.sha256(scenario_json(at.session_state[SCENARIO]).encode()).hexdigest()
    data = dict(kept["settings"])
    ranges = {k: stress.Range(**r) for k, r in data.pop("ranges").items()}
    return stress.Settings(ranges=ranges, **data)


def test_the_run_shown_is_left_for_the_export_page() -> None:
    at = _page(**{TAB: MC})
    _submit(at, at.text_input(key="stress.seed"), 5, "stress.run_mc")
    settings = _left_for_export(at)
    assert (settings.draws, settings.seed, settings.grid_x, settings.grid_points) == (DRAWS, 5, "usd_per_gpu_hour", 21)
    assert settings.ranges == stress.default_ranges(neoplan.load_scenario("optimized"))
    assert settings.run == "the run on the Stress test page"


def test_a_power_sized_plans_run_is_left_for_the_export_page_too() -> None:
    """Issue 34: after a Monte Carlo of a plan sized by power, the exports used 10,000 draws and seed 0 without a
    word: the run was kept under the sized scenario, the Export page looked under the one entered."""
    at = run_page(page_path("app"))
    at.toggle(key="w.cluster.size_by").set_value(True).run()  # plan from power: 1.4 MW, the design's peak rounded up
    assert at.session_state[SCENARIO].cluster.size_by == "power"
    for key, value in {"stress.draws": str(DRAWS), TAB: MC, **OPEN}.items():
        at.session_state[key] = value
    at.switch_page(PAGE).run()
    _submit(at, at.text_input(key="stress.seed"), 1, "stress.run_mc")
    assert any(f"{DRAWS:,} draws, seed 1" in c.value for c in at.caption)
    settings = _left_for_export(at)
    assert (settings.draws, settings.seed) == (DRAWS, 1)
    at.switch_page(page_path("export")).run()
    assert not at.exception and not at.error
    said = [shown(c.value) for c in at.caption]
    assert any(f"the run on the Stress test page: {DRAWS:,} Monte Carlo draws, seed 1" in c for c in said), said


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
    assert drawn_charts(at) == 0
    at.button(key="stress.reset").click().run()
    assert not at.error and drawn_charts(at) == 1  # the open tab's tornado


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
    assert drawn_charts(at) == 2  # histogram and CDF


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
    assert drawn_charts(at) == 0


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


# --- the charts' specs -------------------------------------------------------------------------------------------


def _layers(spec: dict[str, Any], mark: str) -> list[dict[str, Any]]:
    return [layer for layer in spec["layer"] if layer["mark"]["type"] == mark]


def test_page_draws_the_stress_charts_as_vega_lite() -> None:
    """Every chart of the page is a Vega-Lite spec, titled as its figure function titles it."""
    at = _page()
    for tab, titles in (
        (TORNADO, ["Equity IRR: one driver at a time"]),
        (GRID, ["Equity IRR over two drivers"]),
        (MC, ["Equity IRR: ", "Equity IRR: cumulative share"]),
    ):
        _open(at, tab)
        drawn = [s["title"]["text"] for s in drawn_specs(at)]
        assert len(drawn) == len(titles) and all(d.startswith(t) for d, t in zip(drawn, titles, strict=True)), drawn


def test_tornado_bars_run_from_the_scenario_to_each_driver_value(optimized: neoplan.Result) -> None:
    """Each bar spans the scenario's value to the metric with one driver moved, low in orange and high in green,
    the largest swing on top, the scenario's value as a line; each bar labelled with the driver's value."""
    torn = stress.tornado(optimized)
    spec = stress_charts.tornado_figure(torn, "npv_usd")
    base = torn.base["npv_usd"]
    (bars,) = _layers(spec, "bar")
    records = torn.records("npv_usd")
    assert bars["encoding"]["y"]["sort"] == [r["label"] for r in records]
    assert bars["encoding"]["x2"] == {"datum": pytest.approx(base)}
    assert bars["encoding"]["color"]["scale"] == {
        "domain": ["Driver at low", "Driver at high"],
        "range": [stress_charts.LOW, stress_charts.HIGH],
    }
    got = {(v["driver"], v["side"]): v["value"] for v in bars["data"]["values"]}
    for r in records:
        assert got[r["label"], "Driver at low"] == pytest.approx(r["metric_at_low"])
        assert got[r["label"], "Driver at high"] == pytest.approx(r["metric_at_high"])
    labels = sorted((v["driver"], v["at"]) for layer in _layers(spec, "text") for v in layer["data"]["values"])
    assert len(labels) == 2 * len(records)
    (line,) = _layers(spec, "rule")
    assert line["encoding"]["x"]["datum"] == pytest.approx(base)
    assert "base" in spec["title"]["text"]


def test_grid_writes_each_value_and_marks_the_break_even_between_cells(optimized: neoplan.Result) -> None:
    """One cell per grid point holding the metric (written in it too); the break-even segments lie exactly on the
    sides shared by a cell of NPV >= 0 and a neighbour of NPV < 0, and every such side has one."""
    grid = stress.grid(optimized, points=9)
    spec = stress_charts.grid_figure(grid, "equity_irr")
    (heat,) = _layers(spec, "rect")
    cells = heat["data"]["values"]
    assert len(cells) == 81
    z = grid.metrics["equity_irr"]
    by_point = {(c["x"], c["y"]): c for c in cells}
    for iy, y in enumerate(grid.y):
        for ix, x in enumerate(grid.x):
            cell = by_point[float(x), float(y)]
            assert cell["z"] == pytest.approx(z[iy, ix]) and cell["x0"] < x < cell["x1"] and cell["y0"] < y < cell["y1"]
    (written,) = _layers(spec, "text")
    assert len(written["data"]["values"]) == 81 and written["encoding"]["text"]["field"] == "z"
    npv = grid.metrics["npv_usd"]
    assert npv.min() < 0 < npv.max()  # the case has a break-even line
    sides = set()
    for iy in range(9):
        for ix in range(9):
            cell = by_point[float(grid.x[ix]), float(grid.y[iy])]
            if ix + 1 < 9 and (npv[iy, ix] < 0) != (npv[iy, ix + 1] < 0):
                sides.add((cell["x1"], cell["y0"], cell["x1"], cell["y1"]))
            if iy + 1 < 9 and (npv[iy, ix] < 0) != (npv[iy + 1, ix] < 0):
                sides.add((cell["x0"], cell["y1"], cell["x1"], cell["y1"]))
    (line,) = [r for r in _layers(spec, "rule") if "strokeDash" in r["encoding"]]
    drawn = {(s["x"], s["y"], s["x2"], s["y2"]) for s in line["data"]["values"]}
    assert drawn == sides and sides
    assert {s["line"] for s in line["data"]["values"]} == {"Break-even (NPV = 0)"}
    (point,) = _layers(spec, "point")
    assert point["data"]["values"] == [
        {"x": grid.base_values[grid.x_driver], "y": grid.base_values[grid.y_driver], "point": "This scenario"}
    ]


def test_grid_without_a_sign_change_draws_no_break_even(optimized: neoplan.Result) -> None:
    grid = stress.grid(optimized, x_values=np.array([3.9, 4.0]), y_values=np.array([0.9, 0.95]))
    assert (grid.metrics["npv_usd"] > 0).all()
    assert not _layers(stress_charts.grid_figure(grid, "npv_usd"), "rule")


def test_histogram_shares_and_percentile_lines(optimized: neoplan.Result) -> None:
    """The bins hold every defined draw once (shares add up to 100 %), in equal round widths; P10/P50/P90 and the
    scenario are lines at their values with their labels."""
    mc = stress.monte_carlo(optimized, draws=400, seed=3)
    spec = stress_charts.histogram_figure(mc, "equity_irr")
    (bars,) = _layers(spec, "rect")
    bins = bars["data"]["values"]
    values = mc.metrics["equity_irr"]
    defined = values[np.isfinite(values)]
    assert sum(b["share"] for b in bins) == pytest.approx(100.0)
    widths = {round(b["x1"] - b["x0"], 12) for b in bins}
    assert len(widths) == 1 and bins[0]["x0"] <= defined.min() and bins[-1]["x1"] >= defined.max()
    assert 30 <= len(bins) <= 120
    lines = {layer["encoding"]["text"]["value"]: layer["encoding"]["x"]["datum"] for layer in _layers(spec, "text")}
    for key, value in mc.percentiles("equity_irr").items():
        assert lines[key.upper()] == pytest.approx(value)
    where = mc.base_percentile("equity_irr")
    assert lines[f"scenario (P{where:.0f})"] == pytest.approx(mc.deterministic["equity_irr"])
    cdf = stress_charts.cdf_figure(mc, "equity_irr")
    (curve,) = _layers(cdf, "line")
    x, share = mc.cdf("equity_irr")
    assert [p["x"] for p in curve["data"]["values"]] == pytest.approx(list(x))  # 400 draws: every one drawn
    assert [p["share"] for p in curve["data"]["values"]] == pytest.approx(list(share))
    assert curve["encoding"]["y"]["scale"] == {"domain": [0, 1]}


def test_tornado_of_an_undefined_base_says_so(optimized: neoplan.Result) -> None:
    """The optimized preset never pays back: no bars to draw from an undefined base, a note instead."""
    torn = stress.tornado(optimized)
    assert not np.isfinite(torn.base["payback_months"])
    spec = stress_charts.tornado_figure(torn, "payback_months")
    assert not _layers(spec, "bar") and "undefined" in _layers(spec, "text")[0]["encoding"]["text"]["value"]


def test_tornado_labels_write_a_minus_sign(optimized: neoplan.Result) -> None:
    """A negative driver value reads "−3.4 %" (U+2212), as every number in the app, never "-3.4 %"."""
    spec = stress_charts.tornado_figure(stress.tornado(optimized), "equity_irr")
    labels = [
        row[layer["encoding"]["text"]["field"]] for layer in _layers(spec, "text") for row in layer["data"]["values"]
    ]
    assert labels and not [t for t in labels if t.startswith("-")]
    assert any(t.startswith("\u2212") for t in labels), labels  # the case has a negative driver value
