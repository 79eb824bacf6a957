"""AppTest of the Design search page: it ranks the model's search, constraints narrow it, a row opens."""

from __future__ import annotations

from conftest import metric, page_path, run_page
from plotly_support import drawn_charts, traces
from streamlit.testing.v1 import AppTest

import neoplan
from neoplan.charts.search import PLATFORM_COLORS, capex_irr_figure, designs, frontier
from ui import format as fmt
from ui.state import SCENARIO


def _page() -> AppTest:
    at = run_page(page_path("app"))  # the page's "open" switches to Overview: it needs the navigation
    at.switch_page("pages/search.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def test_the_page_shows_the_models_ranking_and_the_frontier() -> None:
    at = _page()
    found = neoplan.search(neoplan.load_scenario("optimized"))
    best = found.table[found.table["feasible"]].iloc[0]
    assert metric(at, "Designs built") == "200"
    assert metric(at, "Feasible") == f"{int(found.table['feasible'].sum()):,}"
    assert metric(at, "Best NPV") == fmt.usd(best["npv_usd"])
    assert drawn_charts(at) == 1 and len(at.dataframe) == 1
    assert len(at.dataframe[0].value) == 20  # rows shown


def test_a_constraint_narrows_the_feasible_designs() -> None:
    at = _page()
    before = int(metric(at, "Feasible").replace(",", ""))
    at.text_input(key="search.min_dscr.text").input("1.5").run()
    after = int(metric(at, "Feasible").replace(",", ""))
    limited = neoplan.search(neoplan.load_scenario("optimized"), constraints={"min_dscr": 1.5})
    assert after == int(limited.table["feasible"].sum()) < before


def test_opening_a_row_makes_it_the_scenario() -> None:
    at = _page()
    found = neoplan.search(neoplan.load_scenario("optimized"))
    at.selectbox(key="search.pick").set_value(4).run()
    at.button(key="search.open").click().run()
    assert not at.exception
    opened = at.session_state[SCENARIO]
    row = found.table.iloc[3]
    assert (opened.cluster.gpu_model, opened.fabric.topology, opened.financing.debt_share) == (
        row["gpu_model"],
        row["topology"],
        row["debt_share"],
    )
    assert metric(at, "GPUs") == fmt.count(row["gpus"])  # Overview now shows the opened design


def test_frontier_chart_fills_the_feasible_designs_and_steps_along_the_frontier() -> None:
    """Every built design is a point coloured by its platform, hollow when infeasible (its own legend entry); the
    frontier of the feasible designs is the dotted step line through exactly :func:`frontier`'s designs."""
    found = neoplan.search(neoplan.load_scenario("optimized"), constraints={"max_capex_usd": 40e6})
    *points, line = traces(capex_irr_figure(found))
    shown = designs(found)
    assert sum(len(p["x"]) for p in points) == len(shown)
    names = [p["name"] for p in points]
    assert any(n.endswith("(infeasible)") for n in names) and any(not n.endswith("(infeasible)") for n in names)
    for p in points:
        platform = p["name"].removesuffix(" (infeasible)")
        assert p["marker"]["color"] == PLATFORM_COLORS[platform]
        assert p["marker"]["symbol"] == ("circle-open" if p["name"].endswith("(infeasible)") else "circle")
        part = shown[(shown["gpu_model"] == platform) & (shown["feasible"] != p["name"].endswith("(infeasible)"))]
        assert p["x"] == list(part["capex_usd"]) and p["y"] == list(part["project_irr"])
    best = frontier(shown[shown["feasible"]])
    assert list(zip(line["x"], line["y"], strict=True)) == list(
        zip(best["capex_usd"], best["project_irr"], strict=True)
    )
    assert line["line"]["shape"] == "hv" and line["line"]["dash"] == "dot"
