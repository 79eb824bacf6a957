"""Figures of a design search (the Search page): capex against project IRR, and the frontier of the best designs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go

from .base import STYLE, figure

if TYPE_CHECKING:
    from ..search import SearchResult

PLATFORM_COLORS = {
    "h100-sxm": "#b0b7c3",
    "h200-sxm": "#8ab17d",
    "b200-sxm": "#2a9d8f",
    "b300-sxm": "#264653",
    "gb200-nvl72": "#f4a261",
    "gb300-nvl72": "#e76f51",
}


def designs(found: SearchResult) -> Any:
    """One row per design built (debt shares folded: capex and project IRR do not depend on them): its best rank,
    whether any of its financing cases is feasible, and its figures."""
    t = found.table[found.table["capex_usd"].notna()]
    first = t.sort_values("rank").groupby("design", sort=False).first()
    return first.assign(feasible=t.groupby("design")["feasible"].any()).reset_index()


def frontier(points: Any) -> Any:
    """The designs no other design beats on both capex (lower) and project IRR (higher), by capex."""
    ordered = points.dropna(subset=["project_irr"]).sort_values(["capex_usd", "project_irr"], ascending=[True, False])
    best, keep = float("-inf"), []
    for index, irr in zip(ordered.index, ordered["project_irr"], strict=True):
        if irr > best:
            best = irr
            keep.append(index)
    return ordered.loc[keep]


def capex_irr_figure(found: SearchResult) -> go.Figure:
    """Project IRR against capex of every design built, by platform; feasible designs filled, the others hollow;
    the frontier of feasible designs as a line [USD, %]."""
    fig = figure()
    points = designs(found)
    hover = (
        "%{customdata[0]} · %{customdata[1]} %{customdata[2]}:1 · %{customdata[3]} NICs · %{customdata[4]}"
        "<br>capex $%{x:,.0f} · project IRR %{y:.1f} % · best rank %{customdata[5]}<extra></extra>"
    )
    for platform, group in points.groupby("gpu_model", sort=False):
        for feasible in (True, False):
            part = group[group["feasible"] == feasible]
            if part.empty:
                continue
            fig.add_scatter(
                x=part["capex_usd"],
                y=100 * part["project_irr"],
                mode="markers",
                name=f"{platform}" + ("" if feasible else " (infeasible)"),
                legendgroup=str(platform),
                marker={
                    "color": PLATFORM_COLORS.get(str(platform), "#888888"),
                    "size": 9,
                    "symbol": "circle" if feasible else "circle-open",
                },
                customdata=part[
                    ["gpu_model", "topology", "oversubscription", "nics_per_node", "storage", "rank"]
                ].to_numpy(),
                hovertemplate=hover,
            )
    edge = frontier(points[points["feasible"]])
    if not edge.empty:
        fig.add_scatter(
            x=edge["capex_usd"],
            y=100 * edge["project_irr"],
            mode="lines",
            name="frontier",
            line={"color": "#1d3557", "dash": "dot", "shape": "hv"},
            hoverinfo="skip",
        )
    fig.update_layout(
        title="Capex against project IRR: every design, and the frontier",
        xaxis_title="Capex [USD]",
        yaxis_title="Project IRR [%]",
        **STYLE,
    )
    return fig
