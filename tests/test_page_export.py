"""AppTest: the Export page runs and offers every download."""

from __future__ import annotations

from conftest import page_path, run_page
from streamlit.testing.v1 import AppTest

from neoplan.export import TABLES

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
