"""AppTest of the Stress test page: it runs, a small Monte Carlo shows its percentiles, bad input shows st.error."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest
from conftest import metric as _metric
from conftest import page_path, run_page
from plotly_support import drawn_charts, drawn_titles, traces, traces_by_name
from streamlit.testing.v1 import AppTest
from test_user_text import shown  # Markdown as it reads on screen

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
    assert _metric(at, f"Min DSCR < {covenant:.2f}×") == f"{fmt.pct(breach)} ± {fmt.pct(mc.probability_error(breach))}"
    for label, key in (
        ("Covenant breach", "probability_covenant_breach"),
        ("Lock-up", "probability_lockup"),
        ("Payment default", "probability_payment_default"),
    ):  # the waterfall's events, each ± its standard error
        p = mc.probabilities()[key]
        assert _metric(at, label) == f"{fmt.pct(p)} ± {fmt.pct(mc.probability_error(p))}"
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
    assert reasons.loc["Utilization", "Default low"] == "80.0 %"  # ±10 points around the book's 90 %


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
    defaults = stress.default_ranges(neoplan.evaluate(neoplan.load_scenario("optimized")))
    assert settings.ranges.keys() == defaults.keys()
    for key, rng in defaults.items():  # the page shows them in percent and reads them back
        got = settings.ranges[key]
        assert (got.low, got.high, got.distribution) == (
            pytest.approx(rng.low),
            pytest.approx(rng.high),
            rng.distribution,
        )
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
    _submit(at, at.text_input(key="stress.high.utilization"), 70.0, "stress.apply_ranges")
    assert not at.exception
    messages = [shown(e.value) for e in at.error]
    assert any("Utilization: low (80.0 %) must be ≤ high (70.0 %)" in m for m in messages), messages
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


# --- the charts --------------------------------------------------------------------------------------------------


def test_page_draws_the_stress_charts_in_plotly() -> None:
    """Every chart of the page is a plotly figure, titled as its figure function titles it."""
    at = _page()
    for tab, titles in (
        (TORNADO, ["Equity IRR: one driver at a time"]),
        (GRID, ["Equity IRR over two drivers"]),
        (MC, ["Equity IRR: ", "Equity IRR: cumulative share"]),
    ):
        _open(at, tab)
        drawn = drawn_titles(at)
        assert len(drawn) == len(titles) and all(d.startswith(t) for d, t in zip(drawn, titles, strict=True)), drawn


def test_tornado_bars_run_from_the_scenario_to_each_driver_value(optimized: neoplan.Result) -> None:
    """Each bar starts at the scenario's value and ends at the metric with one driver moved, low in orange and high
    in green, the largest swing on top, the scenario's value as a line; each bar labelled with the driver's value."""
    torn = stress.tornado(optimized)
    fig = stress_charts.tornado_figure(torn, "npv_usd")
    base = torn.base["npv_usd"]
    drawn = traces_by_name(fig)
    records = torn.records("npv_usd")
    low, high = drawn["Driver at low"], drawn["Driver at high"]
    assert low["y"] == [r["label"] for r in reversed(records)]  # plotly draws the first category at the bottom
    assert (low["marker"]["color"], high["marker"]["color"]) == (stress_charts.LOW, stress_charts.HIGH)
    assert low["base"] == pytest.approx(base) and high["base"] == pytest.approx(base)
    for r, lo, hi in zip(reversed(records), low["x"], high["x"], strict=True):
        assert base + lo == pytest.approx(r["metric_at_low"], rel=1e-12)
        assert base + hi == pytest.approx(r["metric_at_high"], rel=1e-12)
    assert len(low["text"]) == len(high["text"]) == len(records)
    (line,) = [s for s in fig.layout.shapes if s.type == "line"]
    assert line.x0 == line.x1 == pytest.approx(base)
    assert "base" in fig.layout.title.text


def _near_break_even() -> dict[str, object]:
    """The optimized preset on the shorthand book (whose ``pricing.utilization`` is the grid's utilization driver;
    a named book sets its use by its shares) priced 5 % under its own break-even, so the default ±25 % price axis
    crosses NPV = 0 (whatever the market and financing defaults make that break-even)."""
    shorthand = {"base": "optimized", "pricing": {"contracts": None}}
    breakeven = neoplan.evaluate(neoplan.load_scenario(shorthand)).kpis["breakeven_usd_per_gpu_hour"]
    assert breakeven is not None
    return {"base": "optimized", "pricing": {"contracts": None, "usd_per_gpu_hour": round(0.95 * breakeven, 2)}}


@pytest.fixture(scope="module")
def near() -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario(_near_break_even()))


def test_grid_is_a_contour_of_the_metric_with_the_break_even_line(near: neoplan.Result) -> None:
    """The metric as a contour over both drivers (labelled levels), the break-even line plotly's own contour of NPV
    at the single level 0 (no smoothing), and the scenario's point."""
    grid = stress.grid(near, points=9)
    fig = stress_charts.grid_figure(grid, "equity_irr")
    surface, line, point = traces(fig)
    assert surface["type"] == line["type"] == "contour"
    np.testing.assert_array_equal(np.array(surface["z"], dtype=float), grid.metrics["equity_irr"])
    assert surface["x"] == pytest.approx(list(grid.x)) and surface["y"] == pytest.approx(list(grid.y))
    assert surface["contours"]["showlabels"] and surface["contours"]["coloring"] == "heatmap"
    np.testing.assert_array_equal(np.array(line["z"], dtype=float), grid.metrics["npv_usd"])
    assert line["contours"] == {"type": "constraint", "operation": "=", "value": 0.0}
    assert line["line"]["smoothing"] == 0 and line["name"] == "Break-even (NPV = 0)"
    assert (point["x"], point["y"]) == ([grid.base_values[grid.x_driver]], [grid.base_values[grid.y_driver]])
    assert len(surface["customdata"]) == 9 and all(len(row) == 9 for row in surface["customdata"])


def _crossings(x: np.ndarray, npv: np.ndarray) -> list[float]:
    """Where the break-even contour crosses a grid row: plotly's marching squares puts a contour point on every cell
    side whose two corners straddle the level, linearly interpolated between them (and draws straight segments
    between such points, ``line.smoothing`` 0); along a row those sides are the row's own segments."""
    out = []
    for i in range(x.size - 1):
        a, b = npv[i], npv[i + 1]
        if (a < 0) != (b < 0):
            out.append(float(x[i] + (0.0 - a) * (x[i + 1] - x[i]) / (b - a)))
    return out


BREAKEVEN_TOL_USD = 0.002
"""How close the contour's NPV = 0 line passes to the solver's break-even price on a grid row [USD/GPU-h]: a fifth
of a cent, against the half cell (about $0.03) the old staircase of cells could be off."""


def test_the_break_even_line_passes_at_the_solvers_break_even_price(near: neoplan.Result) -> None:
    """On every row of a 21 × 21 price × utilization grid that has one, the NPV = 0 line crosses the row within
    BREAKEVEN_TOL_USD of the break-even price the solver finds at that utilization (neoplan.analysis.stress.solve, every
    other driver at base) — for rows on the grid and rows the line meets between grid prices."""
    grid = stress.grid(near, "usd_per_gpu_hour", "utilization", points=21)
    line = stress_charts.breakeven_trace(grid)
    assert line is not None
    npv = np.array(line.z, dtype=float)
    x, y = np.array(line.x, dtype=float), np.array(line.y, dtype=float)
    checked = 0
    for row in range(0, y.size, 4):
        crossings = _crossings(x, npv[row])
        if not crossings:
            continue
        data = _near_break_even()
        data["pricing"] = {**data["pricing"], "utilization": float(y[row])}  # type: ignore[dict-item]
        at = neoplan.evaluate(neoplan.load_scenario(data))
        solved = stress.solve(at, "usd_per_gpu_hour", "npv_usd", 0.0, float(x[0]), float(x[-1]))
        assert solved.found, solved.message
        assert len(crossings) == 1 and crossings[0] == pytest.approx(solved.value, abs=BREAKEVEN_TOL_USD), y[row]
        checked += 1
    assert checked >= 2  # the line crosses the grid: the case tests something


def test_grid_without_a_sign_change_draws_no_break_even(optimized: neoplan.Result) -> None:
    breakeven = optimized.kpis["breakeven_usd_per_gpu_hour"]
    assert breakeven is not None
    prices = np.array([1.5, 1.6]) * breakeven  # well above break-even at high utilization: NPV > 0 in every cell
    grid = stress.grid(optimized, x_values=prices, y_values=np.array([0.9, 0.95]))
    assert (grid.metrics["npv_usd"] > 0).all()
    assert stress_charts.breakeven_trace(grid) is None
    assert [t["name"] for t in traces(stress_charts.grid_figure(grid, "npv_usd"))] == [
        "NPV at hurdle rate",
        "This scenario",
    ]


def test_histogram_shares_and_percentile_lines(optimized: neoplan.Result) -> None:
    """The bins hold every defined draw once (shares add up to 100 %), in equal round widths; P10/P50/P90 and the
    scenario are lines at their values with their labels."""
    mc = stress.monte_carlo(optimized, draws=400, seed=3)
    fig = stress_charts.histogram_figure(mc, "equity_irr")
    (bars,) = traces(fig)
    values = mc.metrics["equity_irr"]
    defined = values[np.isfinite(values)]
    assert sum(bars["y"]) == pytest.approx(100.0)
    width = bars["width"]
    centres = np.array(bars["x"])
    assert np.allclose(np.diff(centres), width) and centres[0] - width / 2 <= defined.min()
    assert centres[-1] + width / 2 >= defined.max() and 30 <= len(centres) <= 120
    edges, share = stress_charts.histogram_bins(mc, "equity_irr")
    counts, _ = np.histogram(defined, bins=edges)
    assert list(share) == pytest.approx(list(100 * counts / defined.size))
    lines = {a.text: s.x0 for a, s in zip(fig.layout.annotations, fig.layout.shapes, strict=True)}
    for key, value in mc.percentiles("equity_irr").items():
        assert lines[key.upper()] == pytest.approx(value)
    where = mc.base_percentile("equity_irr")
    assert lines[f"scenario (P{where:.0f})"] == pytest.approx(mc.deterministic["equity_irr"])
    (curve,) = traces(stress_charts.cdf_figure(mc, "equity_irr"))
    x, cumulative = mc.cdf("equity_irr")
    assert curve["x"] == pytest.approx(list(x)) and curve["y"] == pytest.approx(list(cumulative))  # 400 draws: all


def test_tornado_of_an_undefined_base_says_so(optimized: neoplan.Result) -> None:
    """The optimized preset never pays back: no bars to draw from an undefined base, a note instead."""
    torn = stress.tornado(optimized)
    assert not np.isfinite(torn.base["payback_months"])
    fig = stress_charts.tornado_figure(torn, "payback_months")
    assert not fig.data and "undefined" in fig.layout.annotations[0].text


def test_tornado_labels_write_a_minus_sign(optimized: neoplan.Result) -> None:
    """A negative driver value reads "−3.4 %" (U+2212), as every number in the app, never "-3.4 %"."""
    fig = stress_charts.tornado_figure(stress.tornado(optimized), "equity_irr")
    labels = [text for t in traces(fig) for text in t["text"]]
    assert labels and not [t for t in labels if t.startswith("-")]
    assert any(t.startswith("\u2212") for t in labels), labels  # the case has a negative driver value
