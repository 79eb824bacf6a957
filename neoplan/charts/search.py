"""Figures of a design search (the Search page; plotly, :mod:`.base`): capex against project IRR, and the frontier of
the best designs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go

from ..formats import pct, usd_exact
from .base import Draft, hover, money_axis, plain

if TYPE_CHECKING:
    from ..analysis.search import SearchResult

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
    the frontier of feasible designs as a dotted step line [USD, %]."""
    fig = Draft()
    points = designs(found)
    for platform, group in points.groupby("gpu_model", sort=False):
        for feasible in (True, False):
            part = group[group["feasible"] == feasible]
            if part.empty:
                continue
            fig.add(
                "scatter",
                x=part["capex_usd"],
                y=part["project_irr"],
                mode="markers",
                name=plain(platform) + ("" if feasible else " (infeasible)"),
                legendgroup=str(platform),
                marker={
                    "color": PLATFORM_COLORS.get(str(platform), "#888888"),
                    "size": 9,
                    "symbol": "circle" if feasible else "circle-open",
                    "line": {"width": 1.5},
                },
                **hover(
                    f"{plain(p.gpu_model)} · {plain(p.topology)} {p.oversubscription:g}:1 · {p.nics_per_node} NICs"
                    f" · {plain(p.storage)}<br>capex {usd_exact(p.capex_usd)} · project IRR {pct(p.project_irr)}"
                    f" · best rank {p.rank}" + ("" if feasible else "<br>infeasible: misses a constraint")
                    for p in part.itertuples()
                ),
            )
    edge = frontier(points[points["feasible"]])
    if not edge.empty:
        fig.add(
            "scatter",
            x=edge["capex_usd"],
            y=edge["project_irr"],
            mode="lines",
            name="frontier",
            line={"color": "#1d3557", "dash": "dot", "shape": "hv", "width": 1.5},
            hoverinfo="skip",
        )
    fig.update(
        title="Capex against project IRR: every design, and the frontier",
        xaxis=money_axis("Capex [USD]", points["capex_usd"]),
        yaxis={"title": {"text": "Project IRR [%]"}, "tickformat": ".0%"},
        height=440,
    )
    return fig.figure()
