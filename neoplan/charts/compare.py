"""Side-by-side figures for several Results (the Compare page); categories keep the names and colours they have on
the other pages (``data/categories.csv``, :data:`.site.CATEGORY_COLORS`, :data:`.finance.TCO_COLORS`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from ..categories import CAPEX_CATEGORIES, CAPEX_LABELS
from . import site
from .base import STYLE, figure, hline
from .finance import TCO_COLORS

if TYPE_CHECKING:
    from ..model import Result


def capex_compare_figure(results: dict[str, Result]) -> go.Figure:
    """Capex by category per scenario, stacked [USD]."""
    fig = figure()
    names = list(results)
    for cat in CAPEX_CATEGORIES:
        fig.add_bar(
            x=names,
            y=[results[n].capex_usd[cat] for n in names],
            name=CAPEX_LABELS[cat],
            marker_color=site.CATEGORY_COLORS[cat],
            hovertemplate="%{x}<br>$%{y:,.0f}<extra>" + CAPEX_LABELS[cat] + "</extra>",
        )
    fig.update_layout(barmode="stack", title="Capex by category", yaxis_title="USD", **STYLE)
    return fig


def tco_compare_figure(results: dict[str, Result]) -> go.Figure:
    """TCO per sold GPU-hour by component per scenario, stacked [USD/GPU-h]."""
    fig = figure()
    names = list(results)
    for cat in next(iter(results.values())).tco_breakdown_usd_per_gpu_hour:
        fig.add_bar(
            x=names,
            y=[results[n].tco_breakdown_usd_per_gpu_hour[cat] for n in names],
            name=cat,
            marker_color=TCO_COLORS.get(cat),
            hovertemplate="%{x}<br>$%{y:.3f}/GPU-h<extra>" + cat + "</extra>",
        )
    fig.update_layout(barmode="stack", title="TCO per sold GPU-hour", yaxis_title="USD per GPU-hour", **STYLE)
    return fig


def cumulative_cash_compare_figure(results: dict[str, Result]) -> go.Figure:
    """Cumulative project cash flow per scenario over the horizon [USD]."""
    fig = figure()
    for name, r in results.items():
        cum = np.cumsum(r.ops.cash.project_fcf[0])
        fig.add_scatter(
            x=np.arange(cum.size),
            y=cum,
            mode="lines",
            name=name,
            hovertemplate="month %{x}<br>$%{y:,.0f}<extra>" + name + "</extra>",
        )
    hline(fig, 0, color="#888", width=1)
    fig.update_layout(
        title="Cumulative project cash", xaxis_title="month from purchase order", yaxis_title="USD", **STYLE
    )
    return fig
