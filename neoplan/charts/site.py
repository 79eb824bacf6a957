"""Figures of the Storage & site page: capex breakdown, yearly opex, power, storage bandwidth; they only draw.

Each figure is drawn from a :class:`~neoplan.model.Result` and the statements of :mod:`neoplan.statements`
(capex by category, opex by operating year); nothing here sizes, prices or rolls anything up.
The capex and opex tables and their labels used to live here; they are re-exported for old imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

from ..formats import usd_exact, usd_label
from ..statements import CAPEX_LABELS, OPEX_LABELS, TOTAL, capex_by_category, operating_years, opex_by_year
from .base import PALETTE, STYLE, figure, vline

if TYPE_CHECKING:
    from ..model import Result

capex_category_table = capex_by_category
"""Old name of :func:`neoplan.statements.capex_by_category`."""
opex_by_year_table = opex_by_year
"""Old name of :func:`neoplan.statements.opex_by_year`."""

__all__ = [
    "CAPEX_LABELS",
    "CATEGORY_COLORS",
    "OPEX_LABELS",
    "POWER_COLORS",
    "POWER_PARTS",
    "capex_category_table",
    "capex_treemap_figure",
    "capex_waterfall_figure",
    "operating_years",
    "opex_by_year_figure",
    "opex_by_year_table",
    "power_figure",
    "storage_throughput_figure",
]

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
    "repairs": "#d62828",
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
    "cdu": "#2a9d8f",
}


def _short(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


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
            text=[usd_label(v) for v in values],
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
        hover.append(f"{line.item}<br>{line.quantity:,g} {line.unit} × {usd_exact(line.unit_price_usd)}")
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


# --- opex ---------------------------------------------------------------------------------------


def opex_by_year_figure(result: Result) -> go.Figure:
    """Opex per operating year, stacked by category [USD/year]; a short last year is labelled with its months."""
    table = opex_by_year(result)
    x = [str(label) for label in table.columns]
    totals = table.loc[TOTAL].tolist()
    fig = figure()
    for cat, name in OPEX_LABELS.items():
        values = table.loc[name].tolist()
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
        y=totals,
        mode="text",
        text=[usd_label(total) for total in totals],
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
    if f.cooling_kw > 0:  # liquid-cooled racks: the CDU pumps are IT load (the chillers are in the PUE)
        fig.add_bar(
            y=rows,
            x=[f.cooling_kw, f.cooling_kw],
            name="CDU pumps (liquid cooling)",
            orientation="h",
            marker_color=POWER_COLORS["cdu"],
            hovertemplate="CDU pumps<br>%{y}: %{x:,.0f} kW<extra></extra>",
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
        vline(
            fig,
            s.target_gbyte_per_s,
            color=PALETTE["accent"],
            dash="dash",
            text=f"read target {s.target_gbyte_per_s:,.0f} GB/s",
        )
    fig.update_layout(**STYLE)
    fig.update_layout(
        title="Aggregate storage bandwidth", xaxis_title="GB/s", height=240, showlegend=False, margin={"t": 60}
    )
    return fig
