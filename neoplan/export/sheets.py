"""The tables every export is built from: tidy DataFrames of a Result and of a stress run, and how their numbers
are shown (:data:`KINDS`: an Excel number format and a report format per kind of value).

The workbook (:mod:`.workbook`), the CSVs (:mod:`.csv`) and the HTML report (:mod:`.report`) all take their
tables from :func:`tables` and :func:`stress_tables`, so they never disagree.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd
from pydantic import BaseModel

from .. import formats, metrics
from ..finance.statements import (
    DEBT_LABELS,
    OPERATING_YEAR_NOTE,
    PNL_LABELS,
    capex_by_category,
    debt_by_year,
    loan_at_close,
    opex_by_year,
    pnl_by_year,
)

if TYPE_CHECKING:
    from ..analysis.stress import Settings, StressRun
    from ..model import Result

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
    "debt": "Debt schedule and cash waterfall per project year: draws, interest, principal on the installments fixed "
    "at close, the cash sweep and the sweep of sale proceeds, payoff, fees, CFADS, the debt service reserve funded, "
    "drawn, refilled and released, distributions, sponsor cures, months locked up, covenant tests breached, cash held "
    "and balance [USD, months, count].",
    "loan": "The debt as fixed at financial close: how and why it was sized, each tranche's size, rate and repayment, "
    "the reserve, the waterfall's rules and events, sweeps and payoff.",
}
"""CSV tables by name, with what each holds."""
_UNIT_IN_BRACKETS = re.compile(r"\[([^\[\]]+)\]")

# --- value kinds: one number format for the workbook and one for the report --------------------


@dataclass(frozen=True)
class Kind:
    """How a number is shown: an Excel number format and a formatter for the HTML report."""

    excel: str
    text: Callable[[float], str]


KINDS: dict[str, Kind] = {
    "usd": Kind('"$"#,##0;[Red]-"$"#,##0', formats.usd),
    "price": Kind('"$"#,##0.00', formats.usd_price),
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


def finite_number(value: Any) -> bool:
    """True for a finite int or float (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def show(value: Any, kind: str = "number") -> str:
    """``value`` as report text: numbers by ``kind`` (a key of :data:`KINDS`), undefined as ``n/a``."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return NA
    if isinstance(value, bool):
        return "yes" if value else "no"
    if finite_number(value):
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
    """Nested dicts as one level with dotted keys; list items as ``key.1``, ``key.2`` … (an item that is a mapping,
    such as a contract of the book or a tranche, flattened in turn: ``contracts.1.kind``,
    ``lending.tranches.1.debt_usd``)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{name}."))
        elif isinstance(value, list | tuple):
            for i, item in enumerate(value, start=1):
                out.update(flatten(item, f"{name}.{i}.") if isinstance(item, Mapping) else {f"{name}.{i}": item})
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
    "loan": loan_at_close,
}
"""The function building each table of :data:`TABLES`."""


def tables(result: Result) -> dict[str, pd.DataFrame]:
    """Every exported table by name (the keys of :data:`TABLES`), unescaped values."""
    return {name: TABLE_BUILDERS[name](result) for name in TABLES}


# --- stress test tables ---------------------------------------------------------------------------

HISTOGRAM_BINS = 20
"""Bins of the Monte Carlo histogram table (per metric, equal width over the defined draws)."""


def metric_kind(metric: str) -> str:
    """Display kind of a stress metric (:data:`neoplan.analysis.stress.METRICS`)."""
    if metric.endswith("_irr"):
        return "pct"
    return {"npv_usd": "usd", "payback_months": "months"}.get(metric, "ratio")


def driver_kind(driver: str) -> str:
    """Display kind of a stress driver's values, from its unit."""
    from ..analysis.stress import DRIVERS

    unit = DRIVERS[driver].unit
    return {"× design": "ratio", "ratio": "number", "USD/kWh": "number"}.get(unit) or kind_of_unit(unit)


def tornado_table(run: StressRun) -> pd.DataFrame:
    """Every driver at its low and its high value, for every metric (largest swing first within a metric)."""
    from ..analysis.stress import METRIC_LABELS, METRICS

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
    from ..analysis.stress import DRIVERS

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
    """P10/P50/P90 of every metric with their standard errors (``se_p10`` …, :meth:`MonteCarlo.percentile_errors`), the
    scenario's own value, its percentile and the share undefined."""
    from ..analysis.stress import METRIC_LABELS, METRICS

    mc = run.monte_carlo
    return pd.DataFrame(
        [
            {
                "metric": m,
                "label": METRIC_LABELS[m],
                **mc.percentiles(m),
                **{f"se_{k}": v for k, v in mc.percentile_errors(m).items()},
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
    events = {k: v for k, v in mc.probabilities().items() if k in PROBABILITY_LABELS}
    rows = [
        ("run", "Which stress run this is", run.settings.text(), "text"),
        ("draws", "Draws", mc.draws, "count"),
        ("seed", "Seed (same seed, same draws)", mc.seed, "count"),
        ("price_utilization_correlation", "Price–utilization rank correlation asked", mc.correlation, "number"),
        ("measured_rank_correlation", "Price–utilization rank correlation drawn", mc.measured_correlation, "number"),
        ("covenant_dscr", "DSCR covenant", mc.covenant_dscr, "ratio"),
        ("probability_of_loss", "Probability of loss (equity MOIC < 1)", mc.probability_of_loss, "fraction"),
        ("probability_npv_negative", "Probability NPV < 0 at the hurdle rate", mc.probability_npv_negative, "fraction"),
        (
            "probability_dscr_breach",
            "Probability the minimum yearly DSCR < covenant",
            mc.probability_dscr_breach,
            "fraction",
        ),
        *((key, PROBABILITY_LABELS[key], value, "fraction") for key, value in events.items()),
        *(
            (
                f"se_{key}",
                f"Standard error of the {what}: √(p (1 − p) / draws)",
                mc.probability_error(value),
                "fraction",
            )
            for key, what, value in (
                ("probability_of_loss", "probability of loss", mc.probability_of_loss),
                ("probability_npv_negative", "probability NPV < 0", mc.probability_npv_negative),
                ("probability_dscr_breach", "probability the minimum DSCR < covenant", mc.probability_dscr_breach),
                *((key, PROBABILITY_LABELS[key].lower(), value) for key, value in events.items()),
            )
        ),
    ]
    return pd.DataFrame(rows, columns=["key", "label", "value", "unit"])


PROBABILITY_LABELS = {
    "probability_covenant_breach": "Probability of a covenant breach (a quarterly test below the covenant)",
    "probability_lockup": "Probability of a lock-up of distributions",
    "probability_payment_default": "Probability of a payment default",
}
"""The cash waterfall's events (:mod:`neoplan.finance.waterfall`) on the Monte Carlo sheet."""


def mc_ranges_table(run: StressRun) -> pd.DataFrame:
    """The ranges the Monte Carlo drew from: driver, base, low, high, distribution, why and source."""
    from ..analysis.stress import DRIVERS

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

    from ..analysis.stress import METRICS, WORST_LOW

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
    from ..analysis.stress import DRIVERS, SOLVERS

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
    """The stress test the exports show: :func:`neoplan.analysis.stress.run_all` with ``settings`` (default
    settings)."""
    from ..analysis.stress import run_all

    return run_all(result, settings)


# --- shared by the workbook and the report --------------------------------------------------------


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows of ``frame`` as dicts keyed by column name (as text)."""
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]


def with_total(frame: pd.DataFrame, label_column: str, sum_columns: Iterable[str]) -> pd.DataFrame:
    """``frame`` with a ``Total`` row summing ``sum_columns``."""
    total: dict[str, Any] = dict.fromkeys(frame.columns, "")
    total[label_column] = "Total"
    total.update({c: float(frame[c].sum()) for c in sum_columns})
    return pd.concat([frame, pd.DataFrame([total])], ignore_index=True)


def transposed(frame: pd.DataFrame, index: str, labels: Mapping[str, str]) -> pd.DataFrame:
    """Years as columns, line items as rows (first column ``line`` holds the readable label)."""
    table = frame.set_index(index).T
    table.insert(0, "line", [labels.get(str(k), str(k)) for k in table.index])
    table.columns = [str(c) for c in table.columns]
    return table.reset_index(drop=True)


def debt_kind(record: Mapping[str, Any], _column: str = "") -> str:
    """Kind of a transposed debt row: the waterfall's counts as counts, everything else money."""
    counts = {DEBT_LABELS["lockup_months"]: "months", DEBT_LABELS["covenant_breaches"]: "count"}
    return counts.get(str(record.get("line")), "usd")


def pnl_kind(record: Mapping[str, Any], _column: str = "") -> str:
    """Kind of a transposed P&L row: margins as percent, everything else money."""
    margins = {PNL_LABELS[k] for k in PNL_LABELS if k.endswith("_margin")}
    return "pct" if record.get("line") in margins else "usd"
