"""Export: the current scenario as an Excel workbook, CSV tables, an offline HTML report and YAML/JSON.

Files are built by ``neoplan.export`` only when a button is clicked (deferred downloads), so the page
stays fast; every figure in them comes from the same Result as the other pages.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st

from neoplan import Result, export
from neoplan.analysis import stress
from neoplan.inputs.loading import scenario_json
from ui import format as fmt
from ui.state import evaluate_current, get_scenario, stress_run_settings
from ui.widgets import scenario_downloads

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
SHEET_HELP = {
    "KPIs": "every figure of the JSON contract, with units, plus the TCO breakdown",
    "Assumptions": "every scenario input with its unit and help text; every price with date, source and basis",
    "Node BoM": "one server, line by line",
    "Fabric": "switches, links, transceivers and cables of the back end, front end and OOB network",
    "Capex": "by category, by price basis, and every line",
    "Opex": "by category per operating year",
    "Cash flow": "one row per month: revenue, opex, P&L, debt and cash flows",
    "P&L": "profit and loss and the debt schedule per project year",
    "Tornado": "every stress driver at its low and its high value, for every return metric",
    "Grid": "equity IRR, NPV, project IRR and minimum DSCR over two drivers",
    "Monte Carlo": "percentiles, where the scenario sits among the draws, probabilities of loss and of a covenant "
    "breach, the ranges with why and source, a histogram",
    "Solvers": "break-even price, utilization and largest debt share",
}


@st.cache_resource(max_entries=2, show_spinner=False)  # a 100,000-draw run holds ~20 MB of draws
def _stress_run(scenario_text: str, settings_text: str, _result: Result, _settings: stress.Settings | None) -> Any:
    """The stress run of ``_result`` (scenario JSON ``scenario_text``) with ``_settings`` (``settings_text``): run
    once for the workbook and the report together."""
    return export.stress_run(_result, _settings)


def _run(result: Result, settings: stress.Settings | None) -> Any:
    return _stress_run(scenario_json(result.scenario), repr(settings), result, settings)


def _workbook_bytes(result: Result, settings: stress.Settings | None) -> bytes:
    """The workbook with the stress sheets of ``settings`` (built on click)."""
    return export.workbook_bytes(result, _run(result, settings))


def _html_bytes(result: Result, settings: stress.Settings | None) -> bytes:
    """The HTML report as UTF-8 bytes, stress section from ``settings`` (built on click)."""
    return export.html_report(result, _run(result, settings)).encode("utf-8")


st.title("Export")
scenario = get_scenario()
st.caption(
    f"Take **{fmt.plain(scenario.name)}** away: a workbook for analysts, a report for investors, CSVs for "
    "scripts and the scenario file to reload later. Values only, no spreadsheet formulas; text a spreadsheet "
    "could run as a formula is written as text."
)

result = evaluate_current()
if result is None:
    st.stop()

stem = export.slug(scenario.name)
settings = stress_run_settings()  # the run on the Stress test page for this scenario as entered, else None
shown = settings if settings is not None else stress.Settings()
st.caption(
    f"Stress test in the workbook and the report: {fmt.plain(shown.text())}."
    + (" Run the Stress test page to export your own settings." if settings is None else "")
)
left, right = st.columns(2, gap="large")
with left, st.container(border=True):
    st.subheader("Excel workbook")
    st.markdown("\n".join(f"- **{name}**: {SHEET_HELP[name]}" for name in export.SHEETS))
    st.download_button(
        "⬇ Workbook (.xlsx)",
        partial(_workbook_bytes, result, settings),
        file_name=f"{stem}.xlsx",
        mime=XLSX,
        key="export.workbook",
        type="primary",
        on_click="ignore",
        help=f"{len(export.SHEETS)} formatted sheets; opens in Excel, LibreOffice and Google Sheets.",
    )
with right, st.container(border=True):
    st.subheader("HTML report")
    st.markdown(
        "One self-contained file an investor opens in any browser, offline: the scenario summary, the headline "
        "KPIs, interactive charts (capex as a waterfall and a treemap, TCO per GPU-hour and where it goes, cash "
        "flow and payback, IRR against price, debt and DSCR, opex by year, the node against the OEM default: zoom, "
        "pan, hover, download as PNG), the P&L, debt and opex tables, the stress test (tornado, grid with its "
        "break-even line, Monte Carlo with where the scenario sits, the ranges with their sources, break-even "
        "solvers), the node BoM, the networks, every input and every price with its source. About 5 MB (plotly.js, "
        "which draws the charts, is inside)."
    )
    st.download_button(
        "⬇ Report (.html)",
        partial(_html_bytes, result, settings),
        file_name=f"{stem}_report.html",
        mime="text/html",
        key="export.html",
        type="primary",
        on_click="ignore",
        help="Interactive charts work without a network connection.",
    )

with st.container(border=True):
    st.subheader("Scenario file")
    st.markdown(
        "Every input, explicit; load it again from the sidebar or run `python -m neoplan report FILE --out DIR`."
    )
    scenario_downloads(scenario, "export", st.columns([1, 1, 4]))

with st.container(border=True):
    st.subheader("CSV tables")
    st.markdown(
        "One table per file, UTF-8, column names with units (`_usd`, `_months`, fractions for rates); empty = "
        "undefined. The same tables as the workbook."
    )
    st.download_button(
        "⬇ All CSVs (.zip)",
        partial(export.csv_zip_bytes, result, f"{stem}_"),
        file_name=f"{stem}_csv.zip",
        mime="application/zip",
        key="export.csv_zip",
        on_click="ignore",
        help="Every table below in one zip archive.",
    )
    for name, description in export.TABLES.items():
        button, text = st.columns([1, 3], vertical_alignment="center")
        button.download_button(
            f"⬇ {name}.csv",
            partial(export.csv_table, result, name),
            file_name=f"{stem}_{name}.csv",
            mime="text/csv",
            key=f"export.csv.{name}",
            on_click="ignore",
            width="stretch",
        )
        text.markdown(description)
