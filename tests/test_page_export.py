"""AppTest: the Export page runs and offers every download."""

from __future__ import annotations

from conftest import page_path, run_page
from streamlit.testing.v1 import AppTest

from neoplan import load_scenario
from neoplan.analysis import stress
from neoplan.export import TABLES
from neoplan.inputs.loading import scenario_json

APP = page_path("app")


def _export_page() -> AppTest:
    at = run_page(APP)
    at.switch_page("pages/export.py").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _buttons(at: AppTest) -> dict[str, object]:
    return {b.proto.label: b for b in at.get("download_button")}


def test_export_page_offers_every_download() -> None:
    at = _export_page()
    labels = set(_buttons(at))
    expected = {"⬇ Workbook (.xlsx)", "⬇ Report (.html)", "⬇ YAML", "⬇ JSON", "⬇ All CSVs (.zip)"}
    expected |= {f"⬇ {name}.csv" for name in TABLES}
    assert expected <= labels
    assert any("Excel workbook" in s.value for s in at.subheader)


def test_export_files_are_built_on_click() -> None:
    # Workbook, report and CSVs are deferred downloads: the page registers a builder instead of bytes.
    buttons = _buttons(_export_page())
    for label in ("⬇ Workbook (.xlsx)", "⬇ Report (.html)", "⬇ All CSVs (.zip)", "⬇ pnl.csv"):
        assert buttons[label].proto.deferred_file_id, label


def test_export_uses_the_stress_run_of_this_scenario() -> None:
    own = (scenario_json(load_scenario("optimized")), stress.Settings(draws=777, seed=4, correlation=-0.3))
    at = run_page(page_path("export"), **{"stress.export_settings": own})
    assert not at.error, [e.value for e in at.error]
    assert any("the run from the Stress test page (777 draws, seed 4" in c.value for c in at.caption)
    other = (scenario_json(load_scenario("reference")), stress.Settings(draws=777))  # another scenario's run
    at = run_page(page_path("export"), **{"stress.export_settings": other})
    assert any(f"{stress.DEFAULT_DRAWS:,} Monte Carlo draws, seed 0" in c.value for c in at.caption)
