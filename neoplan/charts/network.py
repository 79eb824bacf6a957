"""Network page figures (plotly, :mod:`.base`): the back-end designs compared, and a picture of the topology."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..design.fabric import DesignOption
from ..formats import pct, usd_exact, usd_label
from .base import PALETTE, Draft, hover, money_axis, plain, trace

SHORT_LABELS = {
    "reference": "Reference",
    "tor": "Top-of-rack",
    "vms": "VMS 1:1",
    "vms_2to1": "VMS 2:1",
    "modular": "Modular",
    "spectrum_x": "Spectrum-X",
}
TIER_COLOURS = {"server": "#b0b7c3", "leaf": "#2a9d8f", "spine": "#264653", "chassis": "#e76f51", "core": "#e9c46a"}
CHOSEN_NOTE = "your design"
"""Second line of the label of the scenario's own design."""


def _bar_label(option: DesignOption, chosen: str) -> str:
    short = plain(SHORT_LABELS.get(option.name, option.label))
    return f"<b>{short}</b><br>{CHOSEN_NOTE}" if option.name == chosen else short


def options_figure(options: list[DesignOption], chosen: str) -> go.Figure:
    """Back-end capex per feasible design with Δ vs reference above each bar, the scenario's design in the accent
    colour and its label in bold [USD]."""
    ok = [o for o in options if o.feasible]
    colours = {"reference": PALETTE["oem"], chosen: PALETTE["accent"]}
    labels = [_bar_label(o, chosen) for o in ok]
    fig = Draft(
        trace(
            "bar",
            x=labels,
            y=[o.capex_usd for o in ok],
            text=["baseline" if o.name == "reference" else pct(o.delta_vs_reference) for o in ok],
            textposition="outside",
            cliponaxis=False,
            marker_color=[colours.get(o.name, PALETTE["this"]) for o in ok],
            name="back-end capex",
            **hover(
                f"{plain(o.label)}<br>capex {usd_exact(o.capex_usd)} ({usd_label(o.capex_usd)})"
                f"<br>{o.spine_gbps_per_gpu:,.0f} Gbit/s per GPU across spines"
                f"<br>{o.spine_switches:,} spines · {o.transceivers:,} transceivers"
                for o in ok
            ),
        )
    )
    fig.update(
        title="Back-end capex by design (hardware)", yaxis=money_axis("USD", [o.capex_usd for o in ok]), height=440
    )
    return fig.figure()


NODE_SIZE = {"chassis": 28}
"""Marker side of a tier's nodes [px] (14 for the others)."""


def topology_figure(picture: dict[str, Any]) -> go.Figure:
    """Simplified drawing of the back end: a sample of each tier (square markers, one colour a tier, the legend
    saying how many of each are shown) and how it connects (lines)."""
    pos = {node["id"]: (node["x"], node["y"]) for node in picture["nodes"]}
    xs: list[float | None] = []
    ys: list[float | None] = []
    for e in picture["edges"]:
        (x0, y0), (x1, y1) = pos[e["source"]], pos[e["target"]]
        xs += [x0, x1, None]
        ys += [y0, y1, None]
    fig = Draft(
        trace(
            "scatter",
            x=xs,
            y=ys,
            mode="lines",
            line={"color": "#cfd4dc", "width": 1},
            hoverinfo="skip",
            showlegend=False,
            name="links",
        )
    )
    totals, shown = picture["totals"], picture["shown"]
    for tier, colour in TIER_COLOURS.items():
        members = [n for n in picture["nodes"] if n["tier"] == tier]
        if not members:
            continue
        fig.add(
            "scatter",
            x=[n["x"] for n in members],
            y=[n["y"] for n in members],
            mode="markers",
            marker={"size": NODE_SIZE.get(tier, 14), "color": colour, "symbol": "square"},
            name=f"{tier}: {shown[tier]:,} of {totals[tier]:,} shown",
            **hover(plain(n["label"]) for n in members),
        )
    fig.update(
        title="Back-end topology (a sample of each tier)",
        xaxis={"visible": False},
        yaxis={"visible": False},
        legend={"orientation": "h", "y": -0.05, "x": 0},
        height=440,
    )
    return fig.figure()
