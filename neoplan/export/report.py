"""The offline HTML report of a plan: one self-contained file, plotly.js (the copy inside the plotly package,
:func:`plotly_js`) inlined once in the page head, every chart the app's own plotly figure drawn interactive (zoom,
pan, reset, download as PNG named after the scenario), every table from :mod:`.sheets`, all text from the scenario
HTML-escaped. About 5 MB, nearly all of it plotly.js; no request leaves the file.
"""

from __future__ import annotations

import functools
import html
import json
import math
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import formats, metrics
from ..files import slug
from ..finance.statements import DEBT_LABELS, PNL_BOLD, PNL_LABELS, PROJECT_YEAR_NOTE
from .sheets import (
    driver_kind,
    finite_number,
    kind_of_column,
    metric_kind,
    pnl_kind,
    records,
    show,
    stress_run,
    stress_tables,
    tables,
    transposed,
    with_total,
)

if TYPE_CHECKING:
    from plotly.graph_objects import Figure

    from ..analysis.stress import StressRun
    from ..model import Result

REPORT_KPIS = metrics.HEADLINE
"""Headline KPI cards of the report: keys of :data:`neoplan.metrics.METRICS` (label, format, definition)."""

REPORT_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2b33;margin:0;background:#f6f7f9}
main{max-width:1180px;margin:0 auto;padding:24px 28px 60px;background:#fff}
h1{margin:0 0 4px;font-size:1.9rem}h2{margin:36px 0 8px;border-bottom:2px solid #2a9d8f;padding-bottom:4px}
h3{margin:20px 0 6px}.muted{color:#667}.small{font-size:.85rem}
.kpis{display:grid;grid-template-columns:repeat(6,1fr);gap:10px;margin:16px 0}
@media (max-width:900px){.kpis{grid-template-columns:repeat(3,1fr)}}
.kpi{border:1px solid #dde1e6;border-radius:8px;padding:10px 12px;background:#fbfcfd}
.kpi .label{font-size:.8rem;color:#556}.kpi .value{font-size:1.3rem;font-weight:600;margin-top:2px;white-space:nowrap}
.kpi .help{font-size:.72rem;color:#778;margin-top:4px}
table{border-collapse:collapse;font-size:.82rem;margin:6px 0 12px;width:100%}
th{background:#264653;color:#fff;text-align:left;padding:5px 8px;position:sticky;top:0}
td{padding:4px 8px;border-bottom:1px solid #e6e9ec;vertical-align:top}
td.key{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.72rem;overflow-wrap:anywhere;min-width:150px}
td.nowrap{white-space:nowrap}
td.wide{min-width:240px;font-size:.76rem}td.text{min-width:180px}
tr:nth-child(even) td{background:#f8f9fa}td.num,th.num{text-align:right;white-space:nowrap}
tr.bold td{font-weight:700}tr.flag td{background:#fff4e5}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:.75rem;background:#e9ecef}
.badge.quoted{background:#d8f3dc}.badge.estimate{background:#fff3bf}.badge.fitted{background:#dbe4ff}
.badge.override{background:#ffd8a8}
.warn{background:#fff4e5;border-left:4px solid #e76f51;padding:8px 12px;margin:8px 0}
.chart{margin:8px 0 18px;page-break-inside:avoid}
.scroll{overflow-x:auto}
@media print{body{background:#fff}main{padding:0}.chart{break-inside:avoid}th{position:static}}
"""

REPORT_CHARTS: tuple[tuple[str, str], ...] = (
    ("chart-capex", "Capex by category"),
    ("chart-capex-treemap", "Capex by category and line"),
    ("chart-sankey", "Where the cost of a sold GPU-hour goes"),
    ("chart-tco", "TCO per sold GPU-hour"),
    ("chart-cash-flow", "Cash flow and payback"),
    ("chart-irr-price", "IRR against price"),
    ("chart-debt", "Debt and DSCR"),
    ("chart-opex", "Opex per operating year"),
    ("chart-node", "Compute node against the OEM default"),
    ("chart-tornado", "Stress test: equity IRR, one driver at a time"),
    ("chart-grid", "Stress test: equity IRR over two drivers"),
    ("chart-mc", "Stress test: Monte Carlo distribution of equity IRR"),
)
"""Chart div ids of the report and what each shows."""


def report_figures(result: Result, run: StressRun | None = None) -> dict[str, Figure]:
    """The report's plotly figures by div id (:data:`REPORT_CHARTS`); the stress charts show ``run``."""
    from ..charts.base import node_bom_figure
    from ..charts.finance import cash_flow_figure, debt_figure, irr_vs_price_figure, tco_figure
    from ..charts.site import capex_sankey_figure, capex_treemap_figure, capex_waterfall_figure, opex_by_year_figure
    from ..charts.stress import grid_figure, histogram_figure, tornado_figure

    run = run or stress_run(result)
    return {
        "chart-tornado": tornado_figure(run.tornado, "equity_irr"),
        "chart-grid": grid_figure(run.grid, "equity_irr"),
        "chart-mc": histogram_figure(run.monte_carlo, "equity_irr"),
        "chart-capex": capex_waterfall_figure(result),
        "chart-capex-treemap": capex_treemap_figure(result),
        "chart-sankey": capex_sankey_figure(result),
        "chart-tco": tco_figure(result),
        "chart-cash-flow": cash_flow_figure(result),
        "chart-irr-price": irr_vs_price_figure(result),
        "chart-debt": debt_figure(result),
        "chart-opex": opex_by_year_figure(result),
        "chart-node": node_bom_figure(result),
    }


@functools.cache  # keyed on nothing: the plotly.js of the installed plotly, fixed while the process runs
def plotly_js() -> str:
    """plotly.js, minified, as the installed plotly package ships it (:func:`plotly.offline.get_plotlyjs`; about
    4.8 MB): loaded once in the report's head, it draws every chart with no network."""
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` as ``\\u`` escapes, so
    no string of it (a scenario name, say) can close the element or open a comment."""
    text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _chart_html(fig: Figure, div_id: str, stem: str) -> str:
    """One figure as a div and the script that draws it (plotly.js is loaded once in the page head): as wide as the
    page, the mode bar of the app (:func:`neoplan.charts.base.mode_bar`), "download as PNG" saving
    ``<stem>-<chart>.png``. The figure is plotly's JSON (numpy arrays as lists, nan as null) written with
    :func:`script_json`, so no string in it can end the script."""
    from plotly.io import to_json

    from ..charts.base import mode_bar

    figure = json.loads(to_json(fig, validate=False))
    layout = {**figure.get("layout", {}), "autosize": True}
    layout.pop("width", None)
    config = {**mode_bar(f"{stem}-{div_id.removeprefix('chart-')}"), "responsive": True}
    height = int(layout.get("height", 450))
    return (
        f'<div class="chart" id="{div_id}" style="width:100%;height:{height}px"></div>'
        f'<script>Plotly.newPlot("{div_id}", {script_json(figure.get("data", []))}, {script_json(layout)}, '
        f"{script_json(config)});</script>"
    )


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


COLUMN_CLASSES = {"key": "key", "source": "wide", "description": "text", "item": "text", "date": "nowrap"}
"""CSS class of report table columns by name (narrow monospace keys, wide sources)."""
REPORT_HEADERS = {
    "price_usd": "price in force",
    "default_price_usd": "default price",
    "unit_price_usd": "unit price",
    "total_usd": "total",
    "capex_usd": "capex",
    "base_case": "scenario",
    "base_case_percentile": "scenario's percentile",
    "share_undefined": "undefined",
    "base_value": "scenario",
}
"""Readable report headers for table columns (CSV and workbook keep the column names)."""


def _html_cell(value: Any, column: str, kind: str) -> str:
    """One escaped table cell: numbers right-aligned by kind, price bases as badges, ``None`` as a dash."""
    css = COLUMN_CLASSES.get(column, "")
    if column == "basis" and isinstance(value, str) and value:
        return f'<td><span class="badge {_esc(value)}">{_esc(value)}</span></td>'
    if value is None or value == "":
        return "<td></td>" if value == "" else '<td class="num">—</td>'
    if finite_number(value) or (isinstance(value, float) and math.isnan(value)):
        return f'<td class="num">{_esc(show(value, kind))}</td>'
    return f'<td class="{css}">{_esc(show(value))}</td>' if css else f"<td>{_esc(show(value))}</td>"


def html_table(
    frame: pd.DataFrame,
    kinds: Mapping[str, str] | Callable[[Mapping[str, Any], str], str] | None = None,
    bold_rows: Iterable[str] = (),
    flag: Callable[[Mapping[str, Any]], bool] | None = None,
) -> str:
    """``frame`` as an escaped HTML table; numbers formatted by kind (per column, or ``kinds(record, column)``).

    Rows whose first value is in ``bold_rows`` are bold; rows where ``flag(record)`` is true are highlighted.
    """

    def kind(record: Mapping[str, Any], column: str) -> str:
        if callable(kinds):
            return kinds(record, column)
        return (kinds or {}).get(column) or kind_of_column(column)

    bold = set(bold_rows)
    head = "".join(
        f'<th class="{"num" if any(finite_number(v) for v in frame[c]) else ""}">{_esc(REPORT_HEADERS.get(c, c))}</th>'
        for c in frame.columns
    )
    rows = []
    for record in records(frame):
        cells = "".join(_html_cell(v, c, kind(record, c)) for c, v in record.items())
        marks = (("bold", str(next(iter(record.values()))) in bold), ("flag", bool(flag and flag(record))))
        css = " ".join(name for name, on in marks if on)
        rows.append(f'<tr class="{css}">{cells}</tr>' if css else f"<tr>{cells}</tr>")
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _kpi_cards(result: Result) -> str:
    """The headline KPI cards."""
    price = result.scenario.pricing.usd_per_gpu_hour
    cards = [("Headline price", show(price, "usd_hour"), "On-demand price of a GPU-hour at go-live (input).")]
    cards += metrics.cards(result.to_dict(), REPORT_KPIS)
    return (
        '<div class="kpis">'
        + "".join(
            f'<div class="kpi"><div class="label">{_esc(lbl)}</div><div class="value">{_esc(v)}</div>'
            f'<div class="help">{_esc(n)}</div></div>'
            for lbl, v, n in cards
        )
        + "</div>"
    )


def _summary(result: Result) -> str:
    """One paragraph: what is built, where and how it is paid for."""
    s, f, d = result.scenario, result.facility, result.to_dict()
    fin = s.financing
    b = d["backend"]
    spares = f" + {result.spare_servers:,} hot spares" if result.spare_servers else ""
    nodes = "racks" if result.platform.rack_scale else "servers"
    parts = [
        f"{result.gpus:,} × {result.platform.name} GPUs in {result.servers:,} {nodes}{spares}",
        f"{metrics.text('racks', f.racks)} racks, {metrics.text('it_power_peak_kw', f.it_peak_kw)} IT at peak, "
        f"PUE {s.facility.pue:g}",
        f"back end {b['topology']} {b['oversubscription']:g}:1 ({b['leaf_switches']} leaf / {b['spine_switches']} "
        f"spine / {b['core_switches']} core switches)",
        f"{result.storage.usable_pb:g} PB usable storage on {result.storage.servers} servers",
        f"go-live in {metrics.text('go_live_month', d['go_live_month'])}, horizon {s.timeline.horizon_months} months",
        (
            f"{formats.pct(fin.debt_share)} debt at {formats.pct(fin.interest_rate)} over {fin.term_months} months"
            if fin.debt_share > 0
            else "all equity, no debt"
        )
        + f"; hurdle rate {formats.pct(fin.hurdle_rate)}",
        f"sold at {show(s.pricing.usd_per_gpu_hour, 'usd_hour')} headline, "
        f"{formats.pct(s.pricing.steady_utilization)} utilization, {_book_text(result)}",
    ]
    return "<ul>" + "".join(f"<li>{_esc(p)}</li>" for p in parts) + "</ul>"


def _book_text(result: Result) -> str:
    """The contract book in a few words: ``70 % take-or-pay 36 months, 20 % on demand, idle 50 % at spot``."""
    parts = []
    for c in result.contract_book():
        if c["kind"] == "idle_spot":
            parts.append(f"idle hours {formats.pct(c['share'])} at spot")
        else:
            term = f" {c['term_months']} months" if c["term_months"] else ""
            parts.append(f"{formats.pct(c['share'])} {c['kind'].replace('_', '-')}{term}")
    return ", ".join(parts)


def _basis_note(result: Result, by_basis: pd.DataFrame) -> str:
    """Which share of capex rests on quoted, estimated, fitted or overridden prices."""
    parts = [f"{formats.pct(share)} {basis}" for basis, share in zip(by_basis["basis"], by_basis["share"], strict=True)]
    overrides = len(result.scenario.prices)
    noun = "price" if overrides == 1 else "prices"
    tail = f" {overrides} {noun} overridden by the scenario (highlighted in the price book)." if overrides else ""
    return (
        f'<p class="small">Capex by how its prices are known: {_esc(", ".join(parts))}. <b>quoted</b> = a public '
        "price; <b>estimate</b> = judgement (the source says why); <b>fitted</b> = set to reproduce a published "
        f"calibration target.{_esc(tail)}</p>"
    )


def _overridden(prices: pd.DataFrame) -> Callable[[Mapping[str, Any]], bool]:
    """Row test: is this price-book row overridden by the scenario (by its key)."""
    keys = set(prices.loc[prices["overridden"].astype(bool), "key"])
    return lambda record: record.get("key") in keys


def _section(title: str, *parts: str) -> str:
    return f"<section><h2>{_esc(title)}</h2>{''.join(parts)}</section>"


def _stress_note(run: StressRun) -> str:
    """What the Monte Carlo says, and where the scenario sits in it, in one paragraph."""
    mc = run.monte_carlo
    where = mc.base_percentile("equity_irr")
    measured = mc.measured_correlation
    correlation = (
        f"price–utilization rank correlation {mc.correlation:g} asked, {measured:.3f} drawn"
        if mc.correlation and measured is not None
        else "price and utilization drawn independently"
    )
    place = (
        f"The scenario itself sits at percentile {where:.0f} of the equity IRR draws ({where:.0f} % of draws "
        "do worse). "
        if where is not None
        else ""
    )
    return (
        f'<p class="small"><b>Which run:</b> {_esc(run.settings.text())}.</p>'
        f'<p class="small">{_esc(place)}Probability of loss (equity gets back less than it put in): '
        f"<b>{_esc(formats.pct(mc.probability_of_loss))}</b>; NPV below zero at the hurdle rate: "
        f"{_esc(formats.pct(mc.probability_npv_negative))}; minimum DSCR below the {mc.covenant_dscr:.2f}× covenant: "
        f"{_esc(formats.pct(mc.probability_dscr_breach))}. {mc.draws:,} draws, seed {mc.seed}, "
        f"{_esc(correlation)}. Every driver is drawn from the range below (triangular: low, the scenario's value, "
        "high unless stated); the ranges sit evenly around the scenario's values unless their reason says "
        "otherwise.</p>"
    )


def _stress_section(run: StressRun, data: Mapping[str, pd.DataFrame], charts: Mapping[str, str]) -> str:
    """The stress test: tornado, grid, Monte Carlo with where the scenario sits, ranges with sources, solvers."""
    percentiles = data["mc_percentiles"].drop(columns=["metric"])
    kinds = dict(zip(data["mc_percentiles"]["label"], data["mc_percentiles"]["metric"], strict=True))

    def percentile_kind(record: Mapping[str, Any], column: str) -> str:
        if column == "base_case_percentile":
            return "kw"  # one decimal
        return "pct" if column == "share_undefined" else metric_kind(kinds[str(record["label"])])

    ranges = data["mc_ranges"].drop(columns=["driver"])
    labels = {
        spec_label: key for key, spec_label in zip(data["mc_ranges"]["driver"], data["mc_ranges"]["label"], strict=True)
    }
    solvers = data["solvers"][["solver", "value", "unit", "message"]]
    solver_drivers = dict(zip(data["solvers"]["solver"], data["solvers"]["driver"], strict=True))
    return _section(
        "Stress test",
        _stress_note(run),
        charts["chart-tornado"],
        charts["chart-grid"],
        charts["chart-mc"],
        "<h3>Monte Carlo percentiles</h3>",
        html_table(percentiles, percentile_kind),
        "<h3>Ranges, and why</h3>",
        html_table(
            ranges,
            lambda r, c: driver_kind(labels[str(r["label"])]) if c in ("base_value", "low", "high") else "number",
        ),
        "<h3>Break-even solvers</h3>",
        html_table(solvers, lambda r, c: driver_kind(solver_drivers[str(r["solver"])]) if c == "value" else "number"),
    )


def _report_body(result: Result, data: Mapping[str, pd.DataFrame], charts: Mapping[str, str], run: StressRun) -> str:
    """The report's sections, in reading order."""
    s = result.scenario
    pnl = transposed(data["pnl"], "year", PNL_LABELS)
    debt = transposed(data["debt"], "year", DEBT_LABELS)
    warnings = "".join(f'<div class="warn">{_esc(w)}</div>' for w in result.warnings)
    bom = data["node_bom"].drop(columns=["category"])
    return "".join(
        [
            _section("Headline figures", _kpi_cards(result), _basis_note(result, data["capex_by_basis"]), warnings),
            _section(
                "Capex",
                charts["chart-capex"],
                charts["chart-capex-treemap"],
                html_table(data["capex_by_category"], bold_rows=("Total",)),
                "<details><summary>All capex lines</summary>",
                html_table(data["capex_lines"].drop(columns=["key"])),
                "</details>",
            ),
            _section("Cost per GPU-hour", charts["chart-tco"], charts["chart-sankey"]),
            _section("Cash flow and returns", charts["chart-cash-flow"], charts["chart-irr-price"]),
            _section(
                "Profit and loss by project year",
                f'<p class="small muted">{_esc(PROJECT_YEAR_NOTE)}. Costs negative.</p>',
                html_table(pnl, pnl_kind, bold_rows=[PNL_LABELS[k] for k in PNL_BOLD]),
            ),
            _section("Debt", charts["chart-debt"], html_table(debt, lambda *_: "usd")),
            _stress_section(run, data, charts),
            _section("Opex", charts["chart-opex"], html_table(data["opex_by_year"], lambda *_: "usd", ("Total",))),
            _section(
                "Compute node",
                charts["chart-node"],
                html_table(with_total(bom, "item", ["total_usd"]), bold_rows=("Total",)),
            ),
            _section("Networks", html_table(data["fabric"], lambda r, _c: "kw" if r.get("unit") == "kW" else "count")),
            _section(
                "Assumptions",
                f'<p class="small">Scenario <b>{_esc(s.name)}</b>'
                f"{' (from preset ' + _esc(s.base) + ')' if s.base else ''}. Fractions are shown as entered.</p>",
                html_table(data["inputs"], lambda *_: "number"),
            ),
            _section(
                "Price book and sources",
                '<p class="small">Every unit price the model can use, the price in force (overrides highlighted), '
                "its date, source and basis.</p>",
                html_table(data["prices"].drop(columns=["category", "overridden"]), flag=_overridden(data["prices"])),
            ),
        ]
    )


def html_report(result: Result, run: StressRun | None = None) -> str:
    """A single self-contained HTML report (plotly.js inlined once; works offline, no external references).

    The stress section shows ``run`` (default :func:`stress_run` with default settings).
    """
    from .. import __version__

    run = run or stress_run(result)
    data = {**tables(result), **stress_tables(run)}

    stem = slug(result.scenario.name)
    charts = {div_id: _chart_html(fig, div_id, stem) for div_id, fig in report_figures(result, run).items()}
    s = result.scenario
    description = f"<p>{_esc(s.description)}</p>" if s.description else ""
    generated = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(s.name)} — neoplan report</title><style>{REPORT_CSS}</style>"
        f'<script type="text/javascript">{plotly_js()}</script></head><body><main>'
        f'<p class="muted small">GPU cloud capacity plan · neoplan {__version__} · generated {generated}</p>'
        f"<h1>{_esc(s.name)}</h1>{description}{_summary(result)}"
        f"{_report_body(result, data, charts, run)}"
        '<p class="small muted">Money in nominal USD; month 0 = purchase order; IRR annual = (1 + monthly IRR)^12 − 1; '
        "NPV and TCO at the hurdle rate. Full tables in the Excel workbook and CSVs exported with this report.</p>"
        "</main></body></html>\n"
    )
