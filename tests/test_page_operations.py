"""AppTest of the Operations page: it runs, its inputs and checklist move the figures the model makes, a choice is
saved in the scenario and survives a page switch, bad input shows a clear error; its charts are valid builds."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from conftest import metric as _metric
from conftest import page_path, run_page
from plotly_support import assert_house_figure, drawn_charts, drawn_titles, traces
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest
from test_user_text import shown

import neoplan
from neoplan import metrics
from neoplan.analysis.advice import breakeven_performance_loss
from neoplan.charts import operations as charts
from ui.state import SCENARIO

PAGE = page_path("operations")
TAB = "operations.tab"
"""Session-state key of the page's tabs: only the open tab runs."""


def _page(tab: str = "Reliability") -> AppTest:
    return run_page(PAGE, **{TAB: tab})


def _evaluate(**sections: dict[str, Any]) -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario({"base": "optimized", **sections}))


def _card(at: AppTest, key: str) -> str:
    return _metric(at, metrics.METRICS[key].label)


def _shows(at: AppTest, result: neoplan.Result, *keys: str) -> None:
    d = result.to_dict()
    for key in keys:
        assert _card(at, key) == metrics.text(key, metrics.lookup(d, key)), key


def test_page_runs_and_shows_the_models_figures(optimized: neoplan.Result) -> None:
    at = _page()
    assert not at.error, [e.value for e in at.error]
    _shows(
        at,
        optimized,
        "availability",
        "goodput",
        "interruptions_per_month",
        "performance_factor",
        "sla_credits_usd_per_year",
        "npv_usd",
    )
    assert _metric(at, "MTTR") == f"{optimized.operations.mttr_hours:,.1f} h"
    assert _metric(at, "Detection") == f"{optimized.operations.detection_minutes:,.1f} min"
    assert _metric(at, "Repairs (RMA)") == f"{optimized.operations.repairs_per_month:,.1f} /month"
    assert _metric(at, "Repair bill") == f"${optimized.operations.repair_usd_per_year:,.0f} /year"
    assert drawn_charts(at) == 3  # GPU-hours, causes, lost time: only the open tab runs
    titles = drawn_titles(at)
    assert titles[0] == "Where the sellable GPU-hours go (axis cut below)", titles
    assert titles[1].startswith("Interruptions a month by cause: ") and titles[2].startswith("Job time lost"), titles
    assert not at.checkbox  # the checklist tab is closed
    at = _page("Readiness checklist")
    assert not at.error, [e.value for e in at.error]
    for item in ("nccl_hang_detection", "sdc_checks", "gpudirect_rdma"):
        assert at.checkbox(key=f"w.operations.{item}").value is True


def test_unticking_a_readiness_item_is_saved_and_moves_the_figures(optimized: neoplan.Result) -> None:
    at = _page("Readiness checklist")
    at.checkbox(key="w.operations.nccl_hang_detection").uncheck().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state[SCENARIO].operations.nccl_hang_detection is False
    gap = _evaluate(operations={"nccl_hang_detection": False})
    assert gap.operations.detection_minutes > optimized.operations.detection_minutes  # the watchdog is slower
    _shows(at, gap, "goodput", "npv_usd")
    assert _card(at, "goodput") != metrics.text("goodput", optimized.to_dict()["goodput"])
    assert at.checkbox(key="w.operations.nccl_hang_detection").value is False


def test_burn_in_and_hot_spares_move_goodput_and_availability(optimized: neoplan.Result) -> None:
    at = _page()
    at.text_input(key="w.timeline.integration_burn_in_weeks").input(str(0.0)).run()
    at.text_input(key="w.timeline.onsite_burn_in_days").input(str(0.0)).run()
    no_burn_in = _evaluate(timeline={"integration_burn_in_weeks": 0.0, "onsite_burn_in_days": 0.0})
    assert no_burn_in.operations.goodput < optimized.operations.goodput
    _shows(at, no_burn_in, "goodput", "npv_usd")
    at.text_input(key="w.cluster.hot_spare_share").input(str(3.0)).run()  # typed in percent
    assert at.session_state[SCENARIO].cluster.hot_spare_share == pytest.approx(0.03)
    spares = _evaluate(
        timeline={"integration_burn_in_weeks": 0.0, "onsite_burn_in_days": 0.0}, cluster={"hot_spare_share": 0.03}
    )
    assert spares.operations.availability > no_burn_in.operations.availability
    _shows(at, spares, "availability", "goodput", "npv_usd")
    assert not at.exception and not at.error


def test_nccl_topo_file_counts_only_inside_vms(optimized: neoplan.Result) -> None:
    at = _page("Effect of each choice")
    assert (
        "Tenants on VMs"
        in next(df.value for df in at.dataframe if "Alternative" in df.value.columns)["Alternative"].tolist()
    )
    at.toggle(key="w.operations.virtual_machines").set_value(True).run()
    at.session_state[TAB] = "Readiness checklist"
    at.run()
    assert not any("Matters only when tenants get virtual machines" in c.value for c in at.caption)
    at.checkbox(key="w.operations.nccl_topo_file").uncheck().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    vm = _evaluate(operations={"virtual_machines": True, "nccl_topo_file": False})
    assert vm.operations.performance_factor < optimized.operations.performance_factor
    _shows(at, vm, "performance_factor", "npv_usd")
    assert at.session_state[SCENARIO].operations.virtual_machines is True


def test_each_choice_is_priced_by_the_model(optimized: neoplan.Result) -> None:
    at = _page("Effect of each choice")
    table = next(df.value for df in at.dataframe if "Alternative" in df.value.columns)
    row = table[table["Alternative"] == "4 back-end NICs per server"].iloc[0]
    four = _evaluate(fabric={"nics_per_node": 4})
    assert row["Δ NPV"] == pytest.approx(four.kpis["npv_usd"] - optimized.kpis["npv_usd"])
    assert row["Performance"] == pytest.approx(four.operations.performance_factor)
    assert four.operations.performance_factor < optimized.operations.performance_factor
    assert table["Alternative"].is_unique and len(table) >= 20
    assert {"Operations", "Design", "Readiness"} <= set(table["Group"])
    penalties = next(df.value for df in at.dataframe if "Verdict" in df.value.columns)
    row = penalties[penalties["Cheaper design"] == "4 back-end NICs per server"].iloc[0]
    breakeven = breakeven_performance_loss(four, optimized)
    assert breakeven is not None and row["Loss at which it stops paying"] == pytest.approx(breakeven)
    loss = 1 - four.operations.performance_factor / optimized.operations.performance_factor
    assert row["Performance loss (model)"] == pytest.approx(loss)
    assert row["Verdict"] == ("still pays" if loss < breakeven else "stops paying")
    assert set(penalties["Verdict"]) <= {"still pays", "stops paying", "n/a"}


def test_bad_input_shows_an_error_next_to_the_field_and_keeps_the_figures(optimized: neoplan.Result) -> None:
    at = _page()
    at.text_input(key="w.operations.mtbf_multiple").input(str(0.0)).run()
    assert not at.exception
    assert any("MTBF [× the reference's] must be" in shown(e.value) for e in at.error), [e.value for e in at.error]
    assert at.session_state[SCENARIO].operations.mtbf_multiple == optimized.scenario.operations.mtbf_multiple
    _shows(at, optimized, "goodput", "interruptions_per_month")


@pytest.fixture
def _through_app_py(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs go through app.py's st.navigation, as on the server (see tests/test_app.py)."""
    original = PagesManager.__init__

    def init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.mark.usefixtures("_through_app_py")
def test_the_checklist_survives_a_page_switch() -> None:
    at = run_page(page_path("app"))
    at.session_state[TAB] = "Readiness checklist"
    at.switch_page("pages/operations.py").run()
    at.checkbox(key="w.operations.sdc_checks").uncheck().run()
    goodput = _card(at, "goodput")
    at.switch_page("pages/overview.py").run()
    at.switch_page("pages/operations.py").run()
    assert not at.exception
    assert at.checkbox(key="w.operations.sdc_checks").value is False
    assert at.session_state[SCENARIO].operations.sdc_checks is False
    assert _card(at, "goodput") == goodput


def test_charts_are_valid_and_in_the_house_style(optimized: neoplan.Result) -> None:
    report = optimized.operations
    built = {
        "gpu_hours": charts.gpu_hours_figure(report),
        "interruptions": charts.interruptions_figure(report),
        "lost_time": charts.lost_time_figure(report, 60.0),
        "choices": charts.choices_figure(["a", "b", "c"], [1.5e6, None, -2e5], "t"),
    }
    for name, fig in built.items():
        assert_house_figure(fig, name)
    (bars,) = traces(built["choices"])
    # the undefined one left out, the largest gain on top (plotly draws the first category at the bottom)
    assert list(zip(bars["y"], bars["x"], bars["marker"]["color"], strict=True)) == [
        ("c", -2e5, charts.LOSS),
        ("a", 1.5e6, charts.GAIN),
    ]


def test_charts_draw_the_reports_numbers(optimized: neoplan.Result) -> None:
    """The GPU-hours waterfall (plotly's own) steps from 1 down to availability and goodput, then to the delivered
    work; the lost time bar adds up to the model's minutes per interruption; the causes are the model's, most
    frequent on top."""
    report = optimized.operations
    (fall,) = traces(charts.gpu_hours_figure(report))
    delivered = report.goodput * report.performance_factor
    assert fall["type"] == "waterfall"
    assert fall["x"] == ["Sellable", "Servers down", "Jobs interrupted", "Goodput", "Performance", "Delivered work"]
    assert fall["measure"] == ["absolute", "relative", "relative", "total", "relative", "total"]
    running = list(itertools.accumulate(v for v, m in zip(fall["y"], fall["measure"], strict=True) if m != "total"))
    assert running == pytest.approx([1.0, report.availability, report.goodput, delivered], abs=1e-12)
    assert (fall["y"][3], fall["y"][5]) == (pytest.approx(report.goodput), pytest.approx(delivered))
    parts = traces(charts.lost_time_figure(report, 60.0))
    assert parts[1]["x"] == [30.0] and parts[1]["name"].startswith("Work since last checkpoint")
    assert sum(p["x"][0] for p in parts) == pytest.approx(report.lost_minutes_per_interruption, rel=1e-12)
    (causes,) = traces(charts.interruptions_figure(report))
    drawn = dict(zip(causes["y"], causes["x"], strict=True))
    by_cause = {charts.CAUSE_LABELS[c]: k for c, k in report.interruptions_by_cause.items() if k > 0}
    assert drawn == by_cause
    assert causes["y"] == sorted(by_cause, key=lambda c: by_cause[c])  # plotly draws the first at the bottom


# --- the article's advice ----------------------------------------------------------------------------------------


def test_advice_tab_shows_each_recommendation_with_the_models_npv_difference(optimized: neoplan.Result) -> None:
    from neoplan.analysis.advice import recommendations

    at = _page("The article's advice")
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    expected = recommendations(optimized.scenario)
    assert list(table["Recommendation"]) == list(expected["recommendation"])
    shown_npv = table["NPV difference"].dropna().to_numpy()
    assert shown_npv == pytest.approx(expected["npv_difference_usd"].dropna().to_numpy(), rel=1e-12)
    assert _metric(at, "Market tier").startswith("silver")  # the reference way of running is the index's tier
    # a customer input moves the tier's premium, and the table follows the scenario
    at.text_input(key="w.customers.acceptance_test_days").input("0.0").run()
    assert not at.exception and at.session_state[SCENARIO].customers.acceptance_test_days == 0.0
    assert _metric(at, "Acceptance test fails") == "0.0 %"
