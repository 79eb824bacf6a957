"""Exports of a :class:`~neoplan.model.Result`: Excel workbook, one CSV per table, a self-contained HTML report.

One module per job: :mod:`.sheets` builds the tidy tables every export is made of (:func:`tables`,
:func:`stress_tables`), so the workbook (:mod:`.workbook`), the CSVs (:mod:`.csv`) and the report (:mod:`.report`)
never disagree; this package re-exports their public names and writes all three (:func:`write_report`). The stress
test (:mod:`neoplan.analysis.stress`: tornado, grid, Monte Carlo, solvers) is run once per export with the settings the
user ran on the Stress test page, or default settings with seed 0, and fills the workbook's last four sheets and
the report's stress section. Values only: no spreadsheet formulas. Money in nominal USD, rates as fractions
(shown as percent), time in months from the purchase order unless a table says otherwise.

Formula injection: text that a spreadsheet could run (starting with ``= + - @``, a tab or a carriage
return, OWASP's list; :mod:`neoplan.spreadsheet`) is written as text. In the workbook such a cell is a string cell
with Excel's quote prefix (what typing an apostrophe does: the text shows unchanged and is never evaluated, even
after an edit); in the CSVs, which carry no types, the text gets a leading apostrophe.

The HTML report is one offline file: plotly.js is inlined once in the page head, every chart is the app's own plotly
figure, interactive, and all text from the scenario is HTML-escaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..files import out_folder, write_atomic
from ..files import slug as slug  # re-exported: the stem of every take-away file
from ..spreadsheet import FORMULA_TRIGGERS, is_formula_like
from ..spreadsheet import formula_safe as csv_safe
from .csv import csv_bytes, csv_table, csv_tables, csv_zip_bytes, escaped
from .report import (
    COLUMN_CLASSES,
    REPORT_CHARTS,
    REPORT_CSS,
    REPORT_HEADERS,
    REPORT_KPIS,
    html_report,
    html_table,
    plotly_js,
    report_figures,
    script_json,
)
from .sheets import (
    GRID_METRICS,
    HISTOGRAM_BINS,
    KINDS,
    KPI_GROUP_LABELS,
    KPI_LABELS,
    NA,
    TABLE_BUILDERS,
    TABLES,
    Kind,
    bom_table,
    capex_by_basis_table,
    capex_by_category_table,
    capex_lines_table,
    cash_flow_table,
    debt_table,
    driver_kind,
    fabric_table,
    flatten,
    grid_table,
    input_table,
    kind_of_column,
    kind_of_unit,
    kpi_label,
    kpi_table,
    kpi_unit,
    mc_histogram_table,
    mc_percentile_table,
    mc_ranges_table,
    mc_settings_table,
    metric_kind,
    opex_by_year_table,
    pnl_table,
    price_table,
    records,
    show,
    solver_table,
    stress_run,
    stress_tables,
    tables,
    tornado_table,
    unit_of_description,
)
from .workbook import (
    HEADER_ROW,
    MAX_COLUMN_WIDTH,
    SHEET_NOTES,
    SHEETS,
    STRESS_SHEETS,
    Block,
    put,
    sheet_blocks,
    stress_sheet_blocks,
    workbook_bytes,
)

if TYPE_CHECKING:
    from ..analysis.stress import Settings
    from ..model import Result

__all__ = [
    "COLUMN_CLASSES",
    "FORMULA_TRIGGERS",
    "GRID_METRICS",
    "HEADER_ROW",
    "HISTOGRAM_BINS",
    "KINDS",
    "KPI_GROUP_LABELS",
    "KPI_LABELS",
    "MAX_COLUMN_WIDTH",
    "NA",
    "REPORT_CHARTS",
    "REPORT_CSS",
    "REPORT_HEADERS",
    "REPORT_KPIS",
    "SHEETS",
    "SHEET_NOTES",
    "STRESS_SHEETS",
    "TABLES",
    "TABLE_BUILDERS",
    "Block",
    "Kind",
    "bom_table",
    "capex_by_basis_table",
    "capex_by_category_table",
    "capex_lines_table",
    "cash_flow_table",
    "csv_bytes",
    "csv_safe",
    "csv_table",
    "csv_tables",
    "csv_zip_bytes",
    "debt_table",
    "driver_kind",
    "escaped",
    "fabric_table",
    "flatten",
    "grid_table",
    "html_report",
    "html_table",
    "input_table",
    "is_formula_like",
    "kind_of_column",
    "kind_of_unit",
    "kpi_label",
    "kpi_table",
    "kpi_unit",
    "mc_histogram_table",
    "mc_percentile_table",
    "mc_ranges_table",
    "mc_settings_table",
    "metric_kind",
    "opex_by_year_table",
    "plotly_js",
    "pnl_table",
    "price_table",
    "put",
    "records",
    "report_figures",
    "script_json",
    "sheet_blocks",
    "show",
    "slug",
    "solver_table",
    "stress_run",
    "stress_sheet_blocks",
    "stress_tables",
    "tables",
    "tornado_table",
    "unit_of_description",
    "workbook_bytes",
    "write_report",
]


def write_report(result: Result, out_dir: str | Path, settings: Settings | None = None) -> list[Path]:
    """Write the workbook, the HTML report and one CSV per table into ``out_dir``; returns the paths written.

    Each file is written whole through a temporary file and a rename (:func:`neoplan.files.write_atomic`).
    Files are named after the scenario: ``<slug>.xlsx``, ``<slug>_report.html``, ``<slug>_<table>.csv``.
    The stress test (workbook sheets, report section) runs once with ``settings`` (default settings).
    """
    out = out_folder(out_dir)  # ValueError for an empty path or a file
    run = stress_run(result, settings)  # bad settings fail before anything is written
    out.mkdir(parents=True, exist_ok=True)
    stem = slug(result.scenario.name)
    files: dict[Path, bytes] = {
        out / f"{stem}.xlsx": workbook_bytes(result, run),
        out / f"{stem}_report.html": html_report(result, run).encode("utf-8"),
    }
    files.update({out / f"{stem}_{name}.csv": data for name, data in csv_tables(result).items()})
    for path, data in files.items():
        write_atomic(path, data)  # each file complete or absent, never truncated
    return list(files)
