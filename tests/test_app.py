"""AppTest: every page runs without exception; key widgets move key figures."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))


def _app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def _metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r} among {[m.label for m in at.metric]}")


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs(page: str) -> None:
    at = _app()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_overview_is_the_landing_page() -> None:
    at = _app()
    assert _metric(at, "Node price") == "$256,400"
    assert _metric(at, "GPUs") == "1,024"


def test_compute_node_ram_and_dpus_change_price() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    assert _metric(at, "Node price") == "$256,400"
    assert _metric(at, "Saving vs OEM default") == "$13,600"
    at.number_input(key="w.node.ram_tb").set_value(2.0).run()
    after_ram = _metric(at, "Node price")
    assert after_ram == "$260,560"  # 16 more 64 GB DIMMs at $260
    at.number_input(key="w.node.dpus").set_value(2).run()
    assert _metric(at, "Node price") == "$265,760"  # two BlueField-3 at $2,600
    assert not at.exception


def test_node_preset_switch_resets_node_widgets() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.selectbox(key="w.node.preset").set_value("oem_default").run()
    assert _metric(at, "Node price") == "$270,000"
    assert at.number_input(key="w.node.ram_tb").value == 2.0
    assert at.selectbox(key="w.node.cpu_tier").value == "top"


def test_sidebar_preset_replaces_scenario() -> None:
    # AppTest drops entrypoint sidebar elements after switch_page, so pick the preset on the landing page.
    at = _app()
    at.sidebar.selectbox(key="sidebar.open").set_value("reference").run()
    assert _metric(at, "Node price") == "$270,000"
    at.switch_page("pages/compute_node.py").run()
    assert at.selectbox(key="w.node.cpu_tier").value == "top"
    assert _metric(at, "Saving vs OEM default") == "$0"


def test_bad_input_shows_error_and_keeps_last_good_scenario() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.number_input(key="w.cluster.gpus").set_value(1001).run()
    assert any("cluster.gpus must be a multiple" in e.value for e in at.error)
    assert _metric(at, "Node price") == "$256,400"
    assert not at.exception
    at.number_input(key="w.node.ram_tb").set_value(-1.0).run()
    assert any("node.ram_tb must be ≥ 0.25" in e.value for e in at.error)
    at.number_input(key="w.cluster.gpus").set_value(2048).run()
    assert not any("cluster.gpus" in e.value for e in at.error)
    assert _metric(at, "Compute capex") == "$65.64 M"  # 256 servers × $256,400


def test_save_then_compare_saved_scenario() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.number_input(key="w.node.ram_tb").set_value(2.0).run()
    at.switch_page("pages/scenarios.py").run()
    at.text_input(key="scenarios.save_name").set_value("Big RAM").run()
    at.button(key="scenarios.save").click().run()
    assert not at.exception
    assert any("Saved “Big RAM”" in s.value for s in at.success)
    at.switch_page("pages/compare.py").run()
    at.multiselect(key="compare.chosen").set_value(["optimized", "Big RAM"]).run()
    assert not at.exception
    table = at.dataframe[0].value
    node_row = table[table[""] == "Node price"].iloc[0]
    assert node_row["optimized"] == "$256,400"
    assert node_row["Big RAM"].startswith("$260,560")


def test_change_on_one_page_shows_on_overview() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.number_input(key="w.cluster.gpus").set_value(2048).run()
    at.switch_page("pages/overview.py").run()
    assert _metric(at, "GPUs") == "2,048"


def test_saved_scenario_survives_an_app_restart() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.number_input(key="w.cluster.gpus").set_value(512).run()
    at.switch_page("pages/scenarios.py").run()
    at.text_input(key="scenarios.save_name").set_value("Half cluster").run()
    at.button(key="scenarios.save").click().run()
    st.cache_resource.clear()  # a new server process starts with empty caches
    again = _app()  # a new session
    again.sidebar.selectbox(key="sidebar.open").set_value("Half cluster").run()
    assert _metric(again, "GPUs") == "512"
