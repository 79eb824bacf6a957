"""AppTest: the Export page runs and offers every download."""

from __future__ import annotations

import dataclasses
import hashlib

from conftest import page_path, run_page
from streamlit.testing.v1 import AppTest
from test_user_text import shown  # Markdown as it reads on screen

from neoplan import load_scenario
from neoplan.analysis import stress
from neoplan.export import TABLES
from neoplan.inputs.loading import scenario_json
from ui.state import PAGE_STATE, STRESS_RUN

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


def _kept(scenario: str, settings: stress.Settings) -> dict:
    """A draft's page state holding ``settings`` as the stress run of ``scenario`` (a preset)."""
    fingerprint = hashlib.sha256(scenario_json(load_scenario(scenario)).encode()).hexdigest()
    return {STRESS_RUN: {"scenario": fingerprint, "settings": dataclasses.asdict(settings)}}


def test_export_uses_the_stress_run_of_this_scenario() -> None:
    run = "the run on the Stress test page"
    own = _kept("optimized", stress.Settings(draws=777, seed=4, correlation=-0.3, run=run))
    at = run_page(page_path("export"), **{PAGE_STATE: own})
    assert not at.error, [e.value for e in at.error]
    assert any(f"{run}: 777 Monte Carlo draws, seed 4" in shown(c.value) for c in at.caption)
    other = _kept("reference", stress.Settings(draws=777, run=run))  # another scenario's run
    at = run_page(page_path("export"), **{PAGE_STATE: other})
    said = [shown(c.value) for c in at.caption]
    assert any(f"{stress.DEFAULT_RUN}: {stress.DEFAULT_DRAWS:,} Monte Carlo draws, seed 0" in c for c in said), said
