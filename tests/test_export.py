"""Exports: workbook matches Result, every sheet filled, formula-injection safe; CSVs; offline HTML report; CLI."""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl import Workbook, load_workbook
from plotly_support import assert_house_figure

from neoplan import evaluate, load_scenario
from neoplan import export as ex
from neoplan.analysis import stress
from neoplan.charts.finance import pnl_by_year
from neoplan.cli import main

ROOT = Path(__file__).resolve().parent.parent
HOSTILE_NAME = '=HYPERLINK("x")'
HOSTILE_DESCRIPTION = "@SUM(1+1)*cmd|' /C calc'!A0 <script>alert(1)</script>"
OVERRIDE_KEY = "cpu_mid"


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    return evaluate(load_scenario("optimized"))


@pytest.fixture(scope="module")
def hostile():  # type: ignore[no-untyped-def]
    """A scenario whose free text would run as formulas or script, with one price overridden."""
    scenario = load_scenario(
        {"base": "optimized", "name": HOSTILE_NAME, "description": HOSTILE_DESCRIPTION, "prices": {OVERRIDE_KEY: 999}}
    )
    return evaluate(scenario)


@pytest.fixture(scope="module")
def workbook(result):  # type: ignore[no-untyped-def]
    return load_workbook(io.BytesIO(ex.workbook_bytes(result)))


@pytest.fixture(scope="module")
def hostile_workbook_bytes(hostile) -> bytes:  # type: ignore[no-untyped-def]
    return ex.workbook_bytes(hostile)


@pytest.fixture(scope="module")
def report(result) -> str:  # type: ignore[no-untyped-def]
    return ex.html_report(result)


def _rows(ws, left: int = 1) -> list[dict]:  # type: ignore[no-untyped-def]
    """Data rows of the block whose header starts at (HEADER_ROW, left), as dicts, up to the first blank row."""
    header = []
    for cell in ws[ex.HEADER_ROW][left - 1 :]:
        if cell.value is None:
            break
        header.append(cell.value)
    out = []
    for row in ws.iter_rows(min_row=ex.HEADER_ROW + 1, min_col=left, max_col=left + len(header) - 1):
        if all(c.value is None for c in row):
            break
        out.append(dict(zip(header, (c.value for c in row), strict=True)))
    return out


def _blocks(ws) -> list[list[dict]]:  # type: ignore[no-untyped-def]
    """Every block side by side on a sheet (header runs at HEADER_ROW split by an empty column), as _rows."""
    lefts, previous = [], None
    for cell in ws[ex.HEADER_ROW]:
        if cell.value is not None and previous is None:
            lefts.append(cell.column)
        previous = cell.value
    return [_rows(ws, left) for left in lefts]


def _lf(text: str) -> str:
    """XML reads a bare CR back as LF; compare line breaks as LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _same(a: object, b: object) -> bool:
    """Equal numbers (to 1e-12), an empty cell where the model's value is undefined (nan), or equal values."""
    if isinstance(a, float | int) and isinstance(b, float | int) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-9)
    for cell, value in ((a, b), (b, a)):
        if cell is None and isinstance(value, float) and math.isnan(value):
            return True
    return a == b


# --- workbook -----------------------------------------------------------------------------------


def test_workbook_has_every_sheet_filled(workbook) -> None:  # type: ignore[no-untyped-def]
    assert workbook.sheetnames == list(ex.SHEETS)
    for ws in workbook:
        assert len(_rows(ws)) >= 3, ws.title
        assert ws.freeze_panes in ("A5", "B5"), ws.title
        assert ws.cell(ex.HEADER_ROW, 1).font.bold, ws.title


def test_kpi_sheet_matches_result_to_dict(workbook, result) -> None:  # type: ignore[no-untyped-def]
    rows = _rows(workbook["KPIs"])
    sheet = {r["key"]: r["value"] for r in rows}
    expected = ex.flatten(result.to_dict())
    assert list(sheet) == list(expected)
    mismatched = {k: (sheet[k], v) for k, v in expected.items() if not _same(sheet[k], v)}
    assert mismatched == {}
    for key in ("capex_usd.total", "tco_usd_per_gpu_hour", "project_irr", "min_dscr", "backend.leaf_switches"):
        assert key in sheet
    assert sheet["tco_breakdown_usd_per_gpu_hour.capital"] == pytest.approx(
        result.tco_breakdown_usd_per_gpu_hour["capital"]
    )


def test_kpi_sheet_formats_money_rates_and_months(workbook) -> None:  # type: ignore[no-untyped-def]
    ws = workbook["KPIs"]
    cells = {ws.cell(r, 1).value: ws.cell(r, 3) for r in range(ex.HEADER_ROW + 1, ws.max_row + 1)}
    assert cells["capex_usd.total"].number_format.startswith('"$"#,##0')
    assert cells["tco_usd_per_gpu_hour"].number_format == '"$"#,##0.00'
    assert cells["project_irr"].number_format == "0.0%"
    assert cells["go_live_month"].number_format == "0.0"  # months (the preset's payback is undefined: empty)
    assert cells["payback_months"].value is None
    assert cells["gpus"].number_format == "#,##0"


def test_undefined_kpi_is_an_empty_cell() -> None:
    no_debt_no_payback = evaluate(
        load_scenario({"base": "optimized", "financing": {"debt_share": 0.0}, "pricing": {"usd_per_gpu_hour": 0.5}})
    )
    d = no_debt_no_payback.to_dict()
    assert d["payback_months"] is None and d["min_dscr"] is None
    no_debt = stress.Settings(ranges={"debt_share": stress.Range(0.0, 0.2, "fixed")}, draws=300)
    book = load_workbook(io.BytesIO(ex.workbook_bytes(no_debt_no_payback, ex.stress_run(no_debt_no_payback, no_debt))))
    sheet = {r["key"]: r["value"] for r in _rows(book["KPIs"])}
    assert sheet["payback_months"] is None
    assert sheet["min_dscr"] is None
    # no debt in any draw: no DSCR percentile, a histogram of one row holding every draw, no breach
    percentiles, settings, _, histogram = _blocks(book["Monte Carlo"])
    dscr = next(r for r in percentiles if r["metric"] == "min_dscr")
    assert (dscr["p10"], dscr["p50"], dscr["p90"], dscr["share_undefined"]) == (None, None, None, 1)
    assert [(r["bin_from"], r["draws"]) for r in histogram if r["metric"] == "min_dscr"] == [(None, 300)]
    assert {r["key"]: r["value"] for r in settings}["probability_dscr_breach"] == 0


def test_assumptions_hold_every_input_and_every_price(workbook, result) -> None:  # type: ignore[no-untyped-def]
    ws = workbook["Assumptions"]
    inputs = _rows(ws)
    values = {(r["section"], r["field"]): r["value"] for r in inputs}
    assert values[("cluster", "gpus")] == 1024
    assert values[("fabric.frontend", "port_gbps")] == 100
    assert values[("financing", "interest_rate")] == pytest.approx(0.11)
    assert len(inputs) == len(ex.input_table(result))
    units = {(r["section"], r["field"]): r["unit"] for r in inputs}
    assert units[("facility", "colo_usd_per_kw_month")] == "USD/kW-month"
    prices = _rows(ws, left=len(ex.input_table(result).columns) + 2)
    assert {r["key"] for r in prices} == set(result.book.rows)
    qm9700 = next(r for r in prices if r["key"] == "ib_switch_qm9700")
    row = result.book.row("ib_switch_qm9700")
    assert (qm9700["price_usd"], qm9700["source"], qm9700["basis"], qm9700["date"]) == (
        row.price_usd,
        row.source,
        row.basis,
        row.date,
    )
    assert all(r["source"] and r["basis"] in ("quoted", "estimate", "fitted") for r in prices)


def test_other_sheets_match_the_result(workbook, result) -> None:  # type: ignore[no-untyped-def]
    bom = _rows(workbook["Node BoM"])
    assert bom[-1]["category"] == "Total"
    assert bom[-1]["total_usd"] == pytest.approx(result.node_capex_usd)
    capex = {r["category"]: r["capex_usd"] for r in _rows(workbook["Capex"])}
    assert capex["Total"] == pytest.approx(result.capex_total_usd)
    lines = _rows(workbook["Capex"], left=len(ex.capex_by_category_table(result).columns) * 2 + 3)
    assert len(lines) == len(result.capex_lines) + 1
    assert lines[-1]["total_usd"] == pytest.approx(result.capex_total_usd)
    fabric = {(r["network"], r["group"], r["item"]): r["quantity"] for r in _rows(workbook["Fabric"])}
    assert fabric[("back end", "switches", "leaf")] == result.fabric.backend.leaf_switches
    assert fabric[("back end", "transceivers", "total")] == result.fabric.backend.transceivers
    assert fabric[("OOB", "switches", "access")] == result.fabric.oob.access_switches
    opex = {r["category"]: r for r in _rows(workbook["Opex"])}
    assert opex["Total"]["Year 2"] == pytest.approx(result.opex_for_year(2)["total"])
    cash = _rows(workbook["Cash flow"])
    assert len(cash) == result.ops.dates.months
    assert cash[-1]["cumulative_project_usd"] == pytest.approx(result.monthly_table()["cumulative_project_usd"].iat[-1])
    pnl = {r["line"]: r for r in _rows(workbook["P&L"])}
    assert pnl["Net income"]["Total"] == pytest.approx(pnl_by_year(result).loc["Total", "net_income_usd"])
    assert workbook["P&L"]["B5"].number_format.startswith('"$"')


def test_the_debt_sheet_shows_the_schedule_fixed_at_close_the_reserve_and_the_sweep() -> None:
    fin = {"sizing": "capex_share", "dsra_months": 6, "term_months": 84}
    r = evaluate(load_scenario({"base": "optimized", "financing": fin}))
    sheet = load_workbook(io.BytesIO(ex.workbook_bytes(r, ex.stress_run(r, stress.Settings(draws=50, grid_points=3)))))[
        "P&L"
    ]
    cells = {str(c.value): c for row in sheet.iter_rows() for c in row if c.value is not None}
    for label in (
        "Principal repaid (installments fixed at close)",
        "Swept from sale proceeds",
        "Debt service reserve funded",
        "Debt service reserve drawn",
        "Debt service reserve released",
        "Months locked up",
        "Loan at financial close",
    ):
        assert label in cells, label
    swept = cells["Sale proceeds swept into the loan"]
    assert sheet.cell(swept.row, swept.column + 1).value == pytest.approx(float(r.ops.cash.debt.swept.sum()))
    reserve = next(c for text, c in cells.items() if text.startswith("Debt service reserve (6 months)"))
    assert sheet.cell(reserve.row, reserve.column + 1).value == pytest.approx(
        float(r.ops.cash.debt.reserve_funded.sum())
    )
    assert float(r.ops.cash.debt.swept.sum()) > 0  # an 84-month loan: the horizon's sale repays part of it


def test_workbook_holds_values_only(hostile_workbook_bytes: bytes) -> None:
    with zipfile.ZipFile(io.BytesIO(hostile_workbook_bytes)) as z:
        sheets = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/worksheets/")]
    assert sheets and not any("<f>" in s or "<f " in s for s in sheets)


def test_formula_like_text_comes_out_as_text(hostile_workbook_bytes: bytes) -> None:
    wb = load_workbook(io.BytesIO(hostile_workbook_bytes))
    kpis = {r["key"]: r["value"] for r in _rows(wb["KPIs"])}
    assert kpis["scenario"] == HOSTILE_NAME
    risky = []
    for ws in wb:
        for row in ws.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (ws.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str) and ex.is_formula_like(cell.value):
                    risky.append(cell)
                    assert cell.data_type == "s" and cell.quotePrefix, (ws.title, cell.coordinate)
    texts = {c.value for c in risky}
    assert {HOSTILE_NAME, HOSTILE_DESCRIPTION} <= texts


def test_price_override_is_flagged(hostile) -> None:  # type: ignore[no-untyped-def]
    wb = load_workbook(io.BytesIO(ex.workbook_bytes(hostile)))
    ws = wb["Assumptions"]
    inputs = {(r["section"], r["field"]): r["value"] for r in _rows(ws)}
    assert inputs[("prices", OVERRIDE_KEY)] == 999
    prices = {r["key"]: r for r in _rows(ws, left=len(ex.input_table(hostile).columns) + 2)}
    assert prices[OVERRIDE_KEY]["overridden"] is True
    assert prices[OVERRIDE_KEY]["price_usd"] == 999
    assert prices[OVERRIDE_KEY]["default_price_usd"] == hostile.book.row(OVERRIDE_KEY).price_usd
    basis = dict(zip(*ex.capex_by_basis_table(hostile)[["basis", "capex_usd"]].T.values, strict=True))
    assert basis["override"] == pytest.approx(999 * 2 * hostile.servers)


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1", '=HYPERLINK("x")'])
def test_put_writes_formula_like_text_as_quoted_text(text: str) -> None:
    wb = Workbook()
    ex.put(wb.active, 1, 1, text)
    buffer = io.BytesIO()
    wb.save(buffer)
    cell = load_workbook(buffer).active["A1"]
    assert (cell.value, cell.data_type, cell.quotePrefix) == (_lf(text), "s", True)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40))
def test_any_text_round_trips_as_text(text: str) -> None:
    wb = Workbook()
    ex.put(wb.active, 1, 1, text)
    buffer = io.BytesIO()
    wb.save(buffer)
    cell = load_workbook(buffer).active["A1"]
    clean = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "", text)
    assert cell.data_type == "s" or (cell.value is None and clean == "")
    if clean:
        assert _lf(cell.value) == _lf(clean)


# --- CSV ----------------------------------------------------------------------------------------


def test_csv_per_table_parses_and_matches(result) -> None:  # type: ignore[no-untyped-def]
    files = ex.csv_tables(result)
    assert list(files) == list(ex.TABLES)
    frames = {name: pd.read_csv(io.BytesIO(data)) for name, data in files.items()}
    for name, frame in ex.tables(result).items():
        assert list(frames[name].columns) == [str(c) for c in frame.columns], name
        assert len(frames[name]) == len(frame), name
    pd.testing.assert_frame_equal(frames["capex_lines"], result.capex_table(), check_dtype=False)
    pd.testing.assert_frame_equal(frames["node_bom"], result.bom_table(), check_dtype=False)
    pd.testing.assert_frame_equal(frames["cash_flow"], result.monthly_table(), check_dtype=False, rtol=1e-12)
    pd.testing.assert_frame_equal(
        frames["pnl"].set_index("year"), pnl_by_year(result), check_dtype=False, check_names=False, rtol=1e-12
    )
    kpis = dict(zip(frames["kpis"]["key"], frames["kpis"]["value"], strict=True))
    for key, value in ex.flatten(result.to_dict()).items():
        if isinstance(value, float | int) and not isinstance(value, bool):
            assert float(kpis[key]) == pytest.approx(value, rel=1e-12), key
    assert len(frames["prices"]) == len(result.book.rows)


def test_csv_escapes_formula_like_text(hostile) -> None:  # type: ignore[no-untyped-def]
    files = ex.csv_tables(hostile)
    assert f"'{HOSTILE_NAME}" in pd.read_csv(io.BytesIO(files["kpis"]))["value"].tolist()
    for name, data in files.items():
        for row in csv.reader(io.StringIO(data.decode("utf-8"))):
            for field in row:
                if field.startswith(ex.FORMULA_TRIGGERS):
                    assert field.startswith("-") and re.fullmatch(r"-[0-9.e+-]+", field), (name, field)


def test_csv_zip_holds_every_table(result) -> None:  # type: ignore[no-untyped-def]
    with zipfile.ZipFile(io.BytesIO(ex.csv_zip_bytes(result, "x_"))) as z:
        assert sorted(z.namelist()) == sorted(f"x_{n}.csv" for n in ex.TABLES)


# --- HTML report --------------------------------------------------------------------------------


def test_number_formats_match_the_app() -> None:
    assert ex.show(1_740_000, "usd") == "$1.74 M"
    assert ex.show(256_400, "usd") == "$256,400"
    assert ex.show(-6_898_521, "usd") == "−$6.90 M"
    assert ex.show(2.13, "usd_hour") == "$2.13 /GPU-h"
    assert ex.show(0.184, "pct") == "18.4 %"
    assert ex.show(None, "pct") == ex.show(math.nan, "usd") == "n/a"


def test_report_shows_the_headline_kpis(report: str, result) -> None:  # type: ignore[no-untyped-def]
    k = result.to_dict()
    for text in (
        ex.show(k["capex_usd"]["total"], "usd"),
        ex.show(k["capex_per_gpu_usd"], "usd"),
        ex.show(k["tco_usd_per_gpu_hour"], "usd_hour"),
        ex.show(k["breakeven_usd_per_gpu_hour"], "usd_hour"),
        ex.show(k["project_irr"], "pct"),
        ex.show(k["equity_irr"], "pct"),
        ex.show(k["npv_usd"], "usd"),
        f"{ex.show(k['payback_months'], 'months')} months" if k["payback_months"] is not None else "n/a",
        ex.show(k["min_dscr"], "ratio"),
        result.scenario.name.replace("'", "&#x27;"),
    ):
        assert text in report, text
    assert "$38.66 M" in report and "$256,400" in report  # the optimized preset's capex and node price


def _embedded_figures(report: str) -> dict[str, dict[str, Any]]:
    """The figure (data, layout, config) each ``Plotly.newPlot("id", data, layout, config)`` call of the report
    draws, by div id."""
    decoder = json.JSONDecoder()
    out = {}
    for match in re.finditer(r'Plotly\.newPlot\("([\w-]+)", ', report):
        data, end = decoder.raw_decode(report, match.end())
        layout, end = decoder.raw_decode(report, end + 2)
        config, _ = decoder.raw_decode(report, end + 2)
        out[match.group(1)] = {"data": data, "layout": layout, "config": config}
    return out


def test_report_embeds_every_chart_and_plotly_once(report: str, result) -> None:  # type: ignore[no-untyped-def]
    """plotly.js once in the head; every chart of REPORT_CHARTS a div and the app's own figure drawn into it, valid
    plotly in the house style, with the app's mode bar and the PNG named after the scenario and the chart."""
    import plotly.graph_objects as go

    for div_id, _ in ex.REPORT_CHARTS:
        assert f'<div class="chart" id="{div_id}"' in report, div_id
    assert report.count(ex.plotly_js()[:500]) == 1
    figures = _embedded_figures(report)
    assert sorted(figures) == sorted(div_id for div_id, _ in ex.REPORT_CHARTS)
    for div_id, fig in figures.items():
        assert_house_figure(go.Figure({"data": fig["data"], "layout": fig["layout"]}), div_id)
        assert fig["config"]["toImageButtonOptions"]["filename"] == f"{ex.slug(result.scenario.name)}-{div_id[6:]}"
        assert "lasso2d" in fig["config"]["modeBarButtonsToRemove"]
    assert [t["type"] for t in figures["chart-capex"]["data"]] == ["waterfall"]
    assert [t["type"] for t in figures["chart-capex-treemap"]["data"]] == ["treemap"]
    assert [t["type"] for t in figures["chart-sankey"]["data"]] == ["sankey"]
    assert figures["chart-grid"]["data"][0]["type"] == "contour"  # the metric; the NPV = 0 line where the grid
    # crosses it is tested on a plan near break-even in tests/test_page_stress.py


def test_report_json_cannot_close_its_script() -> None:
    """A string in a chart (a scenario or quote name) cannot end the <script> that holds the figure."""
    text = ex.script_json({"name": "</script><script>alert(1)</script><!-- & "})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script><!-- & "}


def test_a_hostile_name_stays_inside_its_script() -> None:
    """The scenario's name reaches the charts' JSON (the PNG's file name is its slug): it cannot close the script."""
    r = evaluate(load_scenario({"base": "optimized", "name": "</script><script>alert(1)</script>"}))
    report = ex.html_report(r, stress.run_all(r, stress.Settings(draws=50, grid_points=3)))
    assert "<script>alert(1)" not in report


def test_report_is_offline_and_its_size_is_plotly_js_and_a_little(report: str) -> None:
    """No reference leaves the file; plotly.js (about 4.8 MB) is nearly all of its size."""
    assert not re.search(r"<script[^>]*\bsrc\s*=", report, re.IGNORECASE)
    assert not re.search(r"<link[^>]*\bhref\s*=\s*[\"']?https?:", report, re.IGNORECASE)
    assert not re.search(r"<img[^>]*\bsrc\s*=\s*[\"']?https?:", report, re.IGNORECASE)
    assert len(report.encode("utf-8")) < len(ex.plotly_js().encode("utf-8")) + 1_000_000


def test_report_holds_tables_and_sources(report: str, result) -> None:  # type: ignore[no-untyped-def]
    for heading in (
        "Profit and loss by project year",
        "Debt",
        "Opex",
        "Compute node",
        "Networks",
        "Assumptions",
        "Price book and sources",
    ):
        assert f"<h2>{heading}</h2>" in report, heading
    row = result.book.row("ib_switch_qm9700")
    assert html.escape(row.source) in report


def test_report_escapes_scenario_text(hostile) -> None:  # type: ignore[no-untyped-def]
    page = ex.html_report(hostile)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '<tr class="flag">' in page  # the overridden price is highlighted


# --- stress sheets and report section -------------------------------------------------------------


@pytest.fixture(scope="module")
def run(result) -> stress.StressRun:  # type: ignore[no-untyped-def]
    settings = stress.Settings(
        ranges={"utilization": stress.Range(0.6, 0.95, "uniform")},
        draws=500,
        seed=3,
        correlation=0.4,
        covenant_dscr=1.3,
        grid_x="pue",
        grid_y="usd_per_gpu_hour",
        grid_points=5,
        target_equity_irr=0.15,
        run="the run on the Stress test page",
    )
    return ex.stress_run(result, settings)


@pytest.fixture(scope="module")
def stress_book(result, run):  # type: ignore[no-untyped-def]
    return load_workbook(io.BytesIO(ex.workbook_bytes(result, run)))


def test_tornado_sheet_matches_stress(stress_book, run) -> None:  # type: ignore[no-untyped-def]
    rows = _rows(stress_book["Tornado"])
    assert len(rows) == len(stress.METRICS) * len(stress.DRIVERS)
    for metric in stress.METRICS:
        sheet = [r for r in rows if r["metric"] == metric]
        expected = run.tornado.records(metric)
        assert [r["driver"] for r in sheet] == [e["driver"] for e in expected]  # largest swing first
        for got, want in zip(sheet, expected, strict=True):
            for column in ("low_value", "high_value", "metric_at_low", "metric_at_high", "change_at_high"):
                want_value = None if not math.isfinite(want[column]) else want[column]
                assert _same(got[column], want_value) or got[column] == want_value, (metric, got["driver"], column)
            assert _same(got["metric_at_base"], run.tornado.base[metric])
    util = next(r for r in rows if r["driver"] == "utilization")
    assert (util["low_value"], util["high_value"]) == (0.6, 0.95)  # the ranges of the run, not the defaults
    ws = stress_book["Tornado"]
    header = [c.value for c in ws[ex.HEADER_ROW]]
    irr_row = next(r for r in range(ex.HEADER_ROW + 1, ws.max_row + 1) if ws.cell(r, 1).value == "equity_irr")
    assert ws.cell(irr_row, header.index("metric_at_low") + 1).number_format == "0.0%"


def test_grid_sheet_matches_stress(stress_book, run) -> None:  # type: ignore[no-untyped-def]
    blocks = _blocks(stress_book["Grid"])
    assert len(blocks) == len(ex.GRID_METRICS)
    for block, metric in zip(blocks, ex.GRID_METRICS, strict=True):
        assert len(block) == run.grid.y.size
        for iy, row in enumerate(block):
            values = list(row.values())
            assert _same(values[0], float(run.grid.y[iy]))
            for ix, value in enumerate(values[1:]):
                z = float(run.grid.metrics[metric][iy, ix])
                assert _same(value, z) if math.isfinite(z) else value is None, (metric, iy, ix)
    assert list(blocks[0][0])[1:] == [ex.show(float(v), "number") for v in run.grid.x]  # PUE across


def test_monte_carlo_sheet_matches_stress(stress_book, run) -> None:  # type: ignore[no-untyped-def]
    mc = run.monte_carlo
    percentiles, settings, ranges, histogram = _blocks(stress_book["Monte Carlo"])
    by_metric = {r["metric"]: r for r in percentiles}
    assert list(by_metric) == list(stress.METRICS)
    for metric, row in by_metric.items():
        for k, v in mc.percentiles(metric).items():
            assert _same(row[k], v) or row[k] is v is None, (metric, k)
        assert _same(row["base_case_percentile"], mc.base_percentile(metric))
        assert _same(row["base_case"], mc.deterministic[metric])
        assert _same(row["share_undefined"], mc.share_undefined(metric))
    values = {r["key"]: r["value"] for r in settings}
    assert (values["draws"], values["seed"], values["price_utilization_correlation"]) == (500, 3, 0.4)
    assert values["run"] == run.settings.text()  # the export says which run it holds
    assert values["run"].startswith("the run on the Stress test page: 500 Monte Carlo draws, seed 3")
    assert "grid PUE × Rental price at 5 points a side" in values["run"]
    assert values["measured_rank_correlation"] == pytest.approx(0.4, abs=0.01)
    assert values["covenant_dscr"] == 1.3
    assert values["probability_of_loss"] == pytest.approx(float((mc.metrics["equity_moic"] < 1).mean()))
    assert values["probability_dscr_breach"] == pytest.approx(float((mc.metrics["min_dscr"] < 1.3).mean()))
    assert values["probability_npv_negative"] == mc.probability_npv_negative
    assert {r["driver"]: (r["low"], r["high"], r["distribution"]) for r in ranges} == {
        k: (r.low, r.high, r.distribution) for k, r in mc.ranges.items()
    }
    assert all(r["why"] and r["source"] for r in ranges)
    for metric in stress.METRICS:
        bins = [r for r in histogram if r["metric"] == metric]
        assert sum(r["draws"] for r in bins) == mc.draws, metric
        assert bins[-1]["cumulative_share"] == pytest.approx(1.0)
        undefined = [r for r in bins if r["bin_from"] is None]
        assert sum(r["draws"] for r in undefined) == round(mc.share_undefined(metric) * mc.draws), metric


def test_solver_sheet_matches_stress(stress_book, run) -> None:  # type: ignore[no-untyped-def]
    rows = _rows(stress_book["Solvers"])
    assert [r["solver"] for r in rows] == list(stress.SOLVERS.values())
    for row, sol in zip(rows, run.solutions.values(), strict=True):
        assert (row["driver"], row["metric"], row["target"], row["message"]) == (
            sol.driver,
            sol.metric,
            sol.target,
            sol.message,
        )
        assert _same(row["value"], sol.value) or row["value"] is sol.value is None
    assert rows[0]["target"] == 0.15 and rows[2]["target"] == 1.3  # the run's target IRR and covenant


def test_default_stress_sheets_are_reproducible(result) -> None:  # type: ignore[no-untyped-def]
    a, b = ex.stress_run(result), ex.stress_run(result)
    assert a.settings == stress.Settings() and a.monte_carlo.seed == 0
    assert a.settings.text().startswith(f"{stress.DEFAULT_RUN}: 10,000 Monte Carlo draws, seed 0")
    assert a.monte_carlo.summary() == b.monte_carlo.summary()


def test_report_holds_the_stress_test(result, run) -> None:  # type: ignore[no-untyped-def]
    page = ex.html_report(result, run)
    mc = run.monte_carlo
    section = page[page.index("<h2>Stress test</h2>") :]
    where = mc.base_percentile("equity_irr")
    assert f"percentile {where:.0f} of the equity IRR draws" in section
    assert ex.show(mc.probability_of_loss, "pct") in section
    assert f"below the {mc.covenant_dscr:.2f}× covenant: {ex.show(mc.probability_dscr_breach, 'pct')}" in section
    assert "500 draws, seed 3" in section and "0.4 asked" in section
    assert f"<b>Which run:</b> {html.escape(run.settings.text())}" in section
    for key in ("chart-tornado", "chart-grid", "chart-mc"):
        assert f'id="{key}"' in section
    for spec in stress.DRIVERS.values():
        assert html.escape(spec.source) in section, spec.key
    assert ex.show(mc.percentiles("npv_usd")["p50"], "usd") in section


# --- files and CLI ------------------------------------------------------------------------------


def test_write_report_writes_every_file(result, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    paths = ex.write_report(result, tmp_path / "out")
    names = {p.name for p in paths}
    stem = ex.slug(result.scenario.name)
    assert names == {f"{stem}.xlsx", f"{stem}_report.html", *(f"{stem}_{n}.csv" for n in ex.TABLES)}
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths)


def test_cli_report_writes_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "optimized", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.split()
    assert len(printed) == 2 + len(ex.TABLES)
    assert all(Path(p).is_file() for p in printed)
    assert any(p.endswith(".xlsx") for p in printed) and any(p.endswith("_report.html") for p in printed)


@pytest.mark.parametrize(
    ("content", "expected"),
    [(None, "no such file"), ("cluster: {gpus: 1001}\n", "cluster.gpus"), ("base: optimized\nnope: 1\n", "nope")],
)
def test_cli_report_bad_file_exits_2_with_one_line(tmp_path: Path, content: str | None, expected: str) -> None:
    path = tmp_path / "bad.yaml"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "neoplan", "report", str(path), "--out", str(tmp_path / "out")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error:") and expected in proc.stderr
    assert not (tmp_path / "out").exists()


def test_cli_report_unwritable_out_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert main(["report", "optimized", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err


def test_cli_report_takes_the_stress_draws_and_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "optimized", "--out", str(tmp_path), "--draws", "200", "--seed", "9"]) == 0
    book = next(Path(p) for p in capsys.readouterr().out.split() if p.endswith(".xlsx"))
    settings = {r["key"]: r["value"] for r in _blocks(load_workbook(book)["Monte Carlo"])[1]}
    assert (settings["draws"], settings["seed"]) == (200, 9)
    assert settings["run"].startswith("the command line's (--draws, --seed): 200 Monte Carlo draws, seed 9")
    out = tmp_path / "bad"
    assert main(["report", "optimized", "--out", str(out), "--draws", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "draws must be a whole number" in err
    assert not out.exists()  # nothing written when the stress settings are bad
