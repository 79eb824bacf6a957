"""Shared chart style and the node and capex figures."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go
import plotly.io as pio
from plotly.basedatatypes import BaseTraceType

from .spec import Spec, chart, color, data, n, q, tip

if TYPE_CHECKING:
    from ..model import Result

PALETTE = {"this": "#2a9d8f", "oem": "#b0b7c3", "accent": "#e76f51"}
STYLE = {"margin": {"l": 10, "r": 10, "t": 40, "b": 10}, "height": 420}
"""Size and margins of every chart, for ``update_layout(**STYLE)``."""
TEMPLATE = "plotly_white"
"""The house template: plotly's default for every figure once this module is imported (set below)."""

# Plotly's public default, applied by every ``go.Figure()`` as it is made. Streamlit sets its own default when it is
# imported; the app imports Streamlit first (app.py), so this line, run when a page first imports the charts, wins.
# (Setting a template on each figure instead would validate the whole template each time: some 14 ms a figure.)
pio.templates.default = TEMPLATE


def figure(*data: BaseTraceType) -> go.Figure:
    """A figure with ``data`` in the house template (plotly's default, :data:`TEMPLATE`), for
    ``update_layout(**STYLE)``."""
    return go.Figure(data=list(data) or None)


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


def node_bom_figure(result: Result) -> Spec:
    """Per-line cost of this server against the OEM-default server (horizontal grouped bars, log scale) [USD]."""
    this = {ln.key: ln for ln in result.node_lines}
    oem = {ln.key: ln for ln in result.oem_default_node_lines}
    keys = sorted(
        set(this) | set(oem),
        key=lambda k: -max(this[k].total_usd if k in this else 0, oem[k].total_usd if k in oem else 0),
    )
    labels = [_short((this.get(k) or oem[k]).item) for k in keys]
    series = ("OEM default", "This node")
    values = [
        {"item": label, "server": name, "usd": side[k].total_usd if k in side else None}
        for k, label in zip(keys, labels, strict=True)
        for name, side in zip(series, (oem, this), strict=True)
    ]
    positive = [ln.total_usd for side in (this, oem) for ln in side.values() if ln.total_usd > 0]
    floor = 10 ** math.floor(math.log10(min(positive))) if positive else 1.0  # a log axis has no zero
    bars = {
        "data": data(values),
        "mark": {"type": "bar"},
        "encoding": {
            "y": n("item", None, sort=labels, axis={"labelLimit": 320}),
            "x2": {"datum": floor},
            "yOffset": n("server", sort=list(series)),
            "x": q("usd", "USD per server", "$,.0f", scale={"type": "log"}),
            "color": color("server", series, (PALETTE["oem"], PALETTE["this"])),
            "tooltip": [
                tip("item", "line", kind="nominal"),
                tip("server", "server", kind="nominal"),
                tip("usd", "USD", "$,.0f"),
            ],
        },
    }
    return chart(bars, title="Cost per server by line item", height=max(300, 40 * len(keys)))


def capex_figure(result: Result) -> Spec:
    """Cluster capex by category (bar) [USD]."""
    capex = {k: v for k, v in result.capex_by_category().items() if k != "total" and v > 0}
    bars = {
        "data": data([{"category": k, "usd": v} for k, v in capex.items()]),
        "mark": {"type": "bar", "color": PALETTE["this"]},
        "encoding": {
            "x": n("category", None, sort=list(capex), axis={"labelAngle": 0}),
            "y": q("usd", "USD", "$,.3s"),
            "tooltip": [tip("category", "category", kind="nominal"), tip("usd", "USD", "$,.0f")],
        },
    }
    return chart(bars, title="Capex by category")
