"""Figures of the Stress test page, drawn from the results of :mod:`neoplan.stress` only (no model logic).

Metrics keep the model's units: IRRs and shares as fractions (axes formatted as percent), NPV in
USD, payback in months, DSCR and MOIC as ratios.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from ..formats import usd, usd_exact
from .base import PALETTE, STYLE, figure, vline

if TYPE_CHECKING:
    from ..stress import Grid, MonteCarlo, Tornado

LOW, HIGH, BREAKEVEN = "#e76f51", "#2a9d8f", "#264653"
PERCENTILE_COLORS = {"p10": "#e76f51", "p50": "#264653", "p90": "#2a9d8f"}
METRIC_AXIS: dict[str, tuple[str, str, str]] = {
    # metric: (axis title, d3 tick format, hover format)
    "equity_irr": ("Equity IRR", ".0%", ".1%"),
    "project_irr": ("Project IRR", ".0%", ".1%"),
    "npv_usd": ("NPV at hurdle rate (USD)", "$.3~s", "$,.0f"),
    "payback_months": ("Payback (months from order)", ",.0f", ",.1f"),
    "min_dscr": ("Minimum DSCR (×)", ".2f", ".2f"),
    "equity_moic": ("Equity MOIC (×)", ".2f", ".2f"),
}
UNIT_FORMAT = {
    # driver unit: d3 format of its axis ticks and hover values
    "USD/GPU-h": "$.2f",
    "fraction/year": ".0%",
    "fraction": ".0%",
    "× design": ".2f",
    "USD/kWh": "$.3f",
    "ratio": ".2f",
    "USD/kW-month": "$,.0f",
    "months": ".1f",
    "minutes": ".0f",
    "× preset": ".2f",
}


UNIT_TITLE = {"fraction": "%", "fraction/year": "% per year", "× design": "× designed capex"}
"""Axis-title units where the driver's own unit reads badly next to percent ticks."""


def _layout(**overrides: Any) -> dict[str, Any]:
    """STYLE with a horizontal legend under the plot and per-figure overrides."""
    return {**STYLE, "legend": {"orientation": "h", "y": -0.2}, **overrides}


MONEY_DECIMALS = {"USD/GPU-h": 2, "USD/kWh": 3}
"""Decimals of a driver's money values on a label (whole dollars otherwise: ``$184`` per kW-month)."""


def _value_text(value: float, unit: str) -> str:
    """A driver value for a label: ``$2.10``, ``65 %``, ``1.20×``, ``6.0 months``."""
    if unit.startswith("fraction"):
        return f"{value * 100:.1f} %".replace(".0 %", " %")
    if unit.startswith("USD/"):
        return usd_exact(value, MONEY_DECIMALS.get(unit, 0))
    if unit.startswith("×") or unit == "ratio":
        return f"{value:.2f}×"
    if unit == "months":
        return f"{value:.1f} mo"
    if unit == "minutes":
        return f"{value:.0f} min"
    return f"{value:.3g} {unit}"


def tornado_figure(tornado: Tornado, metric: str = "equity_irr") -> go.Figure:
    """Change of ``metric`` with each driver at its low and its high value, biggest swing on top (bars)."""
    from ..stress import DRIVERS

    rows = list(reversed(tornado.records(metric)))  # plotly draws the first category at the bottom
    title, tick, hover = METRIC_AXIS[metric]
    base = tornado.base[metric]
    labels = [r["label"] for r in rows]
    fig = figure()
    for side, color, name in (("low", LOW, "Driver at low"), ("high", HIGH, "Driver at high")):
        change = np.array([r[f"change_at_{side}"] for r in rows], dtype=float)
        values = [r[f"{side}_value"] for r in rows]
        units = [DRIVERS[r["driver"]].unit for r in rows]
        texts = [_value_text(v, u) for v, u in zip(values, units, strict=True)]
        fig.add_bar(
            y=labels,
            x=np.where(np.isfinite(change), change, np.nan),
            base=base,
            orientation="h",
            name=name,
            marker_color=color,
            text=texts,
            textposition="auto",
            insidetextanchor="middle",
            customdata=np.stack([np.array(texts, dtype=object), base + change], axis=1),
            hovertemplate="%{y} at %{customdata[0]}<br>" + title + ": %{customdata[1]:" + hover + "}<extra></extra>",
        )
    vline(fig, base, color="#555", width=1)
    fig.update_layout(
        barmode="overlay",
        title=f"{title}: one driver at a time (base {_metric_text(base, metric)})",
        xaxis={"title": title, "tickformat": tick},
        **_layout(height=max(340, 90 + 30 * len(rows))),
    )
    return fig


def _metric_text(value: float, metric: str) -> str:
    """A metric value for a title: ``12.3 %``, ``−$6.9 M`` (:func:`neoplan.formats.usd`), ``61.2 months``, ``1.25×``."""
    if not math.isfinite(value):
        return "n/a"
    sign = "−" if value < 0 else ""
    if metric.endswith("irr"):
        return f"{sign}{abs(value) * 100:.1f} %"
    if metric == "npv_usd":
        return usd(value, 1)
    if metric == "payback_months":
        return f"{value:.1f} months"
    return f"{sign}{abs(value):.2f}×"


def _axis(driver: str) -> dict[str, Any]:
    """Plotly axis settings for a driver: title with unit, tick format."""
    from ..stress import DRIVERS

    spec = DRIVERS[driver]
    tick = UNIT_FORMAT.get(spec.unit, ".3g")
    unit = UNIT_TITLE.get(spec.unit, spec.unit)
    return {"title": f"{spec.label} ({unit})", "tickformat": tick, "hoverformat": tick}


def grid_figure(grid: Grid, metric: str = "equity_irr") -> go.Figure:
    """Heat map of ``metric`` over the two drivers, the break-even line (NPV = 0) and the scenario's point."""
    title, tick, hover = METRIC_AXIS[metric]
    z = grid.metrics[metric]
    finite = z[np.isfinite(z)]
    centre = 0.0 if metric != "min_dscr" else 1.0
    span = float(np.max(np.abs(finite - centre))) if finite.size else 1.0
    fig = figure(
        go.Heatmap(
            x=grid.x,
            y=grid.y,
            z=z,
            zmid=centre,
            zmin=centre - span,
            zmax=centre + span,
            colorscale="RdYlGn" if metric != "payback_months" else "RdYlGn_r",
            colorbar={"title": {"text": title.split(" (")[0]}, "tickformat": tick},
            hovertemplate="x %{x}<br>y %{y}<br>" + title + " %{z:" + hover + "}<extra></extra>",
            name=title,
        )
    )
    npv = grid.metrics["npv_usd"]
    if np.nanmin(npv) < 0 < np.nanmax(npv):
        fig.add_trace(
            go.Contour(
                x=grid.x,
                y=grid.y,
                z=npv,
                contours={"start": 0.0, "end": 0.0, "size": 1.0, "coloring": "lines", "showlabels": False},
                colorscale=[[0.0, BREAKEVEN], [1.0, BREAKEVEN]],
                line={"width": 3, "dash": "dash"},
                showscale=False,
                name="Break-even (NPV = 0)",
                showlegend=True,
                hoverinfo="skip",
            )
        )
    bx, by = grid.base_values[grid.x_driver], grid.base_values[grid.y_driver]
    fig.add_scatter(
        x=[bx],
        y=[by],
        mode="markers",
        marker={"symbol": "x", "size": 12, "color": "black"},
        name="This scenario",
        hoverinfo="skip",
    )
    fig.update_layout(
        title=f"{title} over two drivers",
        xaxis=_axis(grid.x_driver),
        yaxis=_axis(grid.y_driver),
        **_layout(height=480),
    )
    return fig


def histogram_figure(mc: MonteCarlo, metric: str = "equity_irr", bins: int = 60) -> go.Figure:
    """Distribution of ``metric`` over the draws, with P10/P50/P90 and the scenario's own value (histogram)."""
    title, tick, hover = METRIC_AXIS[metric]
    values = mc.metrics[metric]
    defined = values[np.isfinite(values)]
    fig = figure(
        go.Histogram(
            x=defined,
            nbinsx=bins,
            histnorm="percent",
            marker_color=PALETTE["this"],
            opacity=0.85,
            name="draws",
            hovertemplate=title + " %{x}<br>%{y:.1f} % of draws<extra></extra>",
        )
    )
    _percentile_lines(fig, mc, metric)
    fig.update_layout(
        title=f"{title.split(' (')[0]}: {mc.draws:,} draws",
        xaxis={"title": title, "tickformat": tick, "hoverformat": hover},
        yaxis={"title": "share of draws (%)"},
        bargap=0.02,
        showlegend=False,
        **_layout(height=380),
    )
    return fig


def cdf_figure(mc: MonteCarlo, metric: str = "equity_irr") -> go.Figure:
    """Cumulative distribution of ``metric``: share of draws at or below each value (line)."""
    title, tick, hover = METRIC_AXIS[metric]
    x, share = mc.cdf(metric)
    step = max(1, x.size // 2000)  # at most ~2,000 points on screen
    fig = figure(
        go.Scatter(
            x=x[::step],
            y=share[::step],
            mode="lines",
            line={"color": BREAKEVEN, "width": 2},
            name="CDF",
            hovertemplate=title + " %{x:" + hover + "}<br>%{y:.0%} of draws at or below<extra></extra>",
        )
    )
    _percentile_lines(fig, mc, metric)
    fig.update_layout(
        title=f"{title.split(' (')[0]}: cumulative share",
        xaxis={"title": title, "tickformat": tick},
        yaxis={"title": "share of draws at or below", "tickformat": ".0%", "range": [0, 1]},
        showlegend=False,
        **_layout(height=380),
    )
    return fig


def _percentile_lines(fig: go.Figure, mc: MonteCarlo, metric: str) -> None:
    """Vertical lines at P10, P50, P90 and at the scenario's deterministic value, labelled with its percentile."""
    for key, value in mc.percentiles(metric).items():
        if value is not None:
            vline(fig, value, color=PERCENTILE_COLORS[key], dash="dot", text=key.upper())
    base = mc.deterministic.get(metric)
    if base is not None and math.isfinite(base):
        where = mc.base_percentile(metric)
        text = "scenario" if where is None else f"scenario (P{where:.0f})"
        vline(fig, base, color="#555", width=1, text=text, beside=True, yshift=-18)
