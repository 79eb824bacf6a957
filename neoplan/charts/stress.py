"""Figures of the Stress test page, drawn from the results of :mod:`neoplan.analysis.stress` only (no model logic).

Metrics keep the model's units: IRRs and shares as fractions (axes formatted as percent), NPV in
USD, payback in months, DSCR and MOIC as ratios.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..formats import usd, usd_exact
from .base import PALETTE
from .spec import DASH, DOT, Spec, chart, clean, color, data, n, q, rows, rule_x, tip

if TYPE_CHECKING:
    from ..analysis.stress import Grid, MonteCarlo, Tornado

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


def tornado_figure(tornado: Tornado, metric: str = "equity_irr") -> Spec:
    """Change of ``metric`` with each driver at its low and its high value, biggest swing on top: bars from the
    scenario's value to the value with the driver moved, labelled with the driver's value (Vega-Lite spec)."""
    from ..analysis.stress import DRIVERS

    records = tornado.records(metric)  # Vega-Lite draws the first category on top: largest swing first
    title, tick, hover = METRIC_AXIS[metric]
    base = tornado.base[metric]
    labels = [r["label"] for r in records]
    sides = (("low", "Driver at low"), ("high", "Driver at high"))
    values = []
    for side, name in sides:  # the high bars drawn last: over the low ones where both go the same way
        for r in records:
            change = r[f"change_at_{side}"]
            # the label beyond the bar's end; a bar of no length: the low value left of the line, the high right
            up = {s: r[f"change_at_{s}"] > 0 or (r[f"change_at_{s}"] == 0 and s == "high") for s, _ in sides}
            values.append(
                {
                    "driver": r["label"],
                    "side": name,
                    "at": _value_text(r[f"{side}_value"], DRIVERS[r["driver"]].unit),
                    "value": base + change if math.isfinite(change) else None,
                    "up": bool(up[side]),
                    # both bars on one side: the low value's label above the high one's [px]
                    "shift": (-6 if side == "low" else 6) if up["low"] == up["high"] else 0,
                }
            )
    tooltip = [
        tip("driver", "driver", kind="nominal"),
        tip("side", "bar", kind="nominal"),
        tip("at", "driver value", kind="nominal"),
        tip("value", title, hover),
    ]
    bars = {
        "data": data(values),
        "mark": {"type": "bar"},
        "encoding": {
            "y": n("driver", None, sort=labels),
            # room for the value labels beyond the bars' ends
            "x": q("value", title, tick, scale={"zero": False, "padding": 56}),
            "x2": {"datum": clean(base)},
            "color": color("side", [s[1] for s in sides], (LOW, HIGH)),
            "tooltip": tooltip,
        },
    }
    texts = [
        {
            "data": data([v for v in values if (v["up"], v["shift"]) == (up, shift) and v["value"] is not None]),
            "mark": {
                "type": "text",
                "align": "left" if up else "right",
                "dx": 3 if up else -3,
                "dy": shift,
                "color": "#333",
            },
            "encoding": {
                "y": n("driver", None, sort=labels),
                "x": {"field": "value", "type": "quantitative"},
                "text": {"field": "at"},
                "tooltip": tooltip,
            },
        }
        for up, shift in sorted({(v["up"], v["shift"]) for v in values if v["value"] is not None}, reverse=True)
    ]
    layers = [bars, *texts, *rule_x(base, color="#555")] if math.isfinite(base) else [_no_base(title)]
    return chart(
        *layers,
        title=f"{title}: one driver at a time (base {_metric_text(base, metric)})",
        height=max(340, 90 + 30 * len(records)),
    )


def _no_base(title: str) -> Spec:
    """A note in place of the tornado's bars when the scenario's own value is undefined (no change to measure)."""
    return {
        "data": {"values": [{}]},
        "mark": {"type": "text", "color": "#555", "fontSize": 13, "align": "left", "baseline": "top"},
        "encoding": {
            "text": {"value": f"The scenario's own {title} is undefined: no change from it to draw."},
            "x": {"value": 0},
            "y": {"value": 10},
        },
    }


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


def _axis(driver: str) -> tuple[str, str, str]:
    """A driver's axis: (label, title with unit, d3 format of its ticks and tooltip values)."""
    from ..analysis.stress import DRIVERS

    spec = DRIVERS[driver]
    unit = UNIT_TITLE.get(spec.unit, spec.unit)
    return spec.label, f"{spec.label} ({unit})", UNIT_FORMAT.get(spec.unit, ".3g")


def _cell_edges(values: np.ndarray) -> tuple[list[float], list[float]]:
    """Each grid value's cell: from half-way to its neighbour below to half-way to the one above (the end cells as
    wide as their neighbour's half-gap on the inside); a single value gets ±5 % of itself (±0.5 at zero)."""
    v = np.asarray(values, dtype=float)
    if v.size == 1:
        half = 0.05 * abs(float(v[0])) or 0.5
        return [float(v[0]) - half], [float(v[0]) + half]
    mid = (v[:-1] + v[1:]) / 2
    lo = np.concatenate([[v[0] - (mid[0] - v[0])], mid])
    hi = np.concatenate([mid, [v[-1] + (v[-1] - mid[-1])]])
    return lo.tolist(), hi.tolist()


def _extent(low: list[float], high: list[float], point: float) -> list[float]:
    """[smallest, largest] of the cell edges and a point (left out if not finite)."""
    values = [*low, *high, *([point] if math.isfinite(point) else [])]
    return [min(values), max(values)]


BREAKEVEN_NAME, SCENARIO_NAME = "Break-even (NPV = 0)", "This scenario"
"""Legend entries of the grid's break-even line and of the scenario's point."""
X_SHAPE = "M-1,-1L1,1M-1,1L1,-1"
"""An x (SVG path, drawn as a stroke): the scenario's point."""
GRID_TEXT_MAX = 25
"""Most grid points per axis that still leave room for a value in each cell (the tooltip always has it)."""


def _breakeven_edges(
    npv: np.ndarray, x: tuple[list[float], list[float]], y: tuple[list[float], list[float]]
) -> list[dict[str, float]]:
    """Cell sides between a cell of NPV ≥ 0 and a neighbour of NPV < 0 (both defined): the break-even line at
    the grid's resolution, as segments ``x``, ``y`` to ``x2``, ``y2``."""
    (x_lo, x_hi), (y_lo, y_hi) = x, y
    below = npv < 0
    defined = np.isfinite(npv)
    out: list[dict[str, float]] = []
    ny, nx = npv.shape
    for iy in range(ny):
        for ix in range(nx):
            if not defined[iy, ix]:
                continue
            if ix + 1 < nx and defined[iy, ix + 1] and below[iy, ix] != below[iy, ix + 1]:
                out.append({"x": x_hi[ix], "y": y_lo[iy], "x2": x_hi[ix], "y2": y_hi[iy]})
            if iy + 1 < ny and defined[iy + 1, ix] and below[iy, ix] != below[iy + 1, ix]:
                out.append({"x": x_lo[ix], "y": y_hi[iy], "x2": x_hi[ix], "y2": y_hi[iy]})
    return out


def grid_figure(grid: Grid, metric: str = "equity_irr") -> Spec:
    """Heat map of ``metric`` over the two drivers, one cell per grid point with its value written in it (up to
    :data:`GRID_TEXT_MAX` points per axis), the break-even line (project NPV = 0) drawn along the sides between
    cells of NPV ≥ 0 and NPV < 0, and the scenario's own point (Vega-Lite spec)."""
    title, tick, hover = METRIC_AXIS[metric]
    z = grid.metrics[metric]
    npv = grid.metrics["npv_usd"]
    finite = z[np.isfinite(z)]
    centre = 0.0 if metric != "min_dscr" else 1.0
    span = float(np.max(np.abs(finite - centre))) if finite.size else 1.0
    span = span or 1.0
    x_edges, y_edges = _cell_edges(grid.x), _cell_edges(grid.y)
    x_label, x_title, x_fmt = _axis(grid.x_driver)
    y_label, y_title, y_fmt = _axis(grid.y_driver)
    cells = [
        {
            "x": grid.x[ix],
            "y": grid.y[iy],
            "x0": x_edges[0][ix],
            "x1": x_edges[1][ix],
            "y0": y_edges[0][iy],
            "y1": y_edges[1][iy],
            "z": z[iy, ix],
            "npv": npv[iy, ix],
            "strong": bool(abs(z[iy, ix] - centre) > 0.6 * span) if math.isfinite(z[iy, ix]) else False,
        }
        for iy in range(len(grid.y))
        for ix in range(len(grid.x))
    ]
    bx, by = grid.base_values[grid.x_driver], grid.base_values[grid.y_driver]
    # the cells edge to edge, and the scenario's point should it lie outside them
    x_scale = {"domain": _extent(*x_edges, bx), "nice": False, "zero": False}
    y_scale = {"domain": _extent(*y_edges, by), "nice": False, "zero": False}
    tooltip = [tip("x", x_label, x_fmt), tip("y", y_label, y_fmt), tip("z", title, hover)]
    if metric != "npv_usd":
        tooltip.append(tip("npv", METRIC_AXIS["npv_usd"][0], METRIC_AXIS["npv_usd"][2]))
    heat = {
        "data": data(cells),
        "mark": {"type": "rect", "stroke": "white", "strokeWidth": 0.5},
        "encoding": {
            "x": q("x0", x_title, x_fmt, scale=x_scale),
            "x2": {"field": "x1"},
            "y": q("y0", y_title, y_fmt, scale=y_scale),
            "y2": {"field": "y1"},
            "fill": {
                "field": "z",
                "type": "quantitative",
                "title": title.split(" (")[0],
                "scale": {
                    "scheme": "redyellowgreen",
                    "domain": [centre - span, centre + span],
                    "domainMid": centre,
                    "reverse": metric == "payback_months",
                },
                "legend": {"format": tick, "orient": "right", "gradientLength": 240},
            },
            "tooltip": tooltip,
        },
    }
    layers: list[Spec] = [heat]
    if len(grid.x) <= GRID_TEXT_MAX and len(grid.y) <= GRID_TEXT_MAX:
        written = [{k: c[k] for k in ("x", "y", "z", "strong")} for c in cells if math.isfinite(c["z"])]
        layers.append(
            {
                "data": data(written),
                "mark": {"type": "text", "fontSize": 9 if len(grid.x) > 15 else 11},
                "encoding": {
                    "x": {"field": "x", "type": "quantitative"},
                    "y": {"field": "y", "type": "quantitative"},
                    "text": {"field": "z", "type": "quantitative", "format": tick},
                    "color": {"condition": {"test": "datum.strong", "value": "white"}, "value": "#222"},
                    "tooltip": tooltip,
                },
            }
        )
    if np.nanmin(npv) < 0 < np.nanmax(npv):
        layers.append(
            {
                "data": data([{**e, "line": BREAKEVEN_NAME} for e in _breakeven_edges(npv, x_edges, y_edges)]),
                "mark": {"type": "rule", "color": BREAKEVEN, "strokeWidth": 3, "strokeCap": "square"},
                "encoding": {
                    "x": {"field": "x", "type": "quantitative"},
                    "y": {"field": "y", "type": "quantitative"},
                    "x2": {"field": "x2"},
                    "y2": {"field": "y2"},
                    "strokeDash": n(
                        "line",
                        scale={"domain": [BREAKEVEN_NAME], "range": [DASH]},
                        legend={"symbolType": "stroke", "symbolSize": 500, "symbolStrokeWidth": 3},
                    ),
                },
            }
        )
    layers.append(
        {
            "data": data([{"x": bx, "y": by, "point": SCENARIO_NAME}]),
            "mark": {"type": "point", "size": 120, "filled": False, "strokeWidth": 3, "color": "black"},
            "encoding": {
                "x": {"field": "x", "type": "quantitative"},
                "y": {"field": "y", "type": "quantitative"},
                "shape": n("point", scale={"domain": [SCENARIO_NAME], "range": [X_SHAPE]}),
                "tooltip": [tip("x", x_label, x_fmt), tip("y", y_label, y_fmt)],
            },
        }
    )
    return chart(*layers, title=f"{title} over two drivers", height=480)


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


def histogram_figure(mc: MonteCarlo, metric: str = "equity_irr", bins: int = 60) -> Spec:
    """Distribution of ``metric`` over the draws (share of the defined draws in each of some ``bins`` round-width
    bins), with P10/P50/P90 and the scenario's own value (Vega-Lite spec)."""
    title, tick, hover = METRIC_AXIS[metric]
    values = mc.metrics[metric]
    defined = values[np.isfinite(values)]
    layers: list[Spec] = []
    if defined.size:
        edges = _bins(defined, bins)
        counts, _ = np.histogram(defined, bins=edges)
        share = 100.0 * counts / defined.size
        tooltip = [
            tip("x0", f"{title} from", hover),
            tip("x1", "to", hover),
            tip("share", "% of draws", ".1f"),
        ]
        layers.append(
            {
                "data": {"values": rows(x0=edges[:-1], x1=edges[1:], share=share)},
                "mark": {
                    "type": "rect",
                    "color": PALETTE["this"],
                    "opacity": 0.85,
                    "stroke": "white",
                    "strokeWidth": 0.5,
                },
                "encoding": {
                    "x": q("x0", title, tick, scale={"zero": False}),
                    "x2": {"field": "x1"},
                    # head room for the percentile labels at the top
                    "y": q("share", "share of draws (%)", scale={"domainMax": 1.15 * float(share.max())}),
                    "y2": {"datum": 0},
                    "tooltip": tooltip,
                },
            }
        )
    layers += _percentile_lines(mc, metric)
    return chart(*layers, title=f"{title.split(' (')[0]}: {mc.draws:,} draws", height=380)


def cdf_figure(mc: MonteCarlo, metric: str = "equity_irr") -> Spec:
    """Cumulative distribution of ``metric``: share of draws at or below each value (line), with P10/P50/P90 and
    the scenario's own value (Vega-Lite spec)."""
    title, tick, hover = METRIC_AXIS[metric]
    x, share = mc.cdf(metric)
    step = max(1, x.size // 2000)  # at most ~2,000 points on screen
    line = {
        "data": {"values": rows(x=x[::step], share=share[::step])},
        "mark": {"type": "line", "color": BREAKEVEN, "strokeWidth": 2},
        "encoding": {
            "x": q("x", title, tick, scale={"zero": False}),
            "y": q("share", "share of draws at or below", ".0%", scale={"domain": [0, 1]}),
            "tooltip": [tip("x", title, hover), tip("share", "of draws at or below", ".0%")],
        },
    }
    return chart(line, *_percentile_lines(mc, metric), title=f"{title.split(' (')[0]}: cumulative share", height=380)


def _percentile_lines(mc: MonteCarlo, metric: str) -> list[Spec]:
    """Layers: vertical dotted lines at P10, P50, P90 labelled at the top, and a line at the scenario's
    deterministic value labelled with its percentile below them."""
    layers: list[Spec] = []
    for key, value in mc.percentiles(metric).items():
        if value is not None:
            layers += rule_x(value, color=PERCENTILE_COLORS[key], dash=DOT, text=key.upper())
    base = mc.deterministic.get(metric)
    if base is not None and math.isfinite(base):
        where = mc.base_percentile(metric)
        text = "scenario" if where is None else f"scenario (P{where:.0f})"
        layers += rule_x(base, color="#555", text=text, dy=18)
    return layers
