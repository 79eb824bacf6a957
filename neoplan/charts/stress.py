"""Figures of the Stress test page (plotly, :mod:`.base`), drawn from the results of :mod:`neoplan.analysis.stress` only
(no model logic): the tornado, the two-driver grid as a contour with the NPV = 0 break-even line, and the Monte Carlo
histogram and cumulative share with P10/P50/P90.

Metrics keep the model's units: IRRs and shares as fractions (axes formatted as percent), NPV in
USD, payback in months, DSCR and MOIC as ratios. Hover text in the app's formats.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from ..formats import usd, usd_exact
from .base import LEGEND_BELOW, PALETTE, Draft, hover, money_axis, note, trace, vline

if TYPE_CHECKING:
    from ..analysis.stress import Grid, MonteCarlo, Tornado

LOW, HIGH, BREAKEVEN = "#e76f51", "#2a9d8f", "#264653"
PERCENTILE_COLORS = {"p10": "#e76f51", "p50": "#264653", "p90": "#2a9d8f"}
METRIC_AXIS: dict[str, tuple[str, str]] = {
    # metric: (axis title with unit, d3 format of its ticks)
    "equity_irr": ("Equity IRR (%)", ".0%"),
    "project_irr": ("Project IRR (%)", ".0%"),
    "npv_usd": ("NPV at hurdle rate (USD)", "$~s"),
    "payback_months": ("Payback (months from order)", ",.0f"),
    "min_dscr": ("Minimum DSCR (×)", ".2f"),
    "equity_moic": ("Equity MOIC (×)", ".2f"),
}
UNIT_FORMAT = {
    # driver unit: d3 format of its axis ticks
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


MONEY_DECIMALS = {"USD/GPU-h": 2, "USD/kWh": 3}
"""Decimals of a driver's money values on a label (whole dollars otherwise: ``$184`` per kW-month)."""


def _value_text(value: float, unit: str) -> str:
    """A driver value for a label: ``$2.10``, ``65 %``, ``−3.4 %``, ``1.20×``, ``6.0 months`` (a minus sign, not a
    hyphen, as everywhere in the app)."""
    if unit.startswith("fraction"):
        text = f"{value * 100:.1f} %".replace(".0 %", " %")
    elif unit.startswith("USD/"):
        text = usd_exact(value, MONEY_DECIMALS.get(unit, 0))
    elif unit.startswith("×") or unit == "ratio":
        text = f"{value:.2f}×"
    elif unit == "months":
        text = f"{value:.1f} mo"
    elif unit == "minutes":
        text = f"{value:.0f} min"
    else:
        text = f"{value:.3g} {unit}"
    return "\u2212" + text[1:] if text.startswith("-") else text


def _metric_text(value: float, metric: str) -> str:
    """A metric value for a title or hover: ``12.3 %``, ``−$6.9 M`` (:func:`neoplan.formats.usd`), ``61.2 months``,
    ``1.25×``; ``n/a`` if undefined."""
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


def _metric_axis(metric: str, *values: Any) -> dict[str, Any]:
    """A metric's axis: its title with unit, its tick format (money: :func:`.base.money_axis` of ``values``)."""
    title, tick = METRIC_AXIS[metric]
    if metric == "npv_usd":
        return money_axis(title, *values)
    return {"title": {"text": title}, "tickformat": tick}


def _short_title(metric: str) -> str:
    """``Equity IRR`` for ``Equity IRR (%)``."""
    return METRIC_AXIS[metric][0].split(" (")[0]


def tornado_figure(tornado: Tornado, metric: str = "equity_irr") -> go.Figure:
    """Change of ``metric`` with each driver at its low and its high value, biggest swing on top: bars from the
    scenario's value (a line) to the value with the driver moved, low in orange above high in green (grouped, so
    two bars on one side never hide each other), each labelled with the driver's value; a note instead where the
    scenario's own value is undefined."""
    from ..analysis.stress import DRIVERS

    rows = list(reversed(tornado.records(metric)))  # plotly draws the first category at the bottom
    name = _short_title(metric)
    base = tornado.base[metric]
    labels = [r["label"] for r in rows]
    fig = Draft()
    if math.isfinite(base):
        for side, colour, legend in (("high", HIGH, "Driver at high"), ("low", LOW, "Driver at low")):
            change = np.array([r[f"change_at_{side}"] for r in rows], dtype=float)
            texts = [_value_text(r[f"{side}_value"], DRIVERS[r["driver"]].unit) for r in rows]
            fig.add(
                "bar",
                y=labels,
                x=np.where(np.isfinite(change), change, np.nan),
                base=base,
                orientation="h",
                name=legend,
                marker_color=colour,
                text=texts,
                textposition="outside",
                textfont={"size": 11},
                constraintext="none",
                cliponaxis=False,
                **hover(
                    f"{label} at {text}<br>{name}: {_metric_text(base + c, metric)} (base {_metric_text(base, metric)})"
                    for label, text, c in zip(labels, texts, change, strict=True)
                ),
            )
        vline(fig, base, color="#555", width=1)
    else:
        note(fig, f"The scenario's own {name} is undefined: no change from it to draw.")
    ends = [base + r[f"change_at_{side}"] for r in rows for side in ("low", "high")]
    fig.update(
        barmode="group",
        bargap=0.25,
        bargroupgap=0.05,
        title=f"{name}: one driver at a time (base {_metric_text(base, metric)})",
        xaxis={**_metric_axis(metric, ends), "automargin": True},
        yaxis={"automargin": True},
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1, "yanchor": "bottom", "traceorder": "reversed"},
        height=max(360, 120 + 36 * len(rows)),
    )
    if not math.isfinite(base):
        fig.update(height=260, xaxis={"visible": False}, yaxis={"visible": False})
    return fig.figure()


def _axis(driver: str) -> tuple[str, dict[str, Any]]:
    """A driver's label and plotly axis: the title with its unit, the tick format."""
    from ..analysis.stress import DRIVERS

    spec = DRIVERS[driver]
    unit = UNIT_TITLE.get(spec.unit, spec.unit)
    return spec.label, {"title": {"text": f"{spec.label} ({unit})"}, "tickformat": UNIT_FORMAT.get(spec.unit, ".3g")}


BREAKEVEN_NAME, SCENARIO_NAME = "Break-even (NPV = 0)", "This scenario"
"""Legend entries of the grid's break-even line and of the scenario's point."""


def breakeven_trace(grid: Grid) -> go.Contour | None:
    """The grid's break-even line: plotly's own contouring of project NPV at the single level 0 (a constraint
    contour, ``=`` 0), traced by marching squares with linear interpolation between grid points and no smoothing,
    so the line crosses each cell side where NPV interpolated along it is 0; ``None`` when NPV does not change sign
    on the grid."""
    npv = grid.metrics["npv_usd"]
    if not (np.nanmin(npv) < 0 < np.nanmax(npv)):
        return None
    return go.Contour(
        x=grid.x,
        y=grid.y,
        z=npv,
        contours={"type": "constraint", "operation": "=", "value": 0.0},
        line={"color": BREAKEVEN, "width": 3, "dash": "dash", "smoothing": 0},
        showscale=False,
        name=BREAKEVEN_NAME,
        showlegend=True,
        hoverinfo="skip",
    )


def grid_figure(grid: Grid, metric: str = "equity_irr") -> go.Figure:
    """``metric`` over the two drivers as a contour (``go.Contour``: colour between labelled levels, red below the
    centre — 0, or 1.0× for DSCR — and green above), the break-even line (project NPV = 0, :func:`breakeven_trace`)
    drawn through the grid, and the scenario's own point; the hover gives both drivers, the metric and NPV at the
    nearest grid point."""
    from ..analysis.stress import DRIVERS

    name = _short_title(metric)
    z = grid.metrics[metric]
    npv = grid.metrics["npv_usd"]
    finite = z[np.isfinite(z)]
    centre = 0.0 if metric != "min_dscr" else 1.0
    span = float(np.max(np.abs(finite - centre))) if finite.size else 1.0
    span = span or 1.0
    x_label, x_axis = _axis(grid.x_driver)
    y_label, y_axis = _axis(grid.y_driver)
    x_unit, y_unit = DRIVERS[grid.x_driver].unit, DRIVERS[grid.y_driver].unit
    texts = [
        [
            f"{x_label} {_value_text(x, x_unit)}<br>{y_label} {_value_text(y, y_unit)}<br>"
            f"{name} {_metric_text(z[iy, ix], metric)}"
            + ("" if metric == "npv_usd" else f"<br>NPV {_metric_text(npv[iy, ix], 'npv_usd')}")
            for ix, x in enumerate(grid.x)
        ]
        for iy, y in enumerate(grid.y)
    ]
    tick = METRIC_AXIS[metric][1]
    fig = Draft(
        trace(
            "contour",
            x=grid.x,
            y=grid.y,
            z=z,
            zmin=centre - span,
            zmax=centre + span,
            colorscale="RdYlGn_r" if metric == "payback_months" else "RdYlGn",
            ncontours=14,
            contours={
                "coloring": "heatmap",
                "showlabels": True,
                "labelformat": tick,
                "labelfont": {"size": 10, "color": "#222"},
            },
            line={"width": 0.5, "color": "rgba(40,40,40,0.35)", "smoothing": 0},
            colorbar={"title": {"text": name}, "tickformat": tick, "len": 0.8},
            name=name,
            showlegend=False,
            **hover(texts),
        )
    )
    line = breakeven_trace(grid)
    if line is not None:
        fig.data.append(line)
    bx, by = grid.base_values[grid.x_driver], grid.base_values[grid.y_driver]
    fig.add(
        "scatter",
        x=[bx],
        y=[by],
        mode="markers",
        marker={"symbol": "x-thin", "size": 14, "line": {"width": 3, "color": "black"}},
        name=SCENARIO_NAME,
        **hover([f"{SCENARIO_NAME}<br>{x_label} {_value_text(bx, x_unit)}<br>{y_label} {_value_text(by, y_unit)}"]),
    )
    fig.update(
        title=f"{name} over two drivers",
        xaxis=x_axis,
        yaxis=y_axis,
        legend={**LEGEND_BELOW, "y": -0.15},
        height=520,
    )
    return fig.figure()


def _bins(values: np.ndarray, bins: int) -> np.ndarray:
    """Edges of about ``bins`` equal bins covering ``values`` (finite, at least one), of the round width (1, 2, 2.5
    or 5 × a power of ten) nearest to their span over ``bins``."""
    low, high = float(values.min()), float(values.max())
    raw = (high - low) / bins or (abs(low) * 0.01 or 1.0)
    power = 10 ** math.floor(math.log10(raw))
    step = min((m * power for m in (1, 2, 2.5, 5, 10)), key=lambda width: abs(math.log(width / raw)))
    start = math.floor(low / step) * step
    count = max(1, math.floor((high - start) / step) + 1)
    return start + step * np.arange(count + 1)


def histogram_bins(mc: MonteCarlo, metric: str, bins: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """(bin edges, share of the defined draws in each bin [%]) of ``metric``: some ``bins`` bins of one round width
    (:func:`_bins`); empty arrays when no draw is defined."""
    values = mc.metrics[metric]
    defined = values[np.isfinite(values)]
    if not defined.size:
        return np.zeros(0), np.zeros(0)
    edges = _bins(defined, bins)
    counts, _ = np.histogram(defined, bins=edges)
    return edges, 100.0 * counts / defined.size


def histogram_figure(mc: MonteCarlo, metric: str = "equity_irr", bins: int = 60) -> go.Figure:
    """Distribution of ``metric`` over the draws: the share of the defined draws in each of some ``bins``
    round-width bins (bars), with P10/P50/P90 and the scenario's own value (lines) [% of draws]."""
    name = _short_title(metric)
    edges, share = histogram_bins(mc, metric, bins)
    fig = Draft()
    if share.size:
        fig.add(
            "bar",
            x=(edges[:-1] + edges[1:]) / 2,
            y=share,
            width=float(edges[1] - edges[0]),
            marker={"color": PALETTE["this"], "line": {"color": "white", "width": 0.5}},
            opacity=0.85,
            name="draws",
            **hover(
                f"{name} {_metric_text(a, metric)} to {_metric_text(b, metric)}: {s:.1f} % of draws"
                for a, b, s in zip(edges[:-1], edges[1:], share, strict=True)
            ),
        )
    else:
        note(fig, f"No draw has a defined {name}.")
    _percentile_lines(fig, mc, metric)
    fig.update(
        title=f"{name}: {mc.draws:,} draws",
        xaxis=_metric_axis(metric, edges),
        yaxis={"title": {"text": "share of draws (%)"}, "range": [0, 1.18 * float(share.max()) if share.size else 1]},
        bargap=0,
        showlegend=False,
        height=400,
    )
    return fig.figure()


def cdf_figure(mc: MonteCarlo, metric: str = "equity_irr") -> go.Figure:
    """Cumulative distribution of ``metric``: share of draws at or below each value (line), with P10/P50/P90 and
    the scenario's own value."""
    name = _short_title(metric)
    x, share = mc.cdf(metric)
    step = max(1, x.size // 2000)  # at most ~2,000 points on screen
    x, share = x[::step], share[::step]
    fig = Draft(
        trace(
            "scatter",
            x=x,
            y=share,
            mode="lines",
            line={"color": BREAKEVEN, "width": 2},
            name="cumulative share",
            **hover(
                f"{name} {_metric_text(v, metric)}: {100 * s:.0f} % of draws at or below"
                for v, s in zip(x, share, strict=True)
            ),
        )
    )
    _percentile_lines(fig, mc, metric)
    fig.update(
        title=f"{name}: cumulative share",
        xaxis=_metric_axis(metric, x),
        yaxis={"title": {"text": "share of draws at or below (%)"}, "tickformat": ".0%", "range": [0, 1]},
        showlegend=False,
        height=400,
    )
    return fig.figure()


def _percentile_lines(fig: Draft, mc: MonteCarlo, metric: str) -> None:
    """Dotted lines at P10, P50 and P90 labelled at the top, and a line at the scenario's deterministic value
    labelled with its percentile below them."""
    for key, value in mc.percentiles(metric).items():
        if value is not None:
            vline(fig, value, color=PERCENTILE_COLORS[key], dash="dot", width=2, text=key.upper())
    base = mc.deterministic.get(metric)
    if base is not None and math.isfinite(base):
        where = mc.base_percentile(metric)
        text = "scenario" if where is None else f"scenario (P{where:.0f})"
        vline(fig, base, color="#555", width=1, text=text, beside=True, yshift=-18)
