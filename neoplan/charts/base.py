"""Shared chart style and the node and capex figures."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go
import plotly.io as pio
from plotly.basedatatypes import BaseTraceType

if TYPE_CHECKING:
    from ..model import Result

PALETTE = {"this": "#2a9d8f", "oem": "#b0b7c3", "accent": "#e76f51"}
LAYOUT = {"template": "plotly_white", "margin": {"l": 10, "r": 10, "t": 40, "b": 10}, "height": 420}
"""Size, margins and template of every chart, for ``update_layout(**LAYOUT)`` on a ``go.Figure()``."""
STYLE = {k: v for k, v in LAYOUT.items() if k != "template"}
"""LAYOUT without the template, for figures made by :func:`figure` (which carry the template already)."""
TEMPLATE = pio.templates["plotly_white"].to_plotly_json()
FAST_TEMPLATE = True
"""Whether :func:`figure` sets the template without validating it (tests compare with the validated build)."""


def figure(*data: BaseTraceType) -> go.Figure:
    """A figure with ``data`` in the house template (plotly_white), for ``update_layout(**STYLE)``.

    Plotly validates the whole template (hundreds of properties) each time one is set: some 12 ms of CPU a figure,
    and a ``go.Figure()`` gets two (Streamlit's default, then LAYOUT's). Here the template is set once, from the
    already valid plotly_white, without that check; every other property is validated as usual (the figure and its
    layout validate again once it is made). tests/test_page_charts.py checks each chart comes out exactly as a
    fully validated build.
    """
    if not FAST_TEMPLATE:
        return go.Figure(data=list(data) or None, layout={"template": "plotly_white"})
    fig = go.Figure(data=list(data) or None, layout={"template": TEMPLATE}, _validate=False)
    fig._validate = True
    fig._layout_obj._validate = True
    return fig


def two_rows(top_share: float, titles: tuple[str, str], spacing: float = 0.1) -> go.Figure:
    """A :func:`figure` of two plots sharing the x axis, the top one ``top_share`` of the height: traces on the
    lower plot take ``xaxis="x2", yaxis="y2"``. The layout ``make_subplots(rows=2, shared_xaxes=True, …)`` makes,
    written out (make_subplots costs more than all the rest of a figure)."""
    bottom = (1 - top_share) * (1 - spacing)
    top = 1 - top_share * (1 - spacing)
    fig = figure()
    fig.update_layout(
        xaxis={"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False},
        yaxis={"anchor": "x", "domain": [top, 1.0]},
        xaxis2={"anchor": "y2", "domain": [0.0, 1.0]},
        yaxis2={"anchor": "x2", "domain": [0.0, bottom]},
        annotations=[
            {
                "font": {"size": 16},
                "showarrow": False,
                "text": text,
                "x": 0.5,
                "xanchor": "center",
                "xref": "paper",
                "y": y,
                "yanchor": "bottom",
                "yref": "paper",
            }
            for text, y in zip(titles, (1.0, bottom), strict=True)
        ],
    )
    return fig


def _line(color: str, dash: str | None, width: float | None) -> dict[str, Any]:
    return {k: v for k, v in (("color", color), ("dash", dash), ("width", width)) if v is not None}


def hline(
    fig: go.Figure,
    y: float,
    *,
    color: str,
    dash: str | None = None,
    width: float | None = None,
    axes: str = "",
    text: str | None = None,
    below: bool = False,
) -> None:
    """A line across the plot at ``y`` on axes ``x{axes}``/``y{axes}`` ("" = the first, "2" = the second subplot),
    ``text`` at its right end, above it (or ``below``). Like ``fig.add_hline`` at a fraction of its cost."""
    fig.add_shape(
        type="line", xref=f"x{axes} domain", x0=0, x1=1, yref=f"y{axes}", y0=y, y1=y, line=_line(color, dash, width)
    )
    if text:
        fig.add_annotation(
            xref=f"x{axes} domain",
            x=1,
            yref=f"y{axes}",
            y=y,
            text=text,
            showarrow=False,
            xanchor="right",
            yanchor="top" if below else "bottom",
        )


def vline(
    fig: go.Figure,
    x: float,
    *,
    color: str,
    dash: str | None = None,
    width: float | None = None,
    axes: str = "",
    text: str | None = None,
    beside: bool = False,
    yshift: float = 0,
) -> None:
    """A line up the plot at ``x``, ``text`` above it (or ``beside`` it, right of its top). Like ``fig.add_vline``
    at a fraction of its cost."""
    fig.add_shape(
        type="line", xref=f"x{axes}", x0=x, x1=x, yref=f"y{axes} domain", y0=0, y1=1, line=_line(color, dash, width)
    )
    if text:
        fig.add_annotation(
            xref=f"x{axes}",
            x=x,
            yref=f"y{axes} domain",
            y=1,
            text=text,
            showarrow=False,
            xanchor="left" if beside else "center",
            yanchor="top" if beside else "bottom",
            yshift=yshift,
        )


def vrect(
    fig: go.Figure, x0: float, x1: float, *, fill: str, opacity: float, axes: str = "", text: str | None = None
) -> None:
    """A shaded band from ``x0`` to ``x1`` over the plot, ``text`` in its top right corner (like ``add_vrect``)."""
    fig.add_shape(
        type="rect",
        xref=f"x{axes}",
        x0=x0,
        x1=x1,
        yref=f"y{axes} domain",
        y0=0,
        y1=1,
        fillcolor=fill,
        opacity=opacity,
        line_width=0,
        layer="below",
    )
    if text:
        fig.add_annotation(
            xref=f"x{axes}",
            x=x1,
            yref=f"y{axes} domain",
            y=1,
            text=text,
            showarrow=False,
            xanchor="right",
            yanchor="top",
        )


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
    fig = figure()
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
        **STYLE,
    )
    return fig


def capex_figure(result: Result) -> go.Figure:
    """Cluster capex by category (bar) [USD]."""
    capex = {k: v for k, v in result.capex_by_category().items() if k != "total" and v > 0}
    fig = figure(
        go.Bar(
            x=list(capex),
            y=list(capex.values()),
            marker_color=PALETTE["this"],
            hovertemplate="%{x}<br>$%{y:,.0f}<extra></extra>",
        )
    )
    fig.update_layout(title="Capex by category", yaxis_title="USD", **STYLE)
    return fig
