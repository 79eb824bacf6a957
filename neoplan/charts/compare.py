"""Side-by-side figures for several Results (the Compare page; plotly, :mod:`.base`); categories keep the names and
colours they have on the other pages (``data/categories.csv``, :data:`.site.CATEGORY_COLORS`,
:data:`.finance.TCO_COLORS`).

The scenarios' names are the user's own words: they reach plotly only through :func:`.base.plain` (as category
labels, legend entries and hover text), so a name shows as typed and is never read as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from ..formats import pct, usd_exact
from ..inputs.categories import CAPEX_CATEGORIES, CAPEX_LABELS
from . import site
from .base import LEGEND_BELOW, PALETTE, Draft, hline, hover, money_axis, plain, unique
from .finance import TCO_COLORS

if TYPE_CHECKING:
    from ..model import Result

SERIES_COLORS = (
    "#636efa",
    "#EF553B",
    "#00cc96",
    "#ab63fa",
    "#FFA15A",
    "#19d3f3",
    "#FF6692",
    "#B6E880",
    "#FF97FF",
    "#FECB52",
)
"""One colour per scenario line, in order (plotly's default colour sequence), repeated past ten."""


def _names(results: dict[str, Result]) -> list[str]:
    """The scenarios' names (the user's own words) as plotly text: shown as typed, never read as markup."""
    return unique(plain(name) for name in results)


def _stacked(
    names: list[str], values: dict[str, list[float]], colours: list[str], *, title: str, axis: dict, unit: str
) -> go.Figure:
    """Bars per scenario (x, in the given order) stacked by category (``values[label]``: one per scenario, the first
    category at the bottom, the legend in category order); the hover gives each part with its share of the bar."""
    totals = np.sum([v for v in values.values()], axis=0)
    fig = Draft()
    for (label, series), colour in zip(values.items(), colours, strict=True):
        fig.add(
            "bar",
            x=names,
            y=series,
            name=label,
            marker={"color": colour, "line": {"color": "white", "width": 0.5}},
            **hover(
                f"{name}<br>{label}: {usd_exact(v, 3 if unit else 0)}{unit}" + (f" ({pct(v / t)})" if t > 0 else "")
                for name, v, t in zip(names, series, totals, strict=True)
            ),
        )
    fig.update(barmode="stack", title=title, yaxis=axis, legend={**LEGEND_BELOW, "traceorder": "normal"})
    return fig.figure()


def capex_compare_figure(results: dict[str, Result]) -> go.Figure:
    """Capex by category per scenario, stacked bars [USD]."""
    values = {CAPEX_LABELS[cat]: [r.capex_usd[cat] for r in results.values()] for cat in CAPEX_CATEGORIES}
    colours = [site.CATEGORY_COLORS[cat] for cat in CAPEX_CATEGORIES]
    totals = [r.capex_usd["total"] for r in results.values()]
    axis = money_axis("USD", totals)
    return _stacked(_names(results), values, colours, title="Capex by category", axis=axis, unit="")


def tco_compare_figure(results: dict[str, Result]) -> go.Figure:
    """TCO per sold GPU-hour by component per scenario, stacked bars [USD/GPU-h]."""
    cats = list(next(iter(results.values())).tco_breakdown_usd_per_gpu_hour)
    values = {cat: [r.tco_breakdown_usd_per_gpu_hour[cat] for r in results.values()] for cat in cats}
    colours = [TCO_COLORS.get(cat, PALETTE["oem"]) for cat in cats]
    axis = {"title": {"text": "USD per sold GPU-hour"}, "tickformat": "$,.2f"}
    return _stacked(_names(results), values, colours, title="TCO per sold GPU-hour", axis=axis, unit=" /GPU-h")


def cumulative_cash_compare_figure(results: dict[str, Result]) -> go.Figure:
    """Cumulative project cash flow per scenario over the horizon, one line each [USD]."""
    fig = Draft()
    curves = [np.cumsum(r.ops.cash.project_fcf[0]) for r in results.values()]
    for i, (name, cum) in enumerate(zip(_names(results), curves, strict=True)):
        months = np.arange(cum.size)
        fig.add(
            "scatter",
            x=months,
            y=cum,
            mode="lines",
            name=name,
            line={"color": SERIES_COLORS[i % len(SERIES_COLORS)], "width": 2},
            **hover(f"{name}: {usd_exact(v)}" for v in cum),
        )
    hline(fig, 0, color="#888", width=1)
    fig.update(
        title="Cumulative project cash",
        hovermode="x unified",  # every scenario's cash at the month pointed at, in one label
        xaxis={"title": {"text": "month from purchase order"}},
        yaxis=money_axis("USD", *curves),
        legend={**LEGEND_BELOW, "traceorder": "normal"},
    )
    return fig.figure()
