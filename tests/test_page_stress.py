"""AppTest of the Stress test page: it runs, a small Monte Carlo shows its percentiles, bad input shows st.error."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import neoplan
from neoplan import stress
from ui import format as fmt

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "stress_test.py")
DRAWS = 500


@pytest.fixture(scope="module")
def optimized() -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario("optimized"))


def _page(draws: int = DRAWS, **state: object) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state["stress.draws"] = draws
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r} among {[m.label for m in at.metric]}")


def _mc_table(at: AppTest):  # type: ignore[no-untyped-def]
    for frame in at.dataframe:
        if "P50" in frame.value.columns:
            return frame.value.set_index("Metric")
    raise AssertionError("no Monte Carlo table")


def test_page_runs_with_every_section(optimized: neoplan.Result) -> None:
    at = _page()
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == 4  # tornado, grid, histogram, CDF
    assert _metric(at, "Equity IRR") == fmt.pct(optimized.kpis["equity_irr"])
    assert _metric(at, "Break-even") == fmt.usd_per_gpu_hour(optimized.kpis["breakeven_usd_per_gpu_hour"])


def test_small_monte_carlo_shows_p10_p50_p90(optimized: neoplan.Result) -> None:
    at = _page()
    table = _mc_table(at)
    assert list(table.columns[:3]) == ["P10", "P50", "P90"]
    mc = stress.monte_carlo(optimized, draws=DRAWS, seed=0)
    expected = mc.percentiles("equity_irr")
    assert [table.loc["Equity IRR", k.upper()] for k in expected] == [fmt.pct(v) for v in expected.values()]
    assert table.loc["NPV", "P50"] == fmt.usd(mc.percentiles("npv_usd")["p50"])
    assert _metric(at, "Probability of loss") == fmt.pct(mc.probability_of_loss)


def test_new_seed_reruns_the_monte_carlo() -> None:
    at = _page()
    before = _mc_table(at).loc["NPV"].tolist()
    at.number_input(key="stress.seed").set_value(3).run()
    assert not at.exception and not at.error
    assert _mc_table(at).loc["NPV"].tolist() != before


def test_solvers_show_their_answers(optimized: neoplan.Result) -> None:
    at = _page()
    price = stress.price_for_equity_irr(optimized, 0.20)
    assert _metric(at, "Price for 20.0 % equity IRR") == fmt.usd_per_gpu_hour(price.value)
    at.number_input(key="stress.target_irr").set_value(30.0).run()
    assert _metric(at, "Price for 30.0 % equity IRR") == fmt.usd_per_gpu_hour(
        stress.price_for_equity_irr(optimized, 0.30).value
    )


def test_too_few_draws_shows_an_error() -> None:
    at = _page(draws=5)
    assert any("draws must be a whole number" in e.value for e in at.error), [e.value for e in at.error]
    assert not any("P50" in f.value.columns for f in at.dataframe)


def test_inverted_range_shows_an_error_and_stops() -> None:
    at = _page()
    at.number_input(key="stress.low.utilization").set_value(99.0).run()
    assert not at.exception
    assert any("Utilization: low (0.99) must be ≤ high" in e.value for e in at.error), [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == 0
    at.button(key="stress.reset").click().run()
    assert not at.error and len(at.get("plotly_chart")) == 4


def test_tornado_metric_switch() -> None:
    at = _page()
    at.radio(key="stress.tornado_metric").set_value("npv_usd").run()
    assert not at.exception and not at.error
