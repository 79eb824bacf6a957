"""What a refresh keeps besides the scenario (issue 23): the Stress test's settings and the Compare selection, in
the draft's page state; Compare's rate deltas in percentage points."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import page_path, run_page
from streamlit.testing.v1 import AppTest

from neoplan import metrics
from neoplan.formats import parse_number
from neoplan.library import Draft, Library

pytestmark = pytest.mark.usefixtures("run_like_the_server")
DRAFT_ID = "scenario_draft_id"


def _app() -> AppTest:
    return run_page(page_path("app"), 120)


def _refreshed(at: AppTest, page: str) -> AppTest:
    """A new browser session arriving with the first one's URL (?draft=…), as a refresh does, on ``page``."""
    again = AppTest.from_file(page_path("app"), default_timeout=120)
    again.query_params["draft"] = at.session_state[DRAFT_ID]
    again.run()
    again.switch_page(page).run()
    assert not again.exception, again.exception
    return again


def test_a_draft_keeps_its_page_state(tmp_path: Path) -> None:
    library = Library(tmp_path / "lib.sqlite")
    library.save_draft("d" * 20, Draft("{}", "{}", None, "x", page_state='{"a": 1}'))
    assert library.load_draft("d" * 20) == Draft("{}", "{}", None, "x", page_state='{"a": 1}')


def test_a_library_from_before_page_states_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE drafts (id TEXT PRIMARY KEY, body TEXT NOT NULL, baseline TEXT NOT NULL, origin TEXT, "
            "source TEXT NOT NULL, updated_at TEXT NOT NULL);"
            "INSERT INTO drafts VALUES ('eeeeeeeeeeeeeeeeeeee', '{}', '{}', NULL, 'old', '2099-01-01T00:00:00+00:00');"
        )
    library = Library(path)
    assert library.load_draft("e" * 20) == Draft("{}", "{}", None, "old")
    library.save_draft("e" * 20, Draft("{}", "{}", None, "old", page_state='{"b": 2}'))
    assert library.load_draft("e" * 20).page_state == '{"b": 2}'  # type: ignore[union-attr]


def test_stress_settings_survive_a_refresh() -> None:
    at = _app()
    at.session_state["stress.draws"] = "500"
    at.session_state["stress.drivers_open"] = True  # the expander of the ranges (kept open across a refresh too)
    at.switch_page("pages/stress_test.py").run()
    at.text_input(key="stress.low.utilization").input("50")
    at.button(key="stress.apply_ranges").click().run()  # one form at a time, as in the browser
    at.radio(key="stress.tornado_metric").set_value("npv_usd").run()
    at.session_state["stress.tab"] = "Monte Carlo: all at once"
    at.run()
    at.text_input(key="stress.draws").input("600")
    at.text_input(key="stress.seed").input("7")
    at.button(key="stress.run_mc").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    again = _refreshed(at, "pages/stress_test.py")
    assert again.session_state["stress.tab"] == "Monte Carlo: all at once"  # the tab it was left on
    assert parse_number(again.text_input(key="stress.low.utilization").value) == 50.0
    assert again.text_input(key="stress.draws").value == "600"
    assert again.text_input(key="stress.seed").value == "7"
    assert any("600 draws, seed 7" in c.value for c in again.caption)
    again.session_state["stress.tab"] = "Tornado: one at a time"
    again.run()
    assert again.radio(key="stress.tornado_metric").value == "npv_usd"


def test_the_compare_selection_is_kept_across_pages_and_refreshes() -> None:
    at = _app()
    at.switch_page("pages/compare.py").run()
    at.multiselect(key="compare.chosen").set_value(["optimized", "h100_2048", "reference"]).run()
    at.switch_page("pages/network.py").run()
    at.switch_page("pages/compare.py").run()
    assert at.multiselect(key="compare.chosen").value == ["optimized", "h100_2048", "reference"]
    again = _refreshed(at, "pages/compare.py")
    assert again.multiselect(key="compare.chosen").value == ["optimized", "h100_2048", "reference"]


@pytest.mark.parametrize(
    ("key", "value", "reference", "expected"),
    [
        ("project_irr", 0.0542, 0.0140, "+4.0 pp"),
        ("equity_irr", -0.159, 0.012, "−17.1 pp"),
        ("npv_usd", -7.83e6, -27.41e6, "+$19.58 M"),
        ("min_dscr", 0.45, 0.45001, ""),  # nothing to show: no "−0.00×"
        ("min_dscr", -0.17, 0.45, "−0.62×"),
        ("payback_months", None, 70.0, ""),
    ],
)
def test_deltas_of_rates_are_in_percentage_points(key: str, value: float, reference: float, expected: str) -> None:
    assert metrics.delta(key, value, reference) == expected


def test_compare_shows_irr_deltas_in_points() -> None:
    at = _app()
    at.switch_page("pages/compare.py").run()
    table = at.dataframe[0].value
    irr = table[table[""] == "Equity IRR"].iloc[0, 2]
    assert irr.endswith(" pp)") and "%  (" in irr, irr


def test_compare_sets_a_server_against_a_rack_per_gpu() -> None:
    """Issue 34: an H100 server against a GB200 NVL72 rack read "−$2,768,950 node price". Like with like: per GPU."""
    import neoplan
    from neoplan.formats import usd_exact

    at = _app()
    at.switch_page("pages/compare.py").run()
    at.multiselect(key="compare.chosen").set_value(["optimized", "gb200_nvl72_18rack"]).run()
    table = at.dataframe[0].value.set_index("")
    assert "Node price" not in table.index and "Capex per server excl. storage" not in table.index
    rack = neoplan.evaluate(neoplan.load_scenario("gb200_nvl72_18rack"))
    server = neoplan.evaluate(neoplan.load_scenario("optimized"))
    per_gpu = table.loc["Node price per GPU", "gb200_nvl72_18rack"]
    delta = metrics.delta("node_capex_usd", rack.node_capex_per_gpu_usd, server.node_capex_per_gpu_usd)
    assert per_gpu == f"{usd_exact(rack.node_capex_per_gpu_usd)}  ({delta})", per_gpu
    assert "Capex per GPU excl. storage" in table.index
    at.multiselect(key="compare.chosen").set_value(["optimized", "reference"]).run()  # servers with servers
    assert "Node price" in at.dataframe[0].value[""].tolist()
