"""Exports of a :class:`~neoplan.model.Result`: Excel workbook, one CSV per table, a self-contained HTML report.

Every export is built from the same tidy tables (:func:`tables`), so the workbook, the CSVs and the
report never disagree. The stress test (:mod:`neoplan.stress`: tornado, grid, Monte Carlo, solvers) is run
once per export with the settings the user ran on the Stress test page, or default settings with seed 0,
and fills the workbook's last four sheets and the report's stress section (:func:`stress_tables`).
Values only: no spreadsheet formulas. Money in nominal USD, rates as fractions
(shown as percent), time in months from the purchase order unless a table says otherwise.

Formula injection: text that a spreadsheet could run (starting with ``= + - @``, a tab or a carriage
return, OWASP's list) is written as text. In the workbook such a cell is a string cell with Excel's
quote prefix (what typing an apostrophe does: the text shows unchanged and is never evaluated, even
after an edit); in the CSVs, which carry no types, the text gets a leading apostrophe.

The HTML report is one offline file: plotly.js is inlined once in the page head, every chart is an
interactive plotly div, and all text from the scenario is HTML-escaped.
"""

from __future__ import annotations

import html
import io
import math
import re
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from pydantic import BaseModel

from .. import formats, metrics
from ..statements import (
    DEBT_LABELS,
    OPERATING_YEAR_NOTE,
    PNL_BOLD,
    PNL_LABELS,
    PROJECT_YEAR_NOTE,
    capex_by_category,
    debt_by_year,
    opex_by_year,
    pnl_by_year,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go
    from openpyxl.worksheet.worksheet import Worksheet

    from ..model import Result
    from ..stress import Settings, StressRun

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet treat text as a formula (OWASP CSV injection)."""
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
"""Workbook sheets, in order; the last four hold the stress test (:mod:`neoplan.stress`)."""
STRESS_SHEETS = ("Tornado", "Grid", "Monte Carlo", "Solvers")
TABLES = {
    "kpis": "Every figure of the JSON contract (Result.to_dict), flattened: key, label, value, unit, definition.",
    "inputs": "Every scenario input: section, field, value, unit and help text.",
    "prices": "Every price-book row: price in force, default price, date, source, basis, overridden.",
    "node_bom": "One compute server's bill of materials: quantity × unit price per line [USD].",
    "fabric": "Back-end, front-end and OOB networks: switches, links, transceivers, cables, ports, power.",
    "capex_lines": "Every cluster capex line: category, item, quantity, unit price, total, price basis [USD].",
    "capex_by_category": "Capex by category with its share of the total [USD, fraction].",
    "capex_by_basis": "Capex by price basis (quoted, estimate, fitted, override) with its share [USD, fraction].",
    "opex_by_year": f"Opex by category per operating year ({OPERATING_YEAR_NOTE}) [USD].",
    "cash_flow": "Monthly accounts and cash flows, month 0 = purchase order; outflows negative [USD].",
    "pnl": "Profit and loss per project year (Y1 = months 0–11 after the purchase order); costs negative [USD].",
    "debt": "Debt schedule per project year: draws, interest, principal, fees, CFADS, balance [USD].",
}
"""CSV tables by name, with what each holds."""

_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_UNIT_IN_BRACKETS = re.compile(r"\[([^\[\]]+)\]")
HEADER_ROW = 4
MAX_COLUMN_WIDTH = 60

# --- escaping -----------------------------------------------------------------------------------


def is_formula_like(text: str) -> bool:
    """True if a spreadsheet could read ``text`` as a formula (it starts with ``= + - @``, tab or CR)."""
    return text.startswith(FORMULA_TRIGGERS)


def csv_safe(value: Any) -> Any:
    """``value`` with a leading apostrophe if it is formula-like text; anything else unchanged."""
    return "'" + value if isinstance(value, str) and is_formula_like(value) else value


def _xml_text(text: str) -> str:
    """``text`` without the control characters an xlsx file cannot hold."""
    return _ILLEGAL_XML.sub("", text)


def slug(name: str) -> str:
    """A file-name stem from a scenario name: ``Optimized (article's BoM)`` → ``optimized_article_s_bom``."""
    stem = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return stem[:60].rstrip("_") or "scenario"


# --- value kinds: one number format for the workbook and one for the report --------------------


@dataclass(frozen=True)
class Kind:
    """How a number is shown: an Excel number format and a formatter for the HTML report."""

    excel: str
    text: Callable[[float], str]


def _price(value: float) -> str:
    """A unit price: cents below $100 (``$0.08``), else whole dollars (``$2,600``)."""
    return f"{'−' if value < 0 else ''}${abs(value):,.2f}" if abs(value) < 100 else formats.usd(value)


KINDS: dict[str, Kind] = {
    "usd": Kind('"$"#,##0;[Red]-"$"#,##0', formats.usd),
    "price": Kind('"$"#,##0.00', _price),
    "usd_hour": Kind('"$"#,##0.00', formats.usd_per_gpu_hour),
    "pct": Kind("0.0%", formats.pct),
    "months": Kind("0.0", lambda v: f"{v:,.1f}"),
    "month": Kind("0", lambda v: f"{v:,.0f}"),
    "ratio": Kind('0.00"×"', formats.ratio),
    "count": Kind("#,##0", lambda v: f"{v:,.0f}"),
    "kw": Kind("#,##0.0", lambda v: f"{v:,.1f}"),
    "number": Kind("General", lambda v: f"{v:,.6g}"),
}
NA = formats.NA


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def show(value: Any, kind: str = "number") -> str:
    """``value`` as report text: numbers by ``kind`` (a key of :data:`KINDS`), undefined as ``n/a``."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return NA
    if isinstance(value, bool):
        return "yes" if value else "no"
    if _finite(value):
        return KINDS[kind].text(float(value))
    return str(value)


def kind_of_column(name: str) -> str:
    """Display kind of a table column from its name (units in names, ARCHITECTURE.md)."""
    if name in ("unit_price_usd", "price_usd", "default_price_usd"):
        return "price"
    rules = (
        (("_usd_per_gpu_hour",), "usd_hour"),
        (("_usd",), "usd"),
        (("share", "_margin", "_irr", "_rate"), "pct"),
        (("_months",), "months"),
        (("dscr", "moic"), "ratio"),
        (("gpu_hours",), "count"),
        (("_kw",), "kw"),
    )
    if name == "month":
        return "month"
    return next((kind for ends, kind in rules if name.endswith(ends)), "number")


def kind_of_unit(unit: str) -> str:
    """Display kind from a unit label: ``USD``, ``USD/GPU-h``, ``fraction …``, ``months``, ``ratio``, ``count``."""
    if unit.startswith("USD/GPU-h"):
        return "usd_hour"
    if unit in ("USD", "USD/year"):
        return "usd"
    if unit.startswith("USD"):
        return "price"
    if unit.startswith("fraction"):
        return "pct"
    return {"months": "months", "ratio": "ratio", "count": "count", "kW": "kw"}.get(unit, "number")


# --- tables -------------------------------------------------------------------------------------

KPI_LABELS = {"scenario": "Scenario", "gpu_model": "GPU platform"}
"""Labels of the KPI sheet's keys that are not headline figures (those take :data:`neoplan.metrics.METRICS`)."""
KPI_GROUP_LABELS = {
    "backend": "Back end",
    "capex_usd": "Capex",
    "opex_usd_per_year": "Opex per year (run rate)",
    "storage": "Storage",
    "tco_breakdown_usd_per_gpu_hour": "TCO per GPU-hour",
    "warnings": "Warning",
}


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts as one level with dotted keys; list items as ``key.1``, ``key.2`` … ."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{name}."))
        elif isinstance(value, list | tuple):
            out.update({f"{name}.{i}": item for i, item in enumerate(value, start=1)})
        else:
            out[name] = value
    return out


def kpi_unit(key: str, value: Any) -> str:
    """Unit of a flattened ``to_dict`` key: the registry's (:mod:`neoplan.metrics`), else from the name."""
    if key in metrics.METRICS:
        return metrics.METRICS[key].unit
    rules = (
        (lambda k: k.startswith("tco_breakdown_usd_per_gpu_hour.") or k.endswith("_usd_per_gpu_hour"), "USD/GPU-h"),
        (lambda k: k.startswith("opex_usd_per_year."), "USD/year"),
        (lambda k: k.endswith("_usd") or k.startswith("capex_usd."), "USD"),
        (lambda k: k.endswith(("_irr", "_margin")), "fraction"),
        (lambda k: k.endswith(("_months", "_month")), "months"),
        (lambda k: k.endswith(("dscr", "moic", "oversubscription")), "ratio"),
        (lambda k: k.endswith("_kw"), "kW"),
        (lambda k: k.endswith("_pb"), "PB"),
        (lambda k: k.endswith("_gbyte_per_s"), "GB/s"),
    )
    unit = next((u for rule, u in rules if rule(key)), "")
    if not unit and isinstance(value, int) and not isinstance(value, bool):
        return "count"
    return unit


def kpi_label(key: str) -> str:
    """Readable label of a flattened ``to_dict`` key: ``capex_usd.backend_network`` → ``Capex: backend network``."""
    if key in metrics.METRICS:
        return metrics.METRICS[key].label
    if key in KPI_LABELS:
        return KPI_LABELS[key]
    group, _, leaf = key.partition(".")
    if group in KPI_GROUP_LABELS:
        return f"{KPI_GROUP_LABELS[group]}: {leaf.replace('_', ' ')}"
    return key.replace("_", " ").replace(".", ": ")


def kpi_table(result: Result) -> pd.DataFrame:
    """Every value of ``result.to_dict()``, flattened: key, label, value, unit (``None`` = undefined)."""
    rows = [
        {"key": k, "label": kpi_label(k), "value": v, "unit": kpi_unit(k, v), "definition": _definition(k)}
        for k, v in flatten(result.to_dict()).items()
    ]
    return pd.DataFrame(rows, columns=["key", "label", "value", "unit", "definition"])


def _definition(key: str) -> str:
    """The one-sentence definition of a headline figure (:data:`neoplan.metrics.METRICS`), else ''."""
    return metrics.METRICS[key].definition if key in metrics.METRICS else ""


def unit_of_description(description: str) -> str:
    """The unit in a field description's first brackets: ``Power per rack [kW].`` → ``kW`` ('' if none)."""
    match = _UNIT_IN_BRACKETS.search(description or "")
    return match.group(1) if match else ""


def _input_rows(section: BaseModel, path: str) -> Iterable[dict[str, Any]]:
    """One row per scalar field of ``section`` (nested sections recursed)."""
    for name, info in type(section).model_fields.items():
        value = getattr(section, name)
        if isinstance(value, BaseModel):
            yield from _input_rows(value, f"{path}.{name}" if path != "scenario" else name)
            continue
        if isinstance(value, Mapping):
            continue  # price overrides: rows of their own, with the book's units
        desc = info.description or ""
        yield {"section": path, "field": name, "value": value, "unit": unit_of_description(desc), "description": desc}


def input_table(result: Result) -> pd.DataFrame:
    """Every scenario input: section, field, value, unit, description; price overrides under ``prices``."""
    rows = list(_input_rows(result.scenario, "scenario"))
    for key, value in result.scenario.prices.items():
        row = result.book.row(key)
        rows.append(
            {
                "section": "prices",
                "field": key,
                "value": value,
                "unit": f"USD per {row.unit}",
                "description": f"Override of: {row.description}",
            }
        )
    return pd.DataFrame(rows, columns=["section", "field", "value", "unit", "description"])


def price_table(result: Result) -> pd.DataFrame:
    """Every price-book row with the price in force, its default, date, source, basis and overridden flag."""
    columns = [
        "key",
        "category",
        "description",
        "unit",
        "price_usd",
        "default_price_usd",
        "date",
        "basis",
        "overridden",
        "source",
    ]
    return pd.DataFrame(result.book.records(), columns=columns)


def bom_table(result: Result) -> pd.DataFrame:
    """One compute server's BoM lines [USD] (``Result.bom_table``)."""
    return result.bom_table()


def _item_label(kind: str, items: Mapping[str, str]) -> str:
    """``server_optic`` → ``server optic (xcvr_ndr_server)``: the kind and its network-catalogue key."""
    key = items.get(kind)
    return kind.replace("_", " ") + (f" ({key})" if key else "")


def fabric_table(result: Result) -> pd.DataFrame:
    """The three networks as tidy rows: network, group, item, quantity, unit."""
    f = result.fabric
    b, fe, o = f.backend, f.frontend, f.oob
    rows: list[tuple[str, str, str, float, str]] = [
        ("back end", "switches", "leaf", b.leaf_switches, "count"),
        ("back end", "switches", "spine", b.spine_switches, "count"),
        ("back end", "switches", "core", b.core_switches, "count"),
        ("back end", "switches", "modular chassis", b.chassis, "count"),
        ("back end", "switches", "chassis line cards", b.line_cards, "count"),
        ("back end", "links", "server → leaf", b.links_server_leaf, "count"),
        ("back end", "links", "leaf → spine", b.links_leaf_spine, "count"),
        ("back end", "links", "spine → core", b.links_spine_core, "count"),
    ]
    optics = b.transceivers_by_type.items()
    rows += [("back end", "transceivers", _item_label(t, b.items), n, "count") for t, n in optics if n]
    rows.append(("back end", "transceivers", "total", b.transceivers, "count"))
    rows += [("back end", "cables", _item_label(m, b.items), n, "count") for m, n in b.cables_by_medium.items() if n]
    rows += [
        ("back end", "cables", "total", b.cables, "count"),
        ("back end", "ports", "NIC endpoints", b.endpoints, "count"),
        ("back end", "ports", "switch ports used", b.switch_ports_used, "count"),
        ("back end", "ports", "switch ports available", b.switch_ports_available, "count"),
        ("back end", "site", "network racks", b.network_racks, "count"),
        ("back end", "site", "power", b.power_kw, "kW"),
        ("back end", "site", "UFM licences", f.ufm_licences, "count"),
        ("front end", "switches", "leaf", fe.leaf_switches, "count"),
        ("front end", "switches", "spine", fe.spine_switches, "count"),
        ("front end", "switches", "core", fe.core_switches, "count"),
        ("front end", "links", "server → leaf", fe.links_server_leaf, "count"),
        ("front end", "links", "leaf → spine", fe.links_leaf_spine, "count"),
        ("front end", "links", "spine → core", fe.links_spine_core, "count"),
        ("front end", "transceivers", "total", fe.transceivers, "count"),
        ("front end", "cables", "total", fe.cables, "count"),
        ("front end", "ports", "endpoints", fe.endpoints, "count"),
        ("front end", "site", "network racks", fe.network_racks, "count"),
        ("front end", "site", "power", fe.power_kw, "kW"),
        ("OOB", "switches", "access", o.access_switches, "count"),
        ("OOB", "switches", "aggregation", o.aggregation_switches, "count"),
        ("OOB", "ports", "BMC ports", o.bmc_ports, "count"),
        ("OOB", "ports", "switch management ports", o.switch_ports, "count"),
        ("OOB", "ports", "PDU ports", o.pdu_ports, "count"),
        ("OOB", "cables", "uplink cables", o.uplink_cables, "count"),
        ("OOB", "cables", "patch cords", o.patch_cords, "count"),
        ("OOB", "site", "power", o.power_kw, "kW"),
    ]
    frame = pd.DataFrame(rows, columns=["network", "group", "item", "quantity", "unit"])
    frame["quantity"] = frame["quantity"].astype(float)
    return frame


def capex_lines_table(result: Result) -> pd.DataFrame:
    """Every cluster capex line [USD] (``Result.capex_table``)."""
    return result.capex_table()


def capex_by_category_table(result: Result) -> pd.DataFrame:
    """Capex by category with its share of the total, and a ``Total`` row [USD, fraction] (``statements``)."""
    return capex_by_category(result)


def capex_by_basis_table(result: Result) -> pd.DataFrame:
    """Capex by price basis of its lines (quoted, estimate, fitted, override), largest first [USD, fraction]."""
    totals: dict[str, float] = {}
    for line in result.capex_lines:
        totals[line.basis] = totals.get(line.basis, 0.0) + line.total_usd
    grand = sum(totals.values())
    rows = [
        {"basis": basis, "capex_usd": usd, "share": usd / grand if grand else math.nan}
        for basis, usd in sorted(totals.items(), key=lambda kv: -kv[1])
    ]
    return pd.DataFrame(rows, columns=["basis", "capex_usd", "share"])


def opex_by_year_table(result: Result) -> pd.DataFrame:
    """Opex by category (rows, with ``Total``) per operating year (columns; year 1 starts at go-live) [USD]."""
    table = opex_by_year(result)
    table.index.name = "category"
    return table.reset_index()


def cash_flow_table(result: Result) -> pd.DataFrame:
    """Monthly accounts and cash flows (``Result.monthly_table``) [USD]."""
    return result.monthly_table()


def pnl_table(result: Result) -> pd.DataFrame:
    """P&L per project year (rows ``Y1`` … and ``Total``; columns as ``statements.pnl_by_year``) [USD]."""
    return pnl_by_year(result).reset_index()


def debt_table(result: Result) -> pd.DataFrame:
    """Debt schedule per project year (rows ``Y1`` … and ``Total``; ``statements.debt_by_year``) [USD]."""
    return debt_by_year(result).reset_index()


TABLE_BUILDERS: dict[str, Callable[[Result], pd.DataFrame]] = {
    "kpis": kpi_table,
    "inputs": input_table,
    "prices": price_table,
    "node_bom": bom_table,
    "fabric": fabric_table,
    "capex_lines": capex_lines_table,
    "capex_by_category": capex_by_category_table,
    "capex_by_basis": capex_by_basis_table,
    "opex_by_year": opex_by_year_table,
    "cash_flow": cash_flow_table,
    "pnl": pnl_table,
    "debt": debt_table,
}
"""The function building each table of :data:`TABLES`."""


def tables(result: Result) -> dict[str, pd.DataFrame]:
    """Every exported table by name (the keys of :data:`TABLES`), unescaped values."""
    return {name: TABLE_BUILDERS[name](result) for name in TABLES}


# --- stress test tables ---------------------------------------------------------------------------

HISTOGRAM_BINS = 20
"""Bins of the Monte Carlo histogram table (per metric, equal width over the defined draws)."""


def metric_kind(metric: str) -> str:
    """Display kind of a stress metric (:data:`neoplan.stress.METRICS`)."""
    if metric.endswith("_irr"):
        return "pct"
    return {"npv_usd": "usd", "payback_months": "months"}.get(metric, "ratio")


def driver_kind(driver: str) -> str:
    """Display kind of a stress driver's values, from its unit."""
    from ..stress import DRIVERS

    unit = DRIVERS[driver].unit
    return {"× design": "ratio", "ratio": "number", "USD/kWh": "number"}.get(unit) or kind_of_unit(unit)


def tornado_table(run: StressRun) -> pd.DataFrame:
    """Every driver at its low and its high value, for every metric (largest swing first within a metric)."""
    from ..stress import METRIC_LABELS, METRICS

    rows = [
        {"metric": m, "metric_label": METRIC_LABELS[m], **r, "metric_at_base": run.tornado.base[m]}
        for m in METRICS
        for r in run.tornado.records(m)
    ]
    columns = [
        "metric",
        "metric_label",
        "driver",
        "label",
        "unit",
        "base_value",
        "low_value",
        "high_value",
        "metric_at_base",
        "metric_at_low",
        "metric_at_high",
        "change_at_low",
        "change_at_high",
    ]
    return pd.DataFrame(rows, columns=columns)


def grid_table(run: StressRun, metric: str) -> pd.DataFrame:
    """``metric`` over the grid: one row per y value (first column), one column per x value (header as text)."""
    from ..stress import DRIVERS

    g = run.grid
    x_kind, y_label = driver_kind(g.x_driver), DRIVERS[g.y_driver].label
    corner = f"{y_label} ↓ / {DRIVERS[g.x_driver].label} →"
    header = [show(float(v), x_kind) for v in g.x]
    if len(set(header)) < len(header):  # values closer than the display shows them
        header = [f"{float(v):.6g}" for v in g.x]
    frame = pd.DataFrame(g.metrics[metric], columns=header)
    frame.insert(0, corner, g.y)
    return frame


def mc_percentile_table(run: StressRun) -> pd.DataFrame:
    """P10/P50/P90 of every metric, the scenario's own value, its percentile and the share undefined."""
    from ..stress import METRIC_LABELS, METRICS

    mc = run.monte_carlo
    return pd.DataFrame(
        [
            {
                "metric": m,
                "label": METRIC_LABELS[m],
                **mc.percentiles(m),
                "base_case": mc.deterministic.get(m),
                "base_case_percentile": mc.base_percentile(m),
                "share_undefined": mc.share_undefined(m),
            }
            for m in METRICS
        ]
    )


def mc_settings_table(run: StressRun) -> pd.DataFrame:
    """The run's settings and probabilities: key, label, value, unit."""
    mc = run.monte_carlo
    rows = [
        ("draws", "Draws", mc.draws, "count"),
        ("seed", "Seed (same seed, same draws)", mc.seed, "count"),
        ("price_utilization_correlation", "Price–utilization rank correlation asked", mc.correlation, "number"),
        ("measured_rank_correlation", "Price–utilization rank correlation drawn", mc.measured_correlation, "number"),
        ("covenant_dscr", "DSCR covenant", mc.covenant_dscr, "ratio"),
        ("probability_of_loss", "Probability of loss (equity MOIC < 1)", mc.probability_of_loss, "fraction"),
        ("probability_npv_negative", "Probability NPV < 0 at the hurdle rate", mc.probability_npv_negative, "fraction"),
        (
            "probability_dscr_breach",
            "Probability of a covenant breach (min DSCR < covenant)",
            mc.probability_dscr_breach,
            "fraction",
        ),
    ]
    return pd.DataFrame(rows, columns=["key", "label", "value", "unit"])


def mc_ranges_table(run: StressRun) -> pd.DataFrame:
    """The ranges the Monte Carlo drew from: driver, base, low, high, distribution, why and source."""
    from ..stress import DRIVERS

    rows = []
    for key, rng in run.monte_carlo.ranges.items():
        spec = DRIVERS[key]
        rows.append(
            {
                "driver": key,
                "label": spec.label,
                "unit": spec.unit,
                "base_value": run.tornado.base_values[key],
                "low": rng.low,
                "high": rng.high,
                "distribution": rng.distribution,
                "why": spec.why,
                "source": spec.source,
            }
        )
    return pd.DataFrame(rows)


def mc_histogram_table(run: StressRun, bins: int = HISTOGRAM_BINS) -> pd.DataFrame:
    """Histogram of every metric over the draws: equal-width bins of the defined values, then a row of the
    undefined draws (no IRR, never paid back, no debt); share and cumulative share of all draws."""
    import numpy as np

    from ..stress import METRICS, WORST_LOW

    mc = run.monte_carlo
    rows = []
    for m in METRICS:
        values = mc.metrics[m]
        defined = values[np.isfinite(values)]
        undefined = int(values.size - defined.size)
        part: list[dict[str, Any]] = []
        if defined.size:
            counts, edges = np.histogram(defined, bins=bins)
            part = [
                {"metric": m, "bin_from": float(a), "bin_to": float(b), "draws": int(c)}
                for a, b, c in zip(edges[:-1], edges[1:], counts, strict=True)
            ]
        if undefined:
            gap: dict[str, Any] = {"metric": m, "bin_from": None, "bin_to": None, "draws": undefined}
            part = [gap, *part] if m in WORST_LOW else [*part, gap]  # undefined ranks lowest or highest
        cumulative = 0
        for row in part:
            count = row["draws"]
            cumulative += count
            row["share"] = count / values.size
            row["cumulative_share"] = cumulative / values.size
        rows += part
    return pd.DataFrame(rows, columns=["metric", "bin_from", "bin_to", "draws", "share", "cumulative_share"])


def solver_table(run: StressRun) -> pd.DataFrame:
    """Every break-even solver: driver, metric, target, the value found (empty if out of reach), achieved, why."""
    from ..stress import DRIVERS, SOLVERS

    return pd.DataFrame(
        [
            {
                "solver": SOLVERS[key],
                "driver": sol.driver,
                "unit": DRIVERS[sol.driver].unit,
                "metric": sol.metric,
                "target": sol.target,
                "value": sol.value,
                "achieved": sol.achieved,
                "message": sol.message,
            }
            for key, sol in run.solutions.items()
        ]
    )


GRID_METRICS = ("equity_irr", "npv_usd", "project_irr", "min_dscr")
"""Metrics tabled over the two-way grid (one block each on the Grid sheet)."""


def stress_tables(run: StressRun) -> dict[str, pd.DataFrame]:
    """Every stress table by name: tornado, grid_<metric>, mc_percentiles, mc_settings, mc_ranges, mc_histogram,
    solvers."""
    return {
        "tornado": tornado_table(run),
        **{f"grid_{m}": grid_table(run, m) for m in GRID_METRICS},
        "mc_percentiles": mc_percentile_table(run),
        "mc_settings": mc_settings_table(run),
        "mc_ranges": mc_ranges_table(run),
        "mc_histogram": mc_histogram_table(run),
        "solvers": solver_table(run),
    }


def stress_run(result: Result, settings: Settings | None = None) -> StressRun:
    """The stress test the exports show: :func:`neoplan.stress.run_all` with ``settings`` (default settings)."""
    from ..stress import run_all

    return run_all(result, settings)


# --- CSV ----------------------------------------------------------------------------------------


def escaped(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with formula-like text cells (and column names) prefixed by an apostrophe."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(csv_safe).astype(object)
    out.columns = [csv_safe(str(c)) for c in out.columns]
    return out


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as UTF-8 CSV, no index, formula-like text escaped; undefined values as empty fields."""
    return escaped(frame).to_csv(index=False, lineterminator="\n").encode("utf-8")


def csv_table(result: Result, name: str) -> bytes:
    """One table of :data:`TABLES` as CSV bytes."""
    return csv_bytes(TABLE_BUILDERS[name](result))


def csv_tables(result: Result) -> dict[str, bytes]:
    """One CSV per table (keys of :data:`TABLES`; write each as ``<name>.csv``)."""
    return {name: csv_bytes(frame) for name, frame in tables(result).items()}


def csv_zip_bytes(result: Result, prefix: str = "") -> bytes:
    """Every CSV of :func:`csv_tables` in one zip archive (``<prefix><name>.csv``)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in csv_tables(result).items():
            archive.writestr(f"{prefix}{name}.csv", data)
    return buffer.getvalue()


# --- workbook -----------------------------------------------------------------------------------


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


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows of ``frame`` as dicts keyed by column name (as text)."""
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]


def _by_column(_: Mapping[str, Any], column: str) -> str:
    """Excel format from the column name."""
    return KINDS[kind_of_column(column)].excel


def _by_unit(record: Mapping[str, Any], column: str) -> str:
    """Excel format of the ``value`` column from the row's ``unit``; text columns General."""
    return KINDS[kind_of_unit(str(record.get("unit") or ""))].excel if column == "value" else "General"


def _with_total(frame: pd.DataFrame, label_column: str, sum_columns: Iterable[str]) -> pd.DataFrame:
    """``frame`` with a ``Total`` row summing ``sum_columns``."""
    total: dict[str, Any] = dict.fromkeys(frame.columns, "")
    total[label_column] = "Total"
    total.update({c: float(frame[c].sum()) for c in sum_columns})
    return pd.concat([frame, pd.DataFrame([total])], ignore_index=True)


def _transposed(frame: pd.DataFrame, index: str, labels: Mapping[str, str]) -> pd.DataFrame:
    """Years as columns, line items as rows (first column ``line`` holds the readable label)."""
    table = frame.set_index(index).T
    table.insert(0, "line", [labels.get(str(k), str(k)) for k in table.index])
    table.columns = [str(c) for c in table.columns]
    return table.reset_index(drop=True)


def _pnl_kind(record: Mapping[str, Any], _column: str = "") -> str:
    """Kind of a transposed P&L row: margins as percent, everything else money."""
    margins = {PNL_LABELS[k] for k in PNL_LABELS if k.endswith("_margin")}
    return "pct" if record.get("line") in margins else "usd"


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
                _with_total(data["node_bom"], "category", ["total_usd"]),
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
                _with_total(data["capex_lines"], "category", ["total_usd"]),
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
                _transposed(data["pnl"], "year", PNL_LABELS),
                lambda r, c: KINDS[_pnl_kind(r)].excel,
                title="Profit and loss",
                bold_rows=tuple(PNL_LABELS[k] for k in PNL_BOLD),
            ),
            Block(_transposed(data["debt"], "year", DEBT_LABELS), lambda *_: usd, title="Debt"),
        ],
    }


def _kind_format(kind: str) -> str:
    return KINDS[kind].excel


def stress_sheet_blocks(data: Mapping[str, pd.DataFrame], run: StressRun) -> dict[str, list[Block]]:
    """What goes on each stress sheet (:data:`STRESS_SHEETS`), from :func:`stress_tables`."""
    from ..stress import METRIC_LABELS

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
        return _xml_text(value)
    if isinstance(value, int | float | bool):
        return value
    return _xml_text(str(value))


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
    if _finite(value):
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
        if name == "P&L":  # debt below the P&L, sharing its year columns
            _write_sheet(ws, name, sheet[:1], heading)
            _write_stacked(ws, sheet[1], HEADER_ROW + len(sheet[0].frame) + 2)
        else:
            _write_sheet(ws, name, sheet, heading)
    wb.properties.title = _xml_text(f"neoplan — {result.scenario.name}")
    wb.properties.creator = "neoplan"
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


# --- HTML report --------------------------------------------------------------------------------

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


def report_figures(result: Result, run: StressRun | None = None) -> dict[str, go.Figure]:
    """The report's plotly figures by div id (:data:`REPORT_CHARTS`); the stress charts show ``run``."""
    from ..charts.base import node_bom_figure
    from ..charts.finance import cash_flow_figure, debt_figure, irr_vs_price_figure, tco_figure
    from ..charts.site import capex_waterfall_figure, opex_by_year_figure
    from ..charts.stress import grid_figure, histogram_figure, tornado_figure

    run = run or stress_run(result)
    return {
        "chart-tornado": tornado_figure(run.tornado, "equity_irr"),
        "chart-grid": grid_figure(run.grid, "equity_irr"),
        "chart-mc": histogram_figure(run.monte_carlo, "equity_irr"),
        "chart-capex": capex_waterfall_figure(result),
        "chart-tco": tco_figure(result),
        "chart-cash-flow": cash_flow_figure(result),
        "chart-irr-price": irr_vs_price_figure(result),
        "chart-debt": debt_figure(result),
        "chart-opex": opex_by_year_figure(result),
        "chart-node": node_bom_figure(result),
    }


def _chart_html(fig: go.Figure, div_id: str) -> str:
    """One figure as a div (plotly.js is loaded once in the page head)."""
    config = {"displaylogo": False, "responsive": True, "toImageButtonOptions": {"format": "png", "scale": 2}}
    body = fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config=config, default_width="100%")
    return f'<div class="chart">{body}</div>'


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
    if _finite(value) or (isinstance(value, float) and math.isnan(value)):
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
        f'<th class="{"num" if any(_finite(v) for v in frame[c]) else ""}">{_esc(REPORT_HEADERS.get(c, c))}</th>'
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
    parts = [
        f"{result.gpus:,} × {result.platform.name} GPUs in {result.servers:,} servers{spares}",
        f"{metrics.text('racks', f.racks)} racks, {metrics.text('it_power_peak_kw', f.it_peak_kw)} IT at peak, "
        f"PUE {s.facility.pue:g}",
        f"back end {b['topology']} {b['oversubscription']:g}:1 ({b['leaf_switches']} leaf / {b['spine_switches']} "
        f"spine / {b['core_switches']} core switches)",
        f"{s.storage.usable_pb:g} PB usable storage on {result.storage.servers} servers",
        f"go-live in {metrics.text('go_live_month', d['go_live_month'])}, horizon {s.timeline.horizon_months} months",
        (
            f"{formats.pct(fin.debt_share)} debt at {formats.pct(fin.interest_rate)} over {fin.term_months} months"
            if fin.debt_share > 0
            else "all equity, no debt"
        )
        + f"; hurdle rate {formats.pct(fin.hurdle_rate)}",
        f"sold at {show(s.pricing.usd_per_gpu_hour, 'usd_hour')} headline, {formats.pct(s.pricing.utilization)} "
        f"utilization, {formats.pct(s.pricing.reserved_share)} reserved",
    ]
    return "<ul>" + "".join(f"<li>{_esc(p)}</li>" for p in parts) + "</ul>"


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
    pnl = _transposed(data["pnl"], "year", PNL_LABELS)
    debt = _transposed(data["debt"], "year", DEBT_LABELS)
    warnings = "".join(f'<div class="warn">{_esc(w)}</div>' for w in result.warnings)
    bom = data["node_bom"].drop(columns=["category"])
    return "".join(
        [
            _section("Headline figures", _kpi_cards(result), _basis_note(result, data["capex_by_basis"]), warnings),
            _section(
                "Capex",
                charts["chart-capex"],
                html_table(data["capex_by_category"], bold_rows=("Total",)),
                "<details><summary>All capex lines</summary>",
                html_table(data["capex_lines"].drop(columns=["key"])),
                "</details>",
            ),
            _section("Cost per GPU-hour", charts["chart-tco"]),
            _section("Cash flow and returns", charts["chart-cash-flow"], charts["chart-irr-price"]),
            _section(
                "Profit and loss by project year",
                f'<p class="small muted">{_esc(PROJECT_YEAR_NOTE)}. Costs negative.</p>',
                html_table(pnl, _pnl_kind, bold_rows=[PNL_LABELS[k] for k in PNL_BOLD]),
            ),
            _section("Debt", charts["chart-debt"], html_table(debt, lambda *_: "usd")),
            _stress_section(run, data, charts),
            _section("Opex", charts["chart-opex"], html_table(data["opex_by_year"], lambda *_: "usd", ("Total",))),
            _section(
                "Compute node",
                charts["chart-node"],
                html_table(_with_total(bom, "item", ["total_usd"]), bold_rows=("Total",)),
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
    from plotly.offline import get_plotlyjs

    from .. import __version__

    run = run or stress_run(result)
    data = {**tables(result), **stress_tables(run)}
    charts = {div_id: _chart_html(fig, div_id) for div_id, fig in report_figures(result, run).items()}
    s = result.scenario
    description = f"<p>{_esc(s.description)}</p>" if s.description else ""
    generated = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(s.name)} — neoplan report</title><style>{REPORT_CSS}</style>"
        f'<script type="text/javascript">{get_plotlyjs()}</script></head><body><main>'
        f'<p class="muted small">GPU cloud capacity plan · neoplan {__version__} · generated {generated}</p>'
        f"<h1>{_esc(s.name)}</h1>{description}{_summary(result)}"
        f"{_report_body(result, data, charts, run)}"
        '<p class="small muted">Money in nominal USD; month 0 = purchase order; IRR annual = (1 + monthly IRR)^12 − 1; '
        "NPV and TCO at the hurdle rate. Full tables in the Excel workbook and CSVs exported with this report.</p>"
        "</main></body></html>\n"
    )


# --- files --------------------------------------------------------------------------------------


def write_report(result: Result, out_dir: str | Path, settings: Settings | None = None) -> list[Path]:
    """Write the workbook, the HTML report and one CSV per table into ``out_dir``; returns the paths written.

    Files are named after the scenario: ``<slug>.xlsx``, ``<slug>_report.html``, ``<slug>_<table>.csv``.
    The stress test (workbook sheets, report section) runs once with ``settings`` (default settings).
    """
    run = stress_run(result, settings)  # bad settings fail before anything is written
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = slug(result.scenario.name)
    files: dict[Path, bytes] = {
        out / f"{stem}.xlsx": workbook_bytes(result, run),
        out / f"{stem}_report.html": html_report(result, run).encode("utf-8"),
    }
    files.update({out / f"{stem}_{name}.csv": data for name, data in csv_tables(result).items()})
    for path, data in files.items():
        path.write_bytes(data)
    return list(files)
