"""The Excel workbook of a plan (sheets :data:`SHEETS`): values only, formatted, formula-injection safe.

Each sheet holds blocks (tables of :mod:`.sheets`) side by side under one header row. Text that a spreadsheet
could run (:mod:`neoplan.spreadsheet`) is a string cell with Excel's quote prefix (what typing an apostrophe
does: the text shows unchanged and is never evaluated, even after an edit).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..finance.statements import DEBT_LABELS, OPERATING_YEAR_NOTE, PNL_BOLD, PNL_LABELS, PROJECT_YEAR_NOTE
from ..spreadsheet import is_formula_like, xml_text
from .sheets import (
    GRID_METRICS,
    KINDS,
    debt_kind,
    driver_kind,
    finite_number,
    kind_of_column,
    kind_of_unit,
    metric_kind,
    pnl_kind,
    records,
    stress_run,
    stress_tables,
    tables,
    transposed,
    with_total,
)

if TYPE_CHECKING:
    from openpyxl.worksheet.worksheet import Worksheet

    from ..analysis.stress import StressRun
    from ..model import Result

SHEETS = (
    "KPIs",
    "Assumptions",
    "Node BoM",
    "Fabric",
    "Capex",
    "Opex",
    "Cash flow",
    "P&L",
    "Tornado",
    "Grid",
    "Monte Carlo",
    "Solvers",
)
"""Workbook sheets, in order; the last four hold the stress test (:mod:`neoplan.analysis.stress`)."""
STRESS_SHEETS = ("Tornado", "Grid", "Monte Carlo", "Solvers")
HEADER_ROW = 4
MAX_COLUMN_WIDTH = 60


@dataclass(frozen=True)
class Block:
    """A table placed on a sheet: a header row, then data rows; number formats per cell.

    ``number_format(record, column)`` gives the Excel format of a cell from its row (a dict by column)
    and column name. Rows named in ``bold_rows`` (by their first-column value) are bold.
    """

    frame: pd.DataFrame
    number_format: Callable[[Mapping[str, Any], str], str]
    title: str = ""
    bold_rows: tuple[str, ...] = ()
    wrap: tuple[str, ...] = ()
    widths: dict[str, int] = field(default_factory=dict)


def _by_column(_: Mapping[str, Any], column: str) -> str:
    """Excel format from the column name."""
    return KINDS[kind_of_column(column)].excel


def _by_unit(record: Mapping[str, Any], column: str) -> str:
    """Excel format of the ``value`` column from the row's ``unit``; text columns General."""
    return KINDS[kind_of_unit(str(record.get("unit") or ""))].excel if column == "value" else "General"


def sheet_blocks(data: Mapping[str, pd.DataFrame]) -> dict[str, list[Block]]:
    """What goes on each sheet of :data:`SHEETS`: blocks placed side by side, one shared header row."""
    text_wrap = ("description", "source", "item")
    usd = KINDS["usd"].excel
    return {
        "KPIs": [Block(data["kpis"], _by_unit, wrap=("definition",), widths={"value": 18})],
        "Assumptions": [
            Block(data["inputs"], _by_unit, title="Scenario inputs", wrap=text_wrap, widths={"value": 16}),
            Block(
                data["prices"],
                _by_column,
                title="Price book (price in force; basis: quoted, estimate, fitted)",
                wrap=text_wrap,
                widths={"description": 48, "source": 70},
            ),
        ],
        "Node BoM": [
            Block(
                with_total(data["node_bom"], "category", ["total_usd"]),
                _by_column,
                bold_rows=("Total",),
                wrap=text_wrap,
            )
        ],
        "Fabric": [Block(data["fabric"], lambda _r, col: "#,##0.##" if col == "quantity" else "General")],
        "Capex": [
            Block(data["capex_by_category"], _by_column, title="By category", bold_rows=("Total",)),
            Block(data["capex_by_basis"], _by_column, title="By price basis"),
            Block(
                with_total(data["capex_lines"], "category", ["total_usd"]),
                _by_column,
                title="Lines",
                bold_rows=("Total",),
                wrap=text_wrap,
            ),
        ],
        "Opex": [Block(data["opex_by_year"], lambda *_: usd, bold_rows=("Total",))],
        "Cash flow": [Block(data["cash_flow"], _by_column)],
        "P&L": [
            Block(
                transposed(data["pnl"], "year", PNL_LABELS),
                lambda r, c: KINDS[pnl_kind(r)].excel,
                title="Profit and loss",
                bold_rows=tuple(PNL_LABELS[k] for k in PNL_BOLD),
            ),
            Block(
                transposed(data["debt"], "year", DEBT_LABELS),
                lambda r, _c: KINDS[debt_kind(r)].excel,
                title="Debt and cash waterfall",
            ),
            Block(
                data["loan"].drop(columns=["key"]),
                lambda r, _c: _kind_format(kind_of_unit(str(r["unit"]))),
                title="Loan at financial close",
            ),
        ],
    }


def _kind_format(kind: str) -> str:
    return KINDS[kind].excel


def stress_sheet_blocks(data: Mapping[str, pd.DataFrame], run: StressRun) -> dict[str, list[Block]]:
    """What goes on each stress sheet (:data:`STRESS_SHEETS`), from :func:`stress_tables`."""
    from ..analysis.stress import METRIC_LABELS

    def tornado_format(r: Mapping[str, Any], c: str) -> str:
        if c in ("base_value", "low_value", "high_value"):
            return _kind_format(driver_kind(str(r["driver"])))
        return _kind_format(metric_kind(str(r["metric"]))) if c.startswith(("metric_at", "change_at")) else "General"

    def grid_format(metric: str) -> Callable[[Mapping[str, Any], str], str]:
        first = str(data[f"grid_{metric}"].columns[0])
        y_format, z_format = _kind_format(driver_kind(run.grid.y_driver)), _kind_format(metric_kind(metric))
        return lambda _r, c: y_format if c == first else z_format

    def percentile_format(r: Mapping[str, Any], c: str) -> str:
        if c in ("p10", "p50", "p90", "base_case"):
            return _kind_format(metric_kind(str(r["metric"])))
        return {"base_case_percentile": "0.0", "share_undefined": _kind_format("pct")}.get(c, "General")

    def driver_format(r: Mapping[str, Any], c: str) -> str:
        return _kind_format(driver_kind(str(r["driver"]))) if c in ("base_value", "low", "high") else "General"

    def histogram_format(r: Mapping[str, Any], c: str) -> str:
        if c in ("bin_from", "bin_to"):
            return _kind_format(metric_kind(str(r["metric"])))
        return {"draws": _kind_format("count")}.get(c, _kind_format("pct") if "share" in c else "General")

    def solver_format(r: Mapping[str, Any], c: str) -> str:
        if c in ("target", "achieved"):
            return _kind_format(metric_kind(str(r["metric"])))
        return _kind_format(driver_kind(str(r["driver"]))) if c == "value" else "General"

    return {
        "Tornado": [Block(data["tornado"], tornado_format, title="One driver at a time", widths={"label": 18})],
        "Grid": [
            Block(data[f"grid_{m}"], grid_format(m), title=METRIC_LABELS[m][:1].upper() + METRIC_LABELS[m][1:])
            for m in GRID_METRICS
        ],
        "Monte Carlo": [
            Block(data["mc_percentiles"], percentile_format, title="Percentiles and where the scenario sits"),
            Block(data["mc_settings"], _by_unit, title="Settings and probabilities", widths={"label": 44}),
            Block(
                data["mc_ranges"],
                driver_format,
                title="Ranges drawn from (why and source)",
                wrap=("why", "source"),
                widths={"why": 60, "source": 50},
            ),
            Block(data["mc_histogram"], histogram_format, title="Histogram (undefined draws in their own row)"),
        ],
        "Solvers": [
            Block(data["solvers"], solver_format, title="Break-even solvers", wrap=("message",), widths={"message": 60})
        ],
    }


SHEET_NOTES = {
    "KPIs": "Result.to_dict() flattened: money in USD, rates as fractions shown as %, months from purchase order. "
    "Empty value = undefined (no IRR sign change, no payback in the horizon, no debt).",
    "Assumptions": "Every input of the scenario and every price of the price book, with date, source and basis. "
    "Overridden prices: overridden = TRUE, price_usd = the override.",
    "Node BoM": "One compute server: quantity × unit price per line [USD].",
    "Fabric": "Back-end (GPU), front-end (Ethernet) and out-of-band networks: counts, power [kW].",
    "Capex": "Cluster capex [USD]; basis = how each line's price is known (quoted, estimate, fitted, override).",
    "Opex": f"Opex per operating year [USD]; {OPERATING_YEAR_NOTE}; a short last year is labelled in months.",
    "Cash flow": "One row per month from the purchase order (month 0) [USD]; cash flows signed, outflows negative.",
    "P&L": f"Per project year: {PROJECT_YEAR_NOTE}. Costs negative [USD].",
    "Tornado": "Each driver at its low and its high value, every other driver at the scenario's value; every "
    "metric, largest swing first. Empty = undefined (no IRR, never paid back, no debt).",
    "Grid": "Two drivers varied together over their ranges, every other driver at the scenario's value: one table "
    "per metric, rows = the first driver (down), columns = the second (across).",
    "Monte Carlo": "Joint draws of every driver from its range; percentiles, where the scenario itself sits "
    "(base_case_percentile: % of draws below it), probabilities, the ranges with why and source, a histogram.",
    "Solvers": "The value of one driver that reaches a target, every other driver at the scenario's value.",
}


def _cell_value(value: Any) -> Any:
    """A value openpyxl writes safely: plain Python scalars, ``None`` for undefined, clean text."""
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    if isinstance(value, str):
        return xml_text(value)
    if isinstance(value, int | float | bool):
        return value
    return xml_text(str(value))


def put(ws: Worksheet, row: int, column: int, value: Any, number_format: str = "General") -> Any:
    """Write one cell; text is always a string cell, with Excel's quote prefix if it looks like a formula."""
    cell = ws.cell(row=row, column=column)
    value = _cell_value(value)
    cell.value = value
    if isinstance(value, str):
        cell.data_type = "s"  # openpyxl would store text starting with "=" as a formula
        if is_formula_like(value):
            cell.quotePrefix = True
    elif value is not None and not isinstance(value, bool):
        cell.number_format = number_format
    return cell


def _display_width(value: Any) -> int:
    """Characters a cell needs in the column (numbers as formatted, roughly)."""
    if finite_number(value):
        return len(f"{value:,.2f}") + 2
    return len(str(value)) if value is not None else 0


def _write_block(ws: Worksheet, block: Block, left: int) -> int:
    """Write ``block`` with its header at :data:`HEADER_ROW` from column ``left``; returns the next free column."""
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
    from openpyxl.utils import get_column_letter

    header_font, bold = Font(bold=True, color="FFFFFF"), Font(bold=True)
    fill = PatternFill("solid", fgColor="264653")
    if block.title:
        put(ws, HEADER_ROW - 1, left, block.title).font = Font(bold=True, size=12)
    frame = block.frame
    for j, column in enumerate(frame.columns):
        cell = put(ws, HEADER_ROW, left + j, str(column))
        cell.font, cell.fill = header_font, fill
        cell.alignment = Alignment(horizontal="center", vertical="center", wrap_text=True)
        cell.border = Border(bottom=Side(style="thin"))
    for i, record in enumerate(records(frame), start=HEADER_ROW + 1):
        key = next(iter(record.values()))
        for j, (column, value) in enumerate(record.items()):
            cell = put(ws, i, left + j, value, block.number_format(record, column))
            if str(key) in block.bold_rows:
                cell.font = bold
            if column in block.wrap:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
    for j, column in enumerate(frame.columns):
        width = block.widths.get(str(column)) or max(
            [_display_width(str(column)) + 2, *(_display_width(v) + 1 for v in frame[column])]
        )
        ws.column_dimensions[get_column_letter(left + j)].width = min(width, MAX_COLUMN_WIDTH)
    return left + len(frame.columns) + 1


def _write_sheet(ws: Worksheet, name: str, blocks: list[Block], heading: str) -> None:
    """Title, note, the blocks side by side, frozen header row (and first column on wide sheets)."""
    from openpyxl.styles import Font

    put(ws, 1, 1, f"{name} — {heading}").font = Font(bold=True, size=14)
    put(ws, 2, 1, SHEET_NOTES[name]).font = Font(italic=True, color="666666")
    left = 1
    for block in blocks:
        left = _write_block(ws, block, left)
    wide = name in ("Cash flow", "P&L", "Opex", "Grid")
    ws.freeze_panes = ws.cell(row=HEADER_ROW + 1, column=2 if wide else 1)


def _write_stacked(ws: Worksheet, block: Block, top: int) -> None:
    """Write ``block`` below the first one (same columns), with its title in the row above its header."""
    from openpyxl.styles import Font

    put(ws, top, 1, block.title).font = Font(bold=True, size=12)
    for i, record in enumerate(records(block.frame), start=top + 1):
        for j, (column, value) in enumerate(record.items()):
            put(ws, i, 1 + j, value, block.number_format(record, column))


def workbook_bytes(result: Result, run: StressRun | None = None) -> bytes:
    """The Excel workbook (sheets :data:`SHEETS`): values only, formatted, formula-injection safe.

    The stress sheets show ``run`` (default :func:`stress_run` with default settings).
    """
    from openpyxl import Workbook

    from .. import __version__

    run = run or stress_run(result)
    data = tables(result)
    blocks = {**sheet_blocks(data), **stress_sheet_blocks(stress_tables(run), run)}
    heading = f"{result.scenario.name} · neoplan {__version__} · {datetime.now(UTC):%Y-%m-%d}"
    wb = Workbook()
    wb.remove(wb.active)
    for name in SHEETS:
        ws = wb.create_sheet(name)
        sheet = blocks[name]
        if name == "P&L":  # debt below the P&L, sharing its year columns, then the loan's terms at close
            _write_sheet(ws, name, sheet[:1], heading)
            debt_top = HEADER_ROW + len(sheet[0].frame) + 2
            _write_stacked(ws, sheet[1], debt_top)
            _write_stacked(ws, sheet[2], debt_top + len(sheet[1].frame) + 3)
        else:
            _write_sheet(ws, name, sheet, heading)
    wb.properties.title = xml_text(f"neoplan — {result.scenario.name}")
    wb.properties.creator = "neoplan"
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()
