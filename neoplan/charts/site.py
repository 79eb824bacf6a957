"""Figures of the Storage & site, Overview and Results pages: capex as a waterfall and a treemap, where the cost of a
sold GPU-hour goes (a Sankey), yearly opex, power, storage bandwidth; they only draw.

Each figure is a plotly figure (:mod:`.base`) drawn from a :class:`~neoplan.model.Result` and the statements of
:mod:`neoplan.finance.statements` (capex by category, opex by operating year, TCO by source); nothing here sizes, prices
or rolls anything up. Hover text in the app's formats; a cost line's item goes through :func:`.base.plain`.
The capex and opex tables and their labels used to live here; they are re-exported for old imports.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import plotly.graph_objects as go

from ..finance.statements import (
    CAPEX_LABELS,
    OPEX_LABELS,
    TOTAL,
    capex_by_category,
    operating_years,
    opex_by_year,
    tco_by_source,
)
from ..formats import kw as kw_text
from ..formats import pct, usd_exact, usd_label
from .base import LEGEND_BELOW, PALETTE, Draft, hover, money_axis, note, plain, short, trace, vline
from .finance import TCO_COLORS

if TYPE_CHECKING:
    from ..model import Result

capex_category_table = capex_by_category
"""Old name of :func:`neoplan.finance.statements.capex_by_category`."""
opex_by_year_table = opex_by_year
"""Old name of :func:`neoplan.finance.statements.opex_by_year`."""

__all__ = [
    "CAPEX_LABELS",
    "CATEGORY_COLORS",
    "OPEX_LABELS",
    "POWER_COLORS",
    "POWER_PARTS",
    "capex_category_table",
    "capex_sankey_figure",
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


# --- capex --------------------------------------------------------------------------------------


def _share(fraction: float) -> str:
    """A share of capex for a label: ``84.9 %``, to two decimals below 1 % (``0.04 %``)."""
    return pct(fraction, 1 if fraction >= 0.01 else 2)


def capex_waterfall_figure(result: Result) -> go.Figure:
    """Cluster capex as a waterfall (``go.Waterfall``): each category adds to the running total, then the total
    from zero; zero categories left out; each bar labelled with its amount [USD]."""
    capex = result.capex_usd
    total = capex["total"]
    cats = [c for c in CAPEX_LABELS if capex.get(c, 0.0) > 0]
    labels = [CAPEX_LABELS[c] for c in cats] + ["Total"]
    values = [capex[c] for c in cats] + [total]
    running = [sum(values[: i + 1]) for i in range(len(cats))] + [total]
    fig = Draft(
        trace(
            "waterfall",
            x=labels,
            y=values,
            measure=["relative"] * len(cats) + ["total"],
            text=[usd_label(v) for v in values],
            textposition="outside",
            cliponaxis=False,
            connector={"line": {"color": PALETTE["oem"], "width": 1}},
            increasing={"marker": {"color": PALETTE["this"]}},
            decreasing={"marker": {"color": PALETTE["accent"]}},
            totals={"marker": {"color": "#264653"}},
            name="capex",
            **hover(
                f"{name}: {usd_exact(v)} ({_share(v / total)} of capex)<br>running total {usd_exact(r)}"
                for name, v, r in zip(labels, values, running, strict=True)
            ),
        )
    )
    fig.update(title="Capex by category", yaxis=money_axis("USD", total), showlegend=False)
    return fig.figure()


def capex_treemap_figure(result: Result) -> go.Figure:
    """Cluster capex as a treemap (``go.Treemap``): each category an area, split into its cost lines; areas to
    scale, every one labelled with its name, amount and share of capex; the hover gives a line's item and quantity
    × unit price. Click a category to zoom into it [USD]."""
    capex = result.capex_usd
    total = capex["total"]
    ids, labels, parents, values, colours, custom = [], [], [], [], [], []
    for cat, name in CAPEX_LABELS.items():
        if capex.get(cat, 0.0) <= 0:
            continue
        ids.append(cat)
        labels.append(name)
        parents.append("")
        values.append(0.0)  # "remainder": a category's area is the sum of its lines'
        colours.append(CATEGORY_COLORS[cat])
        custom.append([usd_label(capex[cat]), _share(capex[cat] / total), f"{name}: {usd_exact(capex[cat])}"])
    for i, line in enumerate(result.capex_lines):
        if line.total_usd <= 0:
            continue
        item = plain(line.item)
        ids.append(f"{line.category}/{i}")
        labels.append(plain(short(line.item)))
        parents.append(line.category)
        values.append(line.total_usd)
        colours.append(CATEGORY_COLORS.get(line.category, PALETTE["oem"]))
        amount = f"{line.quantity:,g} {plain(line.unit)} × {usd_exact(line.unit_price_usd)}"
        custom.append([usd_label(line.total_usd), _share(line.total_usd / total), f"{item}<br>{amount}"])
    fig = Draft(
        trace(
            "treemap",
            ids=ids,
            labels=labels,
            parents=parents,
            values=values,
            branchvalues="remainder",
            marker={"colors": colours, "line": {"color": "white", "width": 1}},
            customdata=custom,
            texttemplate="<b>%{label}</b><br>%{customdata[0]} · %{customdata[1]}",
            hovertemplate="%{customdata[2]}<br>%{customdata[0]}, %{customdata[1]} of capex<extra></extra>",
            tiling={"pad": 2},
            pathbar={"visible": True},
            sort=True,
            name="capex",
        )
    )
    fig.update(
        title={"text": f"Capex by category and line: {usd_label(total)}", "subtitle": {"text": "click to zoom"}},
        height=480,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
    )
    return fig.figure()


def capex_sankey_figure(result: Result) -> go.Figure:
    """Where the cost of a sold GPU-hour goes (``go.Sankey``): capex categories flow into the capital component,
    and capital, power, colocation, staff, software and other into TCO per sold GPU-hour, each band as wide as its
    cost (:func:`~neoplan.finance.statements.tco_by_source`) [USD/GPU-h]."""
    flows = tco_by_source(result)
    total = float(flows["usd_per_gpu_hour"].sum())
    by_component = {k: float(v) for k, v in result.tco_breakdown_usd_per_gpu_hour.items() if v > 0}
    components = list(by_component)  # a component that costs nothing has no band (plotly drops a node without)
    if not (math.isfinite(total) and total > 0):
        fig = Draft()
        note(fig, "No GPU-hours sold in the horizon: no cost per GPU-hour to trace.")
        fig.update(title="Where the cost of a sold GPU-hour goes")
        return fig
    capital = flows[flows["component"] == "capital"]
    sources = [str(s) for s in capital["source"]]
    names = [*sources, *components, "TCO"]
    index = {name: i for i, name in enumerate(names)}
    node_value = [*map(float, capital["usd_per_gpu_hour"]), *by_component.values(), total]
    category_of = {CAPEX_LABELS[c]: c for c in CAPEX_LABELS}
    node_colour = [
        *(CATEGORY_COLORS.get(category_of.get(s, ""), PALETTE["oem"]) for s in sources),
        *(TCO_COLORS.get(k, PALETTE["oem"]) for k in components),
        "#1d3557",
    ]
    column = [0.01] * len(sources) + [0.5] * len(components) + [0.99]  # capex categories, components, TCO
    height = [*_stacked(node_value[: len(sources)]), *_stacked(list(by_component.values())), 0.5]
    links = [(s, "capital", float(v)) for s, v in zip(sources, capital["usd_per_gpu_hour"], strict=True)]
    links += [(k, "TCO", v) for k, v in by_component.items()]
    fig = Draft(
        trace(
            "sankey",
            arrangement="snap",
            valueformat="$.3f",
            valuesuffix=" /GPU-h",
            node={
                "label": [
                    f"{'TCO' if n == 'TCO' else n} {usd_exact(v, 2)}" for n, v in zip(names, node_value, strict=True)
                ],
                "color": node_colour,
                "x": column,
                "y": height,
                "pad": 14,
                "thickness": 16,
                "customdata": [
                    f"{n}: {usd_exact(v, 3)} /GPU-h ({_share(v / total)} of TCO)"
                    for n, v in zip(names, node_value, strict=True)
                ],
                "hovertemplate": "%{customdata}<extra></extra>",
            },
            link={
                "source": [index[a] for a, _, _ in links],
                "target": [index[b] for _, b, _ in links],
                "value": [v for _, _, v in links],
                "color": [_faded(node_colour[index[a]]) for a, _, _ in links],
                "customdata": [
                    f"{a} → {b}: {usd_exact(v, 3)} /GPU-h ({_share(v / total)} of TCO)" for a, b, v in links
                ],
                "hovertemplate": "%{customdata}<extra></extra>",
            },
        )
    )
    fig.update(
        title={
            "text": f"Where the cost of a sold GPU-hour goes: TCO {usd_exact(total, 2)} /GPU-h",
            "subtitle": {"text": "capex categories → capital; capital and opex → TCO (levelised at the hurdle rate)"},
        },
        height=460,
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
    )
    return fig.figure()


def _stacked(values: list[float]) -> list[float]:
    """Vertical centres (0 top, 1 bottom) of a Sankey column of nodes of ``values``, stacked in order: each node's
    slot is 70 % its share of the column and 30 % an equal share, so that a run of small nodes still fits."""
    total = sum(max(v, 0.0) for v in values) or 1.0
    slots = [0.7 * max(v, 0.0) / total + 0.3 / len(values) for v in values]
    centres, before = [], 0.0
    for slot in slots:
        centres.append(0.02 + 0.96 * (before + slot / 2))
        before += slot
    return centres


def _faded(hex_colour: str, alpha: float = 0.45) -> str:
    """``#rrggbb`` as a translucent ``rgba(…)`` (a Sankey band in its source's colour)."""
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


# --- opex ---------------------------------------------------------------------------------------


def opex_by_year_figure(result: Result) -> go.Figure:
    """Opex per operating year, stacked by category [USD/year], each year's total above its bar; a short last year
    is labelled with its months (the column labels of :func:`~neoplan.finance.statements.opex_by_year`)."""
    table = opex_by_year(result)
    x = [str(label) for label in table.columns]
    totals = table.loc[TOTAL].tolist()
    fig = Draft()
    for cat, name in OPEX_LABELS.items():
        values = table.loc[name].tolist()
        if not any(v > 0 for v in values):
            continue
        fig.add(
            "bar",
            x=x,
            y=values,
            name=name,
            marker_color=CATEGORY_COLORS[cat],
            **hover(
                f"{name}, {year}: {usd_exact(v)}" + (f" ({pct(v / t)} of opex)" if t > 0 else "")
                for year, v, t in zip(x, values, totals, strict=True)
            ),
        )
    fig.add(
        "scatter",
        x=x,
        y=totals,
        mode="text",
        text=[usd_label(total) for total in totals],
        textposition="top center",
        showlegend=False,
        name="total",
        cliponaxis=False,
        **hover(f"{year}: opex {usd_exact(t)}" for year, t in zip(x, totals, strict=True)),
    )
    fig.update(
        barmode="stack",
        title="Opex per operating year",
        xaxis={"title": {"text": "operating year (year 1 starts at go-live)"}},
        yaxis=money_axis("USD per year", totals),
        legend={**LEGEND_BELOW, "traceorder": "reversed"},
    )
    return fig.figure()


# --- power and storage --------------------------------------------------------------------------


def power_figure(result: Result) -> go.Figure:
    """IT load at peak and on average by part, plus cooling and losses (PUE − 1) on top [kW] (stacked bars)."""
    f = result.facility
    shared = {"network": f.network_kw, "storage": f.storage_kw, "management": f.management_kw}
    peak = {"compute": f.compute_peak_kw, **shared}
    avg = {"compute": f.compute_avg_kw, **shared}
    series = [(name, POWER_COLORS[key], avg[key], peak[key]) for key, name in POWER_PARTS]
    if f.cooling_kw > 0:  # liquid-cooled racks: the CDU pumps are IT load (the chillers are in the PUE)
        series.append(("CDU pumps (liquid cooling)", POWER_COLORS["cdu"], f.cooling_kw, f.cooling_kw))
    series.append(
        (
            f"Cooling & losses (PUE {f.pue:g})",
            POWER_COLORS["cooling"],
            f.it_avg_kw * (f.pue - 1),
            f.facility_peak_kw - f.it_peak_kw,
        )
    )
    rows = ["Average", "Peak"]
    fig = Draft()
    for name, colour, average, top in series:
        fig.add(
            "bar",
            y=rows,
            x=[average, top],
            name=name,
            orientation="h",
            marker_color=colour,
            **hover(f"{name}, {row.lower()}: {kw_text(v)}" for row, v in zip(rows, (average, top), strict=True)),
        )
    fig.update(
        barmode="stack",
        title="Site power: IT load by part and facility overhead",
        xaxis={"title": {"text": "kW"}, "tickformat": ",.0f"},
        height=320,
        legend={**LEGEND_BELOW, "y": -0.3, "traceorder": "normal"},
    )
    return fig.figure()


def storage_throughput_figure(result: Result) -> go.Figure:
    """Aggregate storage read and write bandwidth against the read target (dashed line) [GB/s]; the read bar is
    red when it misses the target."""
    s = result.storage
    values = [s.write_gbyte_per_s, s.read_gbyte_per_s]  # plotly draws the first category at the bottom
    texts = [f"{v:,.0f} GB/s" for v in values]
    fig = Draft(
        trace(
            "bar",
            x=values,
            y=["Write", "Read"],
            orientation="h",
            marker_color=["#264653", PALETTE["this"] if s.meets_target else PALETTE["accent"]],
            text=texts,
            textposition="auto",
            name="bandwidth",
            **hover(
                f"{way}: {text}" + (f" (read target {s.target_gbyte_per_s:,.0f} GB/s)" if way == "Read" else "")
                for way, text in zip(("Write", "Read"), texts, strict=True)
            ),
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
    fig.update(
        title="Aggregate storage bandwidth",
        xaxis={"title": {"text": "GB/s"}, "tickformat": ",.0f"},
        height=260,
        showlegend=False,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
    )
    return fig.figure()
