"""AppTest of the Storage & site page: it runs, its inputs move the figures shown, bad input shows a clear error."""

from __future__ import annotations

import pytest
from conftest import metric as _metric
from conftest import page_path, run_page
from plotly_support import assert_house_figure, drawn_charts, drawn_titles
from streamlit.testing.v1 import AppTest
from test_user_text import shown  # Markdown as it reads on screen

import neoplan
from neoplan.charts import site
from neoplan.formats import parse_number
from ui import format as fmt
from ui.state import SCENARIO

PAGE = page_path("storage_site")


TABS = "storage_site.tab"
SITE, CAPEX, OPEX = "Site & power", "Capex", "Opex"
TAB_OF = {"facility": SITE, "opex": OPEX}
"""The tab each section's inputs are on (storage: the first tab; pricing.utilization: Site & power)."""


def _page(tab: str | None = None) -> AppTest:
    # The page on its own (it reads the scenario from session state, the default `optimized` preset on first
    # run); tests/test_app.py covers it inside the app's navigation once app.py lists it. Only the open tab runs.
    return run_page(PAGE, **({TABS: tab} if tab else {}))


def _open(at: AppTest, tab: str) -> AppTest:
    at.session_state[TABS] = tab
    at.run()
    return at


def test_page_runs_and_shows_the_models_figures(optimized: neoplan.Result) -> None:
    at = _page()
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]  # the optimized preset triggers no storage/site warning
    assert _metric(at, "Total capex") == fmt.usd(optimized.capex_usd["total"])
    assert _metric(at, "Opex per year (run rate)") == fmt.usd(optimized.opex_usd_per_year["total"])
    # 2 PB for 1,024 H100 (BRIEF.md §2.4): 8 servers, plus 3 so that 100G front-end ports still carry 250 GB/s
    assert _metric(at, "Storage servers") == str(optimized.storage.servers) == "11"
    assert _metric(at, "Aggregate read") == f"{optimized.storage.read_gbyte_per_s:,.0f} GB/s"
    assert drawn_charts(at) == 1  # only the open tab is drawn: throughput
    assert drawn_titles(at) == ["Aggregate storage bandwidth"]
    _open(at, SITE)
    assert _metric(at, "Compute racks") == str(optimized.facility.compute_racks)
    _open(at, CAPEX)
    assert _metric(at, "Per server excl. storage") == fmt.usd_exact(optimized.capex_per_server_excl_storage_usd)
    assert _metric(at, "Per GPU") == fmt.usd_exact(optimized.capex_per_gpu_usd)
    for tab, title in (  # power, capex waterfall, opex by year
        (SITE, "Site power: IT load by part and facility overhead"),
        (CAPEX, "Capex by category"),
        (OPEX, "Opex per operating year"),
    ):
        assert drawn_charts(_open(at, tab)) == 1, tab
        assert not at.exception and not at.error, tab
        assert drawn_titles(at) == [title], tab


def test_the_capex_chart_switches_to_the_treemap() -> None:
    at = _page(CAPEX)
    at.segmented_control(key="storage_site.capex_chart").set_value("Treemap").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert drawn_charts(at) == 1
    assert drawn_titles(at)[0].startswith("Capex by category and line: $")


def test_charts_are_plotly_in_their_native_forms(optimized: neoplan.Result) -> None:
    """Every chart of the page is a plotly figure in the house style; capex is plotly's own waterfall and treemap
    (their numbers against the model: tests/test_page_charts.py)."""
    for name in site.__all__:
        if name.endswith("_figure"):
            assert_house_figure(getattr(site, name)(optimized), name)
    assert site.capex_waterfall_figure(optimized).data[0].type == "waterfall"
    assert site.capex_treemap_figure(optimized).data[0].type == "treemap"


def test_storage_capacity_changes_storage_capex() -> None:
    at = _page()
    before = _metric(at, "Storage capex")
    at.text_input(key="w.storage.usable_pb").input(str(4.0)).run()
    four_pb = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "storage": {"usable_pb": 4.0}}))
    assert _metric(at, "Storage capex") == fmt.usd(four_pb.capex_usd["storage"]) != before
    assert _metric(at, "Total capex") == fmt.usd(four_pb.capex_usd["total"])


def test_ai_enterprise_toggle_changes_opex(optimized: neoplan.Result) -> None:
    at = _page(OPEX)
    assert _metric(at, "Software / yr") == "$0"
    at.toggle(key="w.opex.ai_enterprise").set_value(True).run()
    on = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "opex": {"ai_enterprise": True}}))
    assert _metric(at, "Software / yr") == fmt.usd(on.opex_usd_per_year["software"])
    g = on.ops.dates.go_live_month  # the run-rate year is operating year 4: 12 − g months in project year 4, g in 5
    escalated = (1.03**3 * (12 - g) + 1.03**4 * g) / 12  # opex rises 3 % a project year
    assert on.opex_usd_per_year["software"] == pytest.approx(1_024 * 4_500 * escalated, rel=1e-12)
    assert _metric(at, "Opex per year (run rate)") == fmt.usd(on.opex_usd_per_year["total"])
    assert _metric(at, "Opex per year (run rate)") != fmt.usd(optimized.opex_usd_per_year["total"])


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [("w.facility.pue", 0.9, "facility.pue"), ("w.storage.usable_pb", -1.0, "storage.usable_pb")],  # by label
)
def test_bad_input_shows_an_error_and_keeps_the_last_good_figures(
    optimized: neoplan.Result, key: str, value: float, field: str
) -> None:
    at = _page(TAB_OF.get(field.split(".")[0]))
    at.text_input(key=key).input(str(value)).run()
    assert not at.exception
    label = at.text_input(key=key).label
    assert any(shown(e.value).startswith(f"{label} must be") for e in at.error), [e.value for e in at.error]
    assert not any(field in shown(e.value) for e in at.error)  # the file's name of the field: in its tooltip
    assert _metric(at, "Total capex") == fmt.usd(optimized.capex_usd["total"])


def test_design_warnings_are_shown() -> None:
    at = _page()
    at.selectbox(key="w.storage.network").set_value("backend").run()
    _open(at, SITE)
    at.text_input(key="w.facility.servers_per_rack").input(str(5)).run()
    texts = [shown(w.value) for w in at.warning]
    assert any("Storage network is backend" in t for t in texts), texts  # fields by their labels
    assert any("Servers per compute rack, at most [count]" in t for t in texts), texts
    rack = next(m for m in at.metric if m.label == "Compute rack")  # enforced: 4 of the 5 asked go in a rack
    assert rack.value == "40.8 kW" and rack.delta == "4 of 5 servers fit", (rack.value, rack.delta)


@pytest.mark.parametrize(
    ("key", "shown_before", "typed", "stored"),
    [
        ("opex.insurance_rate", 0.5, 0.8, 0.008),
        ("opex.sga_rate", 10.0, 9.0, 0.09),
        ("opex.support_rate", 4.0, 6.0, 0.06),
        ("facility.idle_power_share", 20.0, 30.0, 0.30),
        ("pricing.utilization", 85.0, 9.0, 0.09),
    ],
)
def test_rates_are_typed_in_percent(key: str, shown_before: float, typed: float, stored: float) -> None:
    at = _page(TAB_OF.get(key.split(".")[0], SITE))
    widget = at.text_input(key=f"w.{key}")
    assert parse_number(widget.value) == pytest.approx(shown_before)
    assert "%" in widget.label and widget.help.endswith(" %.")
    widget.input(str(typed)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    section, field = key.split(".")
    assert getattr(getattr(at.session_state[SCENARIO], section), field) == pytest.approx(stored, abs=1e-12)


def test_a_rate_over_100_percent_is_refused_in_percent() -> None:
    at = _page(OPEX)
    at.text_input(key="w.opex.sga_rate").input(str(150.0)).run()
    assert not at.exception
    assert "SG&A [% of revenue] must be between 0 and 100 %, got 150.0 %; kept 10.0 %" in [
        shown(e.value) for e in at.error
    ]
    assert at.session_state[SCENARIO].opex.sga_rate == 0.10
