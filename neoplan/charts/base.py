"""Shared chart style and the node and capex figures."""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

if TYPE_CHECKING:
    from ..model import Result

PALETTE = {"this": "#2a9d8f", "oem": "#b0b7c3", "accent": "#e76f51"}
LAYOUT = {"template": "plotly_white", "margin": {"l": 10, "r": 10, "t": 40, "b": 10}, "height": 420}


def _short(text: str, width: int = 44) -> str:
    """A label cut to ``width`` characters at a word boundary, with an ellipsis."""
    text = text.split(" (")[0] if len(text) > width else text
    return text if len(text) <= width else text[: width - 1].rsplit(" ", 1)[0] + "…"


def node_bom_figure(result: Result) -> go.Figure:
    """Per-line cost of this server against the OEM-default server (horizontal grouped bars) [USD]."""
    this = {ln.key: ln for ln in result.node_lines}
    oem = {ln.key: ln for ln in result.oem_default_node_lines}
    keys = sorted(
        set(this) | set(oem),
        key=lambda k: max(this[k].total_usd if k in this else 0, oem[k].total_usd if k in oem else 0),
    )
    labels = [_short((this.get(k) or oem[k]).item) for k in keys]
    fig = go.Figure()
    fig.add_bar(
        y=labels,
        x=[oem[k].total_usd if k in oem else 0 for k in keys],
        name="OEM default",
        orientation="h",
        marker_color=PALETTE["oem"],
        hovertemplate="%{y}<br>$%{x:,.0f}<extra>OEM default</extra>",
    )
    fig.add_bar(
        y=labels,
        x=[this[k].total_usd if k in this else 0 for k in keys],
        name="This node",
        orientation="h",
        marker_color=PALETTE["this"],
        hovertemplate="%{y}<br>$%{x:,.0f}<extra>This node</extra>",
    )
    fig.update_layout(
        barmode="group",
        title="Cost per server by line item",
        xaxis_title="USD per server",
        xaxis_type="log",
        legend={"orientation": "h", "y": -0.15},
        **LAYOUT,
    )
    return fig


def capex_figure(result: Result) -> go.Figure:
    """Cluster capex by category (bar) [USD]."""
    capex = {k: v for k, v in result.capex_by_category().items() if k != "total" and v > 0}
    fig = go.Figure(
        go.Bar(
            x=list(capex),
            y=list(capex.values()),
            marker_color=PALETTE["this"],
            hovertemplate="%{x}<br>$%{y:,.0f}<extra></extra>",
        )
    )
    fig.update_layout(title="Capex by category", yaxis_title="USD", **LAYOUT)
    return fig
