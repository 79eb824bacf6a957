"""Network page figures: the back-end designs compared, and a picture of the topology."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..fabric import DesignOption
from ..formats import pct
from .base import PALETTE, STYLE, figure

SHORT_LABELS = {
    "reference": "Reference",
    "tor": "Top-of-rack",
    "vms": "VMS 1:1",
    "vms_2to1": "VMS 2:1",
    "modular": "Modular",
    "spectrum_x": "Spectrum-X",
}
TIER_COLOURS = {"server": "#b0b7c3", "leaf": "#2a9d8f", "spine": "#264653", "chassis": "#e76f51", "core": "#e9c46a"}


def _bar_label(option: DesignOption, chosen: str) -> str:
    short = SHORT_LABELS.get(option.name, option.label)
    return f"<b>{short}</b><br>your design" if option.name == chosen else short


def options_figure(options: list[DesignOption], chosen: str) -> go.Figure:
    """Back-end capex per design with Δ vs reference as bar text, the scenario's design in the accent colour [USD]."""
    ok = [o for o in options if o.feasible]
    colours = {"reference": PALETTE["oem"], chosen: PALETTE["accent"]}
    fig = figure(
        go.Bar(
            x=[_bar_label(o, chosen) for o in ok],
            y=[o.capex_usd for o in ok],
            text=["baseline" if o.name == "reference" else pct(o.delta_vs_reference) for o in ok],
            textposition="outside",
            marker_color=[colours.get(o.name, PALETTE["this"]) for o in ok],
            customdata=[[o.spine_gbps_per_gpu, o.spine_switches, o.transceivers] for o in ok],
            hovertemplate="%{x}<br>$%{y:,.0f}<br>%{customdata[0]:,.0f} Gbit/s per GPU across spines"
            "<br>%{customdata[1]} spines · %{customdata[2]:,} transceivers<extra></extra>",
        )
    )
    fig.update_layout(title="Back-end capex by design (hardware)", yaxis_title="USD", **STYLE)
    return fig


def topology_figure(picture: dict[str, Any]) -> go.Figure:
    """Simplified drawing of the back end: a sample of each tier and how it connects."""
    pos = {n["id"]: (n["x"], n["y"]) for n in picture["nodes"]}
    xs: list[float | None] = []
    ys: list[float | None] = []
    for e in picture["edges"]:
        (x0, y0), (x1, y1) = pos[e["source"]], pos[e["target"]]
        xs += [x0, x1, None]
        ys += [y0, y1, None]
    fig = figure(
        go.Scatter(x=xs, y=ys, mode="lines", line={"color": "#cfd4dc", "width": 1}, hoverinfo="skip", showlegend=False)
    )
    totals, shown = picture["totals"], picture["shown"]
    for tier, colour in TIER_COLOURS.items():
        nodes = [n for n in picture["nodes"] if n["tier"] == tier]
        if not nodes:
            continue
        fig.add_scatter(
            x=[n["x"] for n in nodes],
            y=[n["y"] for n in nodes],
            mode="markers",
            marker={"size": 14 if tier != "chassis" else 28, "color": colour, "symbol": "square"},
            name=f"{tier}: {shown[tier]:,} of {totals[tier]:,} shown",
            text=[n["label"] for n in nodes],
            hovertemplate="%{text}<extra></extra>",
        )
    fig.update_layout(
        title="Back-end topology (a sample of each tier)",
        xaxis={"visible": False},
        yaxis={"visible": False},
        legend={"orientation": "h", "y": -0.05},
        **STYLE,
    )
    return fig
