"""Figures and small tables of the Storage & site page: capex breakdown, yearly opex, power, storage bandwidth.

Every figure is drawn from a :class:`~neoplan.model.Result` only; nothing here sizes or prices anything.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go

from .base import PALETTE, STYLE, figure, vline

if TYPE_CHECKING:
    from ..model import Result

CAPEX_LABELS = {
    "compute": "Compute",
    "backend_network": "Back-end network",
    "frontend_network": "Front-end network",
    "oob_network": "OOB network",
    "storage": "Storage",
    "management": "Management",
    "other": "Racks, install & burn-in",
}
OPEX_LABELS = {
    "power": "Power",
    "colocation": "Colocation",
    "staff": "Staff",
    "hardware_support": "Hardware support",
    "software": "Software",
    "insurance": "Insurance",
    "transit": "Transit",
    "sga": "SG&A",
}
CATEGORY_COLORS = {
    "compute": PALETTE["this"],
    "backend_network": "#264653",
    "frontend_network": "#8ab17d",
    "oob_network": "#b0b7c3",
    "storage": "#e9c46a",
    "management": "#f4a261",
    "other": PALETTE["accent"],
    "power": "#e9c46a",
    "colocation": "#264653",
    "staff": PALETTE["this"],
    "hardware_support": "#f4a261",
    "software": "#9b5de5",
    "insurance": "#b0b7c3",
    "transit": "#8ab17d",
    "sga": PALETTE["accent"],
}
POWER_PARTS = (
    ("compute", "Compute servers"),
    ("network", "Network"),
    ("storage", "Storage"),
    ("management", "Management"),
)
POWER_COLORS = {
    "compute": PALETTE["this"],
    "network": "#264653",
    "storage": "#e9c46a",
    "management": "#f4a261",
    "cooling": PALETTE["oem"],
}
MONTHS_PER_YEAR = 12


def _short(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _money(value: float) -> str:
    if abs(value) >= 1e6:
        return f"${value / 1e6:,.2f} M"
    return f"${value / 1e3:,.0f} k"


# --- capex --------------------------------------------------------------------------------------


def capex_waterfall_figure(result: Result) -> go.Figure:
    """Cluster capex as a waterfall: each category adds to the total (zero categories left out) [USD]."""
    capex = result.capex_usd
    cats = [c for c in CAPEX_LABELS if capex.get(c, 0.0) > 0]
    labels = [CAPEX_LABELS[c] for c in cats] + ["Total"]
    values = [capex[c] for c in cats] + [capex["total"]]
    fig = figure(
        go.Waterfall(
            x=labels,
            y=values,
            measure=["relative"] * len(cats) + ["total"],
            text=[_money(v) for v in values],
            textposition="outside",
            cliponaxis=False,
            connector={"line": {"color": PALETTE["oem"], "width": 1}},
            increasing={"marker": {"color": PALETTE["this"]}},
            totals={"marker": {"color": "#264653"}},
            hovertemplate="%{x}<br>$%{y:,.0f}<extra></extra>",
        )
    )
    fig.update_layout(**STYLE)
    fig.update_layout(title="Capex by category", yaxis_title="USD", showlegend=False, margin={"t": 60})
    return fig


def capex_treemap_figure(result: Result) -> go.Figure:
    """Cluster capex as a treemap: categories, then their cost lines; areas proportional to cost [USD]."""
    capex = result.capex_usd
    total = capex["total"]
    ids, labels, parents, values, colors, hover = ["all"], ["All capex"], [""], [total], ["#ffffff"], [""]
    for cat, name in CAPEX_LABELS.items():
        if capex.get(cat, 0.0) <= 0:
            continue
        ids.append(cat)
        labels.append(name)
        parents.append("all")
        values.append(capex[cat])
        colors.append(CATEGORY_COLORS[cat])
        hover.append(name)
    for i, line in enumerate(result.capex_lines):
        if line.total_usd <= 0:
            continue
        ids.append(f"{line.category}/{line.key}/{i}")
        labels.append(_short(line.item))
        parents.append(line.category)
        values.append(line.total_usd)
        colors.append(CATEGORY_COLORS.get(line.category, PALETTE["oem"]))
        hover.append(f"{line.item}<br>{line.quantity:,g} {line.unit} × ${line.unit_price_usd:,.0f}")
    fig = figure(
        go.Treemap(
            ids=ids,
            labels=labels,
            parents=parents,
            values=values,
            branchvalues="total",
            marker={"colors": colors},
            customdata=hover,
            texttemplate="%{label}<br>%{value:$,.3s}",
            hovertemplate="%{customdata}<br>$%{value:,.0f} (%{percentRoot:.1%} of capex)<extra></extra>",
            root={"color": "#ffffff"},
        )
    )
    fig.update_layout(**STYLE)
    fig.update_layout(title="Capex by category and line (click a category to zoom)", margin={"t": 50})
    return fig


def capex_category_table(result: Result) -> Any:
    """Capex by category with its share of the total: columns category, capex_usd, share (DataFrame)."""
    import pandas as pd

    capex = result.capex_usd
    total = capex["total"]
    rows = [
        {"category": CAPEX_LABELS[c], "capex_usd": capex[c], "share": capex[c] / total if total else math.nan}
        for c in CAPEX_LABELS
    ]
    rows.append({"category": "Total", "capex_usd": total, "share": 1.0 if total else math.nan})
    return pd.DataFrame(rows)


# --- opex ---------------------------------------------------------------------------------------


def operating_years(result: Result) -> list[tuple[int, float]]:
    """Operating years inside the horizon as (year, months of operation in it) [1-based year, months]."""
    dates = result.ops.dates
    months_live = max(dates.months - dates.go_live_month, 0.0)
    years = math.ceil(months_live / MONTHS_PER_YEAR - 1e-9)
    return [(y, min(MONTHS_PER_YEAR, months_live - MONTHS_PER_YEAR * (y - 1))) for y in range(1, years + 1)]


def _year_label(year: int, months: float) -> str:
    return f"Year {year}" if months >= MONTHS_PER_YEAR - 1e-6 else f"Year {year} ({months:.1f} mo)"


def opex_by_year_table(result: Result) -> Any:
    """Opex by category (rows, incl. Total) and operating year (columns) [USD], from ``result.opex_for_year``."""
    import pandas as pd

    columns = {}
    for year, months in operating_years(result):
        opex = result.opex_for_year(year)
        columns[_year_label(year, months)] = [opex.get(c, 0.0) for c in OPEX_LABELS] + [opex["total"]]
    return pd.DataFrame(columns, index=[*OPEX_LABELS.values(), "Total"])


def opex_by_year_figure(result: Result) -> go.Figure:
    """Opex per operating year, stacked by category [USD/year]; a short last year is labelled with its months."""
    years = [(y, m, result.opex_for_year(y)) for y, m in operating_years(result)]
    x = [_year_label(y, m) for y, m, _ in years]
    fig = figure()
    for cat, name in OPEX_LABELS.items():
        values = [opex.get(cat, 0.0) for _, _, opex in years]
        if not any(v > 0 for v in values):
            continue
        fig.add_bar(
            x=x,
            y=values,
            name=name,
            marker_color=CATEGORY_COLORS[cat],
            hovertemplate=f"{name}<br>%{{x}}<br>$%{{y:,.0f}}<extra></extra>",
        )
    fig.add_scatter(
        x=x,
        y=[opex["total"] for _, _, opex in years],
        mode="text",
        text=[_money(opex["total"]) for _, _, opex in years],
        textposition="top center",
        showlegend=False,
        hoverinfo="skip",
        cliponaxis=False,
    )
    fig.update_layout(**STYLE)
    fig.update_layout(
        barmode="stack",
        title="Opex per operating year",
        yaxis_title="USD per year",
        legend={"traceorder": "reversed"},
        margin={"t": 60},
    )
    return fig


# --- power and storage --------------------------------------------------------------------------


def power_figure(result: Result) -> go.Figure:
    """IT load at peak and on average by part, plus cooling and losses (PUE − 1) on top [kW]."""
    f = result.facility
    shared = {"network": f.network_kw, "storage": f.storage_kw, "management": f.management_kw}
    peak = {"compute": f.compute_peak_kw, **shared}
    avg = {"compute": f.compute_avg_kw, **shared}
    rows = ["Average", "Peak"]
    fig = figure()
    for key, name in POWER_PARTS:
        fig.add_bar(
            y=rows,
            x=[avg[key], peak[key]],
            name=name,
            orientation="h",
            marker_color=POWER_COLORS[key],
            hovertemplate=f"{name}<br>%{{y}}: %{{x:,.0f}} kW<extra></extra>",
        )
    fig.add_bar(
        y=rows,
        x=[f.it_avg_kw * (f.pue - 1), f.facility_peak_kw - f.it_peak_kw],
        name=f"Cooling & losses (PUE {f.pue:g})",
        orientation="h",
        marker_color=POWER_COLORS["cooling"],
        hovertemplate="Cooling & losses<br>%{y}: %{x:,.0f} kW<extra></extra>",
    )
    fig.update_layout(**STYLE)
    fig.update_layout(
        barmode="stack",
        title="Site power: IT load by part and facility overhead",
        xaxis_title="kW",
        height=300,
        legend={"orientation": "h", "y": -0.3, "traceorder": "normal"},
        margin={"t": 50},
    )
    return fig


def storage_throughput_figure(result: Result) -> go.Figure:
    """Aggregate storage read and write bandwidth against the read target [GB/s]."""
    s = result.storage
    fig = figure(
        go.Bar(
            x=[s.read_gbyte_per_s, s.write_gbyte_per_s],
            y=["Read", "Write"],
            orientation="h",
            marker_color=[PALETTE["this"] if s.meets_target else PALETTE["accent"], "#264653"],
            text=[f"{s.read_gbyte_per_s:,.0f} GB/s", f"{s.write_gbyte_per_s:,.0f} GB/s"],
            textposition="auto",
            hovertemplate="%{y}: %{x:,.0f} GB/s<extra></extra>",
        )
    )
    if s.target_gbyte_per_s > 0:
        vline(fig, s.target_gbyte_per_s, color=PALETTE["accent"], dash="dash",
              text=f"read target {s.target_gbyte_per_s:,.0f} GB/s")
    fig.update_layout(**STYLE)
    fig.update_layout(
        title="Aggregate storage bandwidth", xaxis_title="GB/s", height=240, showlegend=False, margin={"t": 60}
    )
    return fig
