"""The house style of every chart (plotly), the mode bar, hover text in the app's formats, and the node and capex
figures.

Conventions for every chart module of :mod:`neoplan.charts`:

- a builder is a pure function of the model's results returning a :class:`plotly.graph_objects.Figure` in the house
  template (:data:`TEMPLATE`): it writes the traces and layout as plotly's own attributes in plain dicts
  (:class:`Draft`) and plotly builds and validates the figure once, with its public API (``go.Figure``);
- hover text is written here, in Python, with :mod:`neoplan.formats` (``$1.26 M``, ``−5.0 %``, ``$2.13 /GPU-h``):
  each point's text rides in ``customdata`` and the trace's ``hovertemplate`` shows it (:func:`hover`), so a hover
  box reads as the app's cards do, minus sign and all. Axes carry units in their titles;
- plotly draws titles, labels, legends, hover and annotation text from a subset of HTML (``<b>``, ``<a href>``,
  ``<span style>``, …) and reads ``$…$`` as LaTeX: a user's text (a scenario name, a quote's item) goes through
  :func:`~neoplan.plaintext.for_plotly` (:func:`plain`) before it meets any of them, so it shows as typed;
- the mode bar keeps zoom, pan, reset and "download as PNG" (:func:`mode_bar`), the picture named after the scenario.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.basedatatypes import BaseTraceType

from ..formats import pct, usd_exact, usd_label
from ..plaintext import for_plotly as plain

if TYPE_CHECKING:
    from ..model import Result

__all__ = [
    "PALETTE",
    "STYLE",
    "TEMPLATE",
    "capex_figure",
    "figure",
    "hover",
    "mode_bar",
    "node_bom_figure",
    "plain",
]

PALETTE = {"this": "#2a9d8f", "oem": "#b0b7c3", "accent": "#e76f51"}
"""This plan's colour, the OEM default's, and the accent (a warning, a price line)."""
STYLE: dict[str, Any] = {"margin": {"l": 10, "r": 10, "t": 60, "b": 10}, "height": 420}
"""Size and margins of every chart (a :class:`Draft` starts with them)."""
LEGEND_BELOW: dict[str, Any] = {"orientation": "h", "y": -0.18, "yanchor": "top", "x": 0}
"""A horizontal legend under the plot."""
TEMPLATE = "plotly_white"
"""The house template: plotly's default for every figure once this module is imported (set below)."""

# Plotly's public default, applied by every ``go.Figure()`` as it is made. Streamlit sets its own default when it is
# imported; the app imports Streamlit first (app.py), so this line, run when a page first imports the charts, wins.
# (Setting a template on each figure instead would validate the whole template each time: some 14 ms a figure.)
pio.templates.default = TEMPLATE

MODE_BAR_KEPT = ("zoom2d", "pan2d", "resetScale2d", "toImage")
"""The mode bar's buttons on a cartesian chart: zoom, pan, reset the axes, download as PNG."""
MODE_BAR_REMOVED = (
    "zoomIn2d",
    "zoomOut2d",
    "autoScale2d",
    "select2d",
    "lasso2d",
    "toggleSpikelines",
    "hoverClosestCartesian",
    "hoverCompareCartesian",
)
"""plotly's other default buttons, removed (the box and lasso select have nothing to select here)."""


def mode_bar(filename: str) -> dict[str, Any]:
    """The plotly ``config`` of every chart, in the app (``st.plotly_chart(config=…)``) and in the report: the mode
    bar with :data:`MODE_BAR_KEPT` only, no plotly logo, and "download as PNG" saving ``<filename>.png`` at twice
    the size on screen. ``filename`` is a file-name stem (the scenario's slug and the chart's name)."""
    return {
        "displaylogo": False,
        "modeBarButtonsToRemove": list(MODE_BAR_REMOVED),
        "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2},
    }


def _merge(into: dict[str, Any], more: dict[str, Any]) -> None:
    """``more`` merged into ``into`` as plotly's ``update_layout`` merges: a dict into a dict key by key, anything
    else replacing."""
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


class Draft:
    """A figure being written: its traces and layout as plain dicts (``{"type": "bar", …}``, the house
    :data:`STYLE` to start with), made a plotly Figure by :meth:`figure`, which validates the whole at once (some
    five times faster than plotly's ``add_*`` and ``update_layout`` call by call, which re-validate as they go)."""

    def __init__(self, *traces: dict[str, Any] | BaseTraceType, **layout: Any) -> None:
        self.data: list[dict[str, Any] | BaseTraceType] = list(traces)
        self.layout: dict[str, Any] = {"margin": dict(STYLE["margin"]), "height": STYLE["height"]}
        _merge(self.layout, layout)

    def add(self, kind: str, **trace: Any) -> None:
        """A trace of type ``kind`` (``"bar"``, ``"scatter"``, …) with plotly's attributes ``trace``."""
        self.data.append({"type": kind, **trace})

    def update(self, **layout: Any) -> None:
        """Layout attributes, merged as ``update_layout`` merges them (nested dicts, no ``a_b`` shorthand)."""
        _merge(self.layout, layout)

    def shape(self, **shape: Any) -> None:
        """A layout shape (a line, a band)."""
        self.layout.setdefault("shapes", []).append(shape)

    def annotate(self, **annotation: Any) -> None:
        """A layout annotation (a text on the plot)."""
        self.layout.setdefault("annotations", []).append(annotation)

    def figure(self) -> go.Figure:
        """The plotly Figure, in the house template (plotly's default, :data:`TEMPLATE`), validated by plotly."""
        return go.Figure({"data": self.data, "layout": self.layout})


def trace(kind: str, **attributes: Any) -> dict[str, Any]:
    """A trace of type ``kind`` as a dict, for :class:`Draft`."""
    return {"type": kind, **attributes}


def figure(*data: dict[str, Any] | BaseTraceType) -> go.Figure:
    """A figure of ``data`` alone in the house style (:class:`Draft` for more)."""
    return Draft(*data).figure()


HOVER = "%{customdata}<extra></extra>"
"""A hovertemplate showing each point's text (:func:`hover`) and nothing else."""


def hover(texts: Iterable[str] | Iterable[list[str]]) -> dict[str, Any]:
    """Trace keywords that make each point's hover box its text (written with :mod:`neoplan.formats`; ``<br>``
    between lines; user text already :func:`plain`); rows of texts for a 2-D trace (a contour's grid)."""
    return {"customdata": list(texts), "hovertemplate": HOVER}


def money_axis(title: str, *values: Any, **more: Any) -> dict[str, Any]:
    """A money axis [USD] for data ``values`` (arrays or numbers): ticks ``$20M``, ``−$3M``, ``$500k`` (d3's
    ``$~s``: the sign before the dollar, as :func:`neoplan.formats.usd`); from a billion up, where d3 would write
    ``G``, plotly's own ``1.5B`` (``$1.5B`` when nothing is negative: plotly would put a prefix before the sign).
    The unit goes in ``title``."""
    data = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in values]) if values else np.zeros(1)
    finite = data[np.isfinite(data)]
    largest = float(np.max(np.abs(finite))) if finite.size else 0.0
    if largest < 1e9:
        ticks: dict[str, Any] = {"tickformat": "$~s"}
    elif float(finite.min()) >= 0:
        ticks = {"tickprefix": "$", "exponentformat": "B"}
    else:
        ticks = {"exponentformat": "B"}
    return {"title": {"text": title}, **ticks, **more}


def two_rows(top_share: float, titles: tuple[str, str], spacing: float = 0.12) -> Draft:
    """A :class:`Draft` of two plots sharing the x axis, the top one ``top_share`` of the height: traces on the
    lower plot take ``xaxis="x2", yaxis="y2"``. The layout ``make_subplots(rows=2, shared_xaxes=True, …)`` makes,
    written out (make_subplots costs more than all the rest of a figure)."""
    bottom = (1 - top_share) * (1 - spacing)
    top = 1 - top_share * (1 - spacing)
    return Draft(
        xaxis={"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False},
        yaxis={"anchor": "x", "domain": [top, 1.0]},
        xaxis2={"anchor": "y2", "domain": [0.0, 1.0]},
        yaxis2={"anchor": "x2", "domain": [0.0, bottom]},
        annotations=[
            {
                "font": {"size": 14},
                "showarrow": False,
                "text": text,
                "x": 0,
                "xanchor": "left",
                "xref": "paper",
                "y": y,
                "yanchor": "bottom",
                "yref": "paper",
            }
            for text, y in zip(titles, (1.0, bottom), strict=True)
        ],
    )


def _line(color: str, dash: str | None, width: float | None) -> dict[str, Any]:
    return {k: v for k, v in (("color", color), ("dash", dash), ("width", width)) if v is not None}


def hline(
    fig: Draft,
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
    fig.shape(
        type="line", xref=f"x{axes} domain", x0=0, x1=1, yref=f"y{axes}", y0=y, y1=y, line=_line(color, dash, width)
    )
    if text:
        fig.annotate(
            xref=f"x{axes} domain",
            x=1,
            yref=f"y{axes}",
            y=y,
            text=text,
            showarrow=False,
            xanchor="right",
            yanchor="top" if below else "bottom",
            font={"color": color},
        )


def vline(
    fig: Draft,
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
    """A line up the plot at ``x``, ``text`` above it (or ``beside`` it, right of its top, ``yshift`` px up). Like
    ``fig.add_vline`` at a fraction of its cost."""
    fig.shape(
        type="line", xref=f"x{axes}", x0=x, x1=x, yref=f"y{axes} domain", y0=0, y1=1, line=_line(color, dash, width)
    )
    if text:
        fig.annotate(
            xref=f"x{axes}",
            x=x,
            yref=f"y{axes} domain",
            y=1,
            text=text,
            showarrow=False,
            xanchor="left" if beside else "center",
            yanchor="top" if beside else "bottom",
            yshift=yshift,
            font={"color": color},
        )


def vrect(
    fig: Draft, x0: float, x1: float, *, fill: str, opacity: float, axes: str = "", text: str | None = None
) -> None:
    """A shaded band from ``x0`` to ``x1`` over the plot, ``text`` in its top right corner (like ``add_vrect``)."""
    fig.shape(
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
        fig.annotate(
            xref=f"x{axes}",
            x=x1,
            yref=f"y{axes} domain",
            y=1,
            text=text,
            showarrow=False,
            xanchor="right",
            yanchor="top",
        )


def note(fig: Draft, text: str, *, color: str = "#555") -> None:
    """``text`` in the middle of an empty plot (what a chart shows when it has nothing to draw)."""
    fig.annotate(
        x=0.5, y=0.5, xref="paper", yref="paper", text=text, showarrow=False, font={"size": 14, "color": color}
    )


def short(text: str, width: int = 44) -> str:
    """A label cut to ``width`` characters at a word boundary, with an ellipsis (the full text is in the hover)."""
    text = text.split(" (")[0] if len(text) > width else text
    return text if len(text) <= width else text[: width - 1].rsplit(" ", 1)[0] + "…"


def unique(labels: Iterable[str]) -> list[str]:
    """``labels`` with a repeated one numbered (``Item (2)``): a category axis would draw two rows as one."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def node_bom_figure(result: Result) -> go.Figure:
    """Per-line cost of this server against the OEM-default server (horizontal grouped bars, log scale, the
    costliest line on top) [USD per server]."""
    this = {ln.key: ln for ln in result.node_lines}
    oem = {ln.key: ln for ln in result.oem_default_node_lines}
    keys = sorted(
        set(this) | set(oem),
        key=lambda k: max(this[k].total_usd if k in this else 0, oem[k].total_usd if k in oem else 0),
    )  # plotly draws the first category at the bottom: the costliest last
    items = [(this.get(k) or oem[k]).item for k in keys]
    labels = unique(plain(short(item)) for item in items)
    fig = Draft()
    for name, side, colour in (("OEM default", oem, PALETTE["oem"]), ("This node", this, PALETTE["this"])):
        usd = [side[k].total_usd if k in side else math.nan for k in keys]
        fig.add(
            "bar",
            y=labels,
            x=usd,
            name=name,
            orientation="h",
            marker_color=colour,
            **hover(
                f"{plain(item)}<br>{name}: {usd_exact(v)} per server"
                + (f"<br>{side[k].quantity:,g} × {usd_exact(side[k].unit_price_usd)}" if k in side else "")
                for item, v, k in zip(items, usd, keys, strict=True)
            ),
        )
    fig.update(
        barmode="group",
        title="Cost per server by line item",
        xaxis={"title": {"text": "USD per server (log scale)"}, "type": "log", "tickprefix": "$"},
        legend={**LEGEND_BELOW, "traceorder": "normal"},
        height=max(320, 90 + 34 * len(keys)),
    )
    return fig.figure()


def capex_figure(result: Result) -> go.Figure:
    """Cluster capex by category (bars, each labelled with its amount) [USD]."""
    from ..finance.statements import CAPEX_LABELS

    capex = {k: v for k, v in result.capex_by_category().items() if k != "total" and v > 0}
    total = sum(capex.values())
    names = [CAPEX_LABELS.get(k, k) for k in capex]
    fig = Draft(
        trace(
            "bar",
            x=names,
            y=list(capex.values()),
            marker_color=PALETTE["this"],
            text=[usd_label(v) for v in capex.values()],
            textposition="outside",
            cliponaxis=False,
            **hover(
                f"{name}<br>{usd_exact(v)} ({pct(v / total)} of capex)"
                for name, v in zip(names, capex.values(), strict=True)
            ),
        )
    )
    fig.update(title="Capex by category", yaxis=money_axis("USD", list(capex.values())))
    return fig.figure()
