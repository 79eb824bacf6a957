"""Figures for the Overview, Financing, Pricing & revenue and Results pages, as Vega-Lite specs (:mod:`.spec`): they
only draw.

Each figure is drawn from a :class:`~neoplan.model.Result` (its arrays, KPIs and ``returns_vs_price``) and the
statements of :mod:`neoplan.finance.statements` (P&L by project year, debt schedule); no roll-ups or model logic here.
Months count from the purchase order (month 0); project year 1 = months 0–11, so construction falls in year 1
(:mod:`neoplan.finance.statements` says what "year" means). Money in USD, rates as fractions.

The statements and their labels used to live here; they are re-exported for old imports.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..finance.statements import (
    DEBT_LABELS,
    PNL_BOLD,
    PNL_LABELS,
    PNL_ROWS,
    debt_by_month,
    debt_by_year,
    pnl_by_year,
    year_labels,
)
from ..formats import usd_exact
from .base import PALETTE
from .spec import DOT, Spec, band_x, chart, clean, color, data, n, q, rows, rule_x, rule_y, stack, tip

if TYPE_CHECKING:
    from ..model import Result

__all__ = [
    "DEBT_LABELS",
    "PNL_BOLD",
    "PNL_LABELS",
    "PNL_ROWS",
    "cash_flow_figure",
    "debt_by_month",
    "debt_by_year",
    "debt_figure",
    "irr_vs_price_figure",
    "margin_figure",
    "pnl_by_year",
    "price_grid",
    "revenue_mix_figure",
    "tco_figure",
    "timeline_figure",
    "year_labels",
]

MONTH_AXIS = "month from purchase order"
TCO_COLORS = {
    "capital": "#264653",
    "power": "#e9c46a",
    "colocation": "#f4a261",
    "staff": "#2a9d8f",
    "software": "#e76f51",
    "other": "#b0b7c3",
}
POSITIVE, NEGATIVE, WARN = "#2a9d8f", "#e76f51", "#e9c46a"
RESERVED, ON_DEMAND, EQUITY, SPOT = "#264653", "#8ab17d", "#6d597a", "#e9c46a"


def _finite(value: float) -> bool:
    return math.isfinite(value)


def _kpi(result: Result, key: str) -> float:
    """A KPI as a float; nan where undefined (``None`` or missing)."""
    value = result.kpis.get(key)
    return math.nan if value is None else float(value)


def price_grid(result: Result, n: int = 41) -> np.ndarray:
    """``n`` (2 to 1,001) headline prices around the break-even price, widened to include the scenario's price
    [USD/GPU-h]."""
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 1001:
        raise ValueError(f"price_grid: n must be a whole number from 2 to 1,001, got {n!r}")
    price = result.scenario.pricing.usd_per_gpu_hour
    breakeven = _kpi(result, "breakeven_usd_per_gpu_hour")
    centre = breakeven if _finite(breakeven) and breakeven > 0 else price
    lo = 0.5 * min(centre, price) if price > 0 else 0.5 * centre
    hi = 1.5 * max(centre, price)
    if not hi > lo:
        lo, hi = 0.0, 1.0
    return np.linspace(lo, hi, n)


# --- figures --------------------------------------------------------------------------------------
INK, LIGHT_INK = "#222", "#fff"


def _on_dark(hex_color: str) -> bool:
    """Whether text on ``hex_color`` reads better in white (its relative luminance is low)."""
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5


def _price_line(value: float, text: str, *, color: str, dash: bool, above: float) -> list[Spec]:
    """A 2 px line up the plot at ``value``, ``text`` centred over it, ``above`` px above the plot (no line crosses
    it)."""
    layers = rule_x(value, color=color, dash=dash, width=2, text=text)
    layers[1]["mark"].update(align="center", baseline="bottom", dx=0, dy=-above)
    return layers


def tco_figure(result: Result) -> Spec:
    """TCO per sold GPU-hour stacked by component, against the price path: the price a GPU-hour sells for at go-live
    (dashed) and on average over the life (solid), levelised as TCO is (so the gap between TCO and the average is the
    margin, the subtitle) [USD/GPU-h]."""
    tco = result.tco_breakdown_usd_per_gpu_hour
    total = _kpi(result, "tco_usd_per_gpu_hour")
    go_live = result.sold_usd_per_gpu_hour_at_go_live
    lifetime = result.sold_usd_per_gpu_hour_lifetime
    span = max(v for v in (total, go_live, lifetime, 0.01) if _finite(v))
    segments, up, down = [], 0.0, 0.0  # stacked as Vega stacks: positives up from zero, negatives down
    for cat, value in tco.items():
        v = value if _finite(value) else 0.0
        start = up if v >= 0 else down
        end = start + v
        up, down = (end, down) if v >= 0 else (up, end)
        segments.append(
            {
                "component": cat,
                "usd": value,
                "x0": start,
                "x1": end,
                "mid": (start + end) / 2,
                "label": f"{cat}\n{usd_exact(value, 2)}" if _finite(value) and value > 0.07 * span else "",
                "dark": _on_dark(TCO_COLORS.get(cat, PALETTE["oem"])),
            }
        )
    names = list(tco)
    colors = color("component", names, [TCO_COLORS.get(c, PALETTE["oem"]) for c in names])
    row = n("row", None, axis={"labelAngle": 0}, scale={"paddingOuter": 0.2})
    tips = [tip("component", "component", kind="nominal"), tip("usd", "USD/GPU-h", "$.3f")]
    bars = {
        "data": data([{**s, "row": "TCO"} for s in segments]),
        "mark": {"type": "bar"},
        "encoding": {
            "y": row,
            "x": q("x0", "USD per sold GPU-hour (levelised at the hurdle rate)", "$.2f"),
            "x2": {"field": "x1"},
            "color": colors,
            "tooltip": tips,
        },
    }
    labels = {
        "data": data([{**s, "row": "TCO"} for s in segments if s["label"]]),
        "mark": {"type": "text", "lineBreak": "\n", "align": "center", "baseline": "middle"},
        "encoding": {
            "y": row,
            "x": {"field": "mid", "type": "quantitative"},
            "text": {"field": "label"},
            "color": {"condition": {"test": "datum.dark", "value": LIGHT_INK}, "value": INK},
            "tooltip": tips,
        },
    }
    marks = [
        ("sold at go-live", go_live, PALETTE["accent"], True),
        ("sold on average", lifetime, "#264653", False),
    ]
    lines = [
        layer
        for i, (name, value, hue, dash) in enumerate(marks)
        if _finite(value)
        for layer in _price_line(value, f"{name} {usd_exact(value, 2)}", color=hue, dash=dash, above=4 + 17 * i)
    ]
    title = "TCO per sold GPU-hour" + (f": {usd_exact(total, 2)}" if _finite(total) else ": n/a")
    subtitle = None
    if _finite(total) and _finite(lifetime) and lifetime > 0:
        margin = 1 - total / lifetime
        subtitle = f"margin on the average sold price {'−' if margin < 0 else ''}{abs(margin):.0%}"
    return chart(bars, labels, *lines, title=title, subtitle=subtitle, height=320)


def _months(x: np.ndarray, half: float = 0.45) -> tuple[np.ndarray, np.ndarray]:
    """The left and right edges of a bar ``2 · half`` months wide centred on each month ``x``."""
    return x - half, x + half


def cash_flow_figure(result: Result) -> Spec:
    """Monthly project free cash flow (bars, green in, red out), cumulative project and equity cash (lines), go-live
    and payback marked [USD]."""
    c = result.ops.cash
    months = np.arange(result.ops.dates.months)
    flow = c.project_fcf[0]
    cum = np.cumsum(flow)
    cum_equity = np.cumsum(c.equity_fcf[0])
    payback = _kpi(result, "payback_months")
    series = {
        "project cash flow (in)": POSITIVE,
        "project cash flow (out)": NEGATIVE,
        "cumulative project cash": "#264653",
        "cumulative equity cash": EQUITY,
        **({"payback": PALETTE["accent"]} if _finite(payback) else {}),
    }
    colors = color("series", list(series), list(series.values()))
    x_axis = q("month", MONTH_AXIS)
    usd_axis = q("usd", "USD", "$.3~s")
    left, right = _months(months)
    bars = {
        "data": {
            "values": rows(
                month=months,
                x0=left,
                x1=right,
                usd=flow,
                series=np.where(flow >= 0, "project cash flow (in)", "project cash flow (out)"),
            )
        },
        "mark": {"type": "bar"},
        "encoding": {
            "x": q("x0", MONTH_AXIS, scale={"domain": [-0.5, len(months) - 0.5], "nice": False}),
            "x2": {"field": "x1"},
            "y": usd_axis,
            "y2": {"datum": 0},
            "color": colors,
            "tooltip": [
                tip("month", "month", "d"),
                tip("series", "series", kind="nominal"),
                tip("usd", "USD", "$,.0f"),
            ],
        },
    }

    def line(values: np.ndarray, name: str, **mark: object) -> Spec:
        return {
            "data": {"values": rows(month=months, usd=values, series=[name] * len(months))},
            "mark": {"type": "line", "point": "transparent", **mark},
            "encoding": {
                "x": x_axis,
                "y": usd_axis,
                "color": colors,
                "tooltip": [
                    tip("month", "month", "d"),
                    tip("series", "series", kind="nominal"),
                    tip("usd", "USD", "$,.0f"),
                ],
            },
        }

    layers = [
        bars,
        line(cum, "cumulative project cash", strokeWidth=2.5),
        line(cum_equity, "cumulative equity cash", strokeWidth=1.5, strokeDash=DOT),
        *rule_y(0, color="#888"),
        *rule_x(result.ops.dates.go_live_month, color="#888", text="go-live", dy=3, dash=DOT),
    ]
    if _finite(payback):
        layers += rule_x(payback, color=PALETTE["accent"], dash=True, width=2)
        layers.append(
            {
                "data": data([{"month": payback, "usd": 0.0, "series": "payback"}]),
                "mark": {"type": "point", "shape": "diamond", "filled": True, "size": 150, "opacity": 1},
                "encoding": {
                    "x": x_axis,
                    "y": usd_axis,
                    "color": colors,
                    "tooltip": [tip("month", "payback at month", ".1f")],
                },
            }
        )
        late = payback > 0.7 * len(months)
        layers.append(
            {
                "data": {"values": [{}]},
                "mark": {
                    "type": "text",
                    "align": "right" if late else "left",
                    "dx": -4 if late else 4,
                    "color": PALETTE["accent"],
                    "fontWeight": "bold",
                },
                "encoding": {
                    "x": {"datum": clean(payback)},
                    "y": {"value": {"expr": "height * 0.45"}},
                    "text": {"value": f"payback: month {payback:.1f}"},
                },
            }
        )
    else:
        layers.append(
            {
                "data": {"values": [{}]},
                "mark": {"type": "text", "align": "right", "baseline": "bottom", "dx": -4, "dy": -6, "color": NEGATIVE},
                "encoding": {
                    "x": {"value": "width"},
                    "y": {"value": "height"},
                    "text": {"value": f"no payback within the {len(months)}-month horizon"},
                },
            }
        )
    return chart(*layers, title="Monthly project cash flow and cumulative cash")


def irr_vs_price_figure(result: Result, prices: np.ndarray | None = None) -> Spec:
    """Project and equity IRR against the headline price, the hurdle, break-even and the current price marked; the
    tooltip gives NPV and payback at each price [fraction]."""
    grid = price_grid(result) if prices is None else np.asarray(prices, dtype=float)
    curve = result.returns_vs_price(grid)
    p = curve["usd_per_gpu_hour"]
    hurdle = result.scenario.financing.hurdle_rate
    breakeven = _kpi(result, "breakeven_usd_per_gpu_hour")
    price = result.scenario.pricing.usd_per_gpu_hour
    curves = (("project_irr", "project IRR", RESERVED), ("equity_irr", "equity IRR", EQUITY))
    series = {name: hue for _, name, hue in curves}
    if _finite(breakeven):
        series["break-even (NPV = 0)"] = "#264653"
    colors = color("series", list(series), list(series.values()))
    x_axis = q(
        "usd_per_gpu_hour", "headline price at go-live [USD per GPU-hour]", "$.2f", scale={"zero": False, "nice": False}
    )
    y_axis = q("irr", "IRR per year", ".0%")
    values = [
        row
        for key, name, _ in curves
        for row in rows(
            usd_per_gpu_hour=p,
            irr=curve[key],
            npv_musd=curve["npv_usd"] / 1e6,
            payback=curve["payback_months"],
            series=[name] * len(p),
        )
    ]
    lines = {
        "data": {"values": values},
        "mark": {"type": "line", "strokeWidth": 2.5, "point": "transparent"},
        "encoding": {
            "x": x_axis,
            "y": y_axis,
            "color": colors,
            "tooltip": [
                tip("series", "series", kind="nominal"),
                tip("usd_per_gpu_hour", "USD/GPU-h", "$.2f"),
                tip("irr", "IRR", ".1%"),
                tip("npv_musd", "NPV [USD M]", "$,.2f"),
                tip("payback", "payback month", ".1f"),
            ],
        },
    }
    layers = [lines, *rule_y(hurdle, color="#888", text=f"hurdle {hurdle:.0%}", below=True, dash=DOT)]
    if _finite(breakeven):
        layers += rule_x(breakeven, color="#264653", dash=True, width=2, text=f"break-even {usd_exact(breakeven, 2)}")
        layers.append(
            {
                "data": data([{"usd_per_gpu_hour": breakeven, "irr": hurdle, "series": "break-even (NPV = 0)"}]),
                "mark": {"type": "point", "shape": "diamond", "filled": True, "size": 130, "opacity": 1},
                "encoding": {
                    "x": x_axis,
                    "y": y_axis,
                    "color": colors,
                    "tooltip": [tip("usd_per_gpu_hour", "break-even [USD/GPU-h]", "$.2f")],
                },
            }
        )
    layers += rule_x(price, color=PALETTE["accent"], width=2, text=f"your price {usd_exact(price, 2)}", dy=22, dash=DOT)
    at_price = [
        {"usd_per_gpu_hour": price, "irr": value, "series": name, "what": f"{name} at your price"}
        for key, name, _ in curves
        if _finite(value := _kpi(result, key))
    ]
    if at_price:
        layers.append(
            {
                "data": data(at_price),
                "mark": {"type": "point", "filled": True, "size": 80, "opacity": 1},
                "encoding": {
                    "x": x_axis,
                    "y": y_axis,
                    "color": colors,
                    "tooltip": [tip("what", "at", kind="nominal"), tip("irr", "IRR", ".1%")],
                },
            }
        )
    return chart(*layers, title="IRR against headline price (all else equal)")


DSCR_CLASSES = ("DSCR below covenant", "DSCR below target", "DSCR at or above target")
"""The DSCR bars' colour classes, coloured NEGATIVE, WARN, POSITIVE."""


def debt_figure(result: Result) -> Spec:
    """Debt balance by month (top, with the sale proceeds swept into the loan and the repayment window) and the
    lender's cover per 12-month period of operation (bottom): DSCR bars and the LLCR at each period's start, against
    the covenant.

    DSCR bars are red below the covenant, amber below the target and green at or above it (the legend says which);
    the LLCR a line of diamonds; dotted lines at 1.0× and the covenant, a dashed line at the target.
    """
    d = result.ops.cash.debt
    fin = result.scenario.financing
    months = np.arange(result.ops.dates.months)
    x_shared = q("month", None, scale={"domain": [-0.5, len(months) - 0.5], "nice": False})
    top: list[Spec] = []
    end = len(months) - 0.5  # the window cut at the horizon, as the plot is
    window = (min(float(d.repay_start) - 0.5, end), min(float(d.maturity) - 0.5, end))
    if d.draws.any() and window[1] > window[0]:
        top += band_x(*window, color="#b0b7c3", opacity=0.15, text="repayment window")
    top.append(
        {
            "data": {"values": rows(month=months, usd=d.balance[0])},
            "mark": {
                "type": "area",
                "color": RESERVED,
                "fillOpacity": 0.35,
                "line": {"color": RESERVED},
                "point": "transparent",
            },
            "encoding": {
                "x": {**x_shared, "axis": {"labels": False, "ticks": False, "title": None}},
                "y": q("usd", "USD", "$.3~s"),
                "tooltip": [tip("month", "month", "d"), tip("usd", "balance [USD]", "$,.0f")],
            },
        }
    )
    swept = np.flatnonzero(d.swept[0] > 0)
    if swept.size:
        left, right = _months(months[swept])
        top.append(
            {
                "data": {"values": rows(month=months[swept], x0=left, x1=right, usd=d.swept[0, swept])},
                "mark": {"type": "bar", "color": WARN},
                "encoding": {
                    "x": {"field": "x0", "type": "quantitative"},
                    "x2": {"field": "x1"},
                    "y": {"field": "usd", "type": "quantitative"},
                    "y2": {"datum": 0},
                    "tooltip": [
                        tip("month", "month", "d"),
                        tip("usd", "sale proceeds repaying the loan [USD]", "$,.0f"),
                    ],
                },
            }
        )
    table = result.dscr_by_year()
    starts, dscr = table["start_month"], table["dscr"]
    llcr = result.llcr_by_year()["llcr"]
    shown = np.isfinite(dscr)
    bottom: list[Spec] = []
    x_bottom = {**x_shared, "title": MONTH_AXIS}
    if shown.any():
        period_end = np.minimum(starts + 12, len(months))
        centre, half = (starts + period_end) / 2 - 0.5, (period_end - starts) * 0.45
        classes = np.where(
            dscr < fin.covenant_dscr,
            DSCR_CLASSES[0],
            np.where(dscr < fin.target_dscr, DSCR_CLASSES[1], DSCR_CLASSES[2]),
        )
        values = rows(
            x0=centre - half,
            x1=centre + half,
            mid=centre,
            dscr=dscr,
            cover=classes,
            months=[f"{a}–{b}" for a, b in zip(starts, period_end - 1, strict=True)],
            label=[f"{v:.2f}×" if math.isfinite(v) else "" for v in dscr],
        )
        values = [v for v in values if v["dscr"] is not None]
        y_cover = q("dscr", "cover [×]", ".2f")
        tips = [tip("months", "months", kind="nominal"), tip("dscr", "DSCR [×]", ".2f")]
        cover = np.concatenate([dscr[shown], llcr[np.isfinite(llcr)]])
        high = max(float(cover.max()), fin.target_dscr, fin.covenant_dscr)
        low = min(float(cover.min()), 0.0)
        y_cover["scale"] = {"domain": [clean(low * 1.25), clean(high * 1.25)], "nice": False}
        bottom.append(
            {
                "data": {"values": values},
                "mark": {"type": "bar"},
                "encoding": {
                    "x": {**x_bottom, "field": "x0"},
                    "x2": {"field": "x1"},
                    "y": y_cover,
                    "y2": {"datum": 0},
                    "color": color("cover", DSCR_CLASSES, (NEGATIVE, WARN, POSITIVE)),
                    "tooltip": tips,
                },
            }
        )
        for test, baseline, dy in (("datum.dscr >= 0", "bottom", -2), ("datum.dscr < 0", "top", 2)):
            bottom.append(
                {
                    "data": {"values": values},
                    "transform": [{"filter": test}],
                    "mark": {"type": "text", "baseline": baseline, "dy": dy, "color": INK},
                    "encoding": {
                        "x": {"field": "mid", "type": "quantitative"},
                        "y": {"field": "dscr", "type": "quantitative"},
                        "text": {"field": "label"},
                        "tooltip": tips,
                    },
                }
            )
        bottom.append(
            {
                "data": {"values": rows(month=starts - 0.5, start=starts, llcr=llcr)},
                "mark": {
                    "type": "line",
                    "color": EQUITY,
                    "point": {"shape": "diamond", "size": 90, "filled": True, "color": EQUITY},
                },
                "encoding": {
                    "x": {"field": "month", "type": "quantitative"},
                    "y": {"field": "llcr", "type": "quantitative"},
                    "tooltip": [tip("start", "start of month", "d"), tip("llcr", "LLCR [×]", ".2f")],
                },
            }
        )
        bottom += rule_y(1.0, color="#888", dash=DOT)
        bottom += rule_y(
            fin.covenant_dscr, color=NEGATIVE, text=f"covenant {fin.covenant_dscr:.2f}×", below=True, dash=DOT
        )
        bottom += rule_y(fin.target_dscr, color="#888", dash=True, text=f"target {fin.target_dscr:.2f}×")
    else:
        bottom.append(
            {
                "data": {"values": rows(month=[len(months) / 2])},
                "mark": {"type": "text", "fontSize": 14, "color": INK},
                "encoding": {"x": x_bottom, "y": {"value": 60}, "text": {"value": "no debt service"}, "tooltip": None},
            }
        )
    return stack(
        chart(*top, title="Debt balance at month end", height=250),
        chart(*bottom, title="DSCR (bars) and LLCR (line) per 12 months of operation", height=200),
        title="Debt and cover",
    )


def margin_figure(result: Result, pnl: pd.DataFrame | None = None) -> Spec:
    """Gross and EBITDA margin per project year (lines, left axis), revenue bars behind them (right axis)
    [fraction, USD].

    ``pnl`` is the result's :func:`~neoplan.finance.statements.pnl_by_year` (computed when not given).
    """
    pnl = (pnl_by_year(result) if pnl is None else pnl).drop(index="Total")
    years = [str(y) for y in pnl.index]
    margins = (("gross_margin", "gross margin", POSITIVE), ("ebitda_margin", "EBITDA margin", RESERVED))
    colors = color("series", ["revenue", *(m[1] for m in margins)], ["#dde3ea", *(m[2] for m in margins)])
    x_axis = n("year", "project year", sort=years, axis={"labelAngle": 0})
    bars = {
        "data": {"values": rows(year=years, usd=pnl["revenue_usd"], series=["revenue"] * len(years))},
        "mark": {"type": "bar"},
        "encoding": {
            "x": x_axis,
            "y": q("usd", "revenue [USD]", "$.3~s", axis={"orient": "right", "grid": False}),
            "color": colors,
            "tooltip": [tip("year", "year", kind="nominal"), tip("usd", "revenue [USD]", "$,.0f")],
        },
    }
    values = [row for key, name, _ in margins for row in rows(year=years, margin=pnl[key], series=[name] * len(years))]
    y_margin = q("margin", "margin", ".0%", scale={"zero": True}, axis={"orient": "left"})
    encoding = {
        "x": x_axis,
        "y": y_margin,
        "color": colors,
        "tooltip": [
            tip("year", "year", kind="nominal"),
            tip("series", "series", kind="nominal"),
            tip("margin", "margin", ".1%"),
        ],
    }
    lines = {
        "data": {"values": values},
        "transform": [{"filter": "isValid(datum.margin)"}],
        "layer": [
            {
                "mark": {"type": "line", "strokeWidth": 2.5, "point": {"filled": True, "size": 60}},
                "encoding": encoding,
            },
            {
                "mark": {"type": "text", "baseline": "bottom", "dy": -7},
                "encoding": {**encoding, "text": {"field": "margin", "type": "quantitative", "format": ".0%"}},
            },
        ],
    }
    return chart(
        bars,
        lines,
        title="Margins by project year (Y1 = months 0–11, includes construction)",
        resolve={"scale": {"y": "independent"}},
    )


def revenue_mix_figure(result: Result) -> Spec:
    """Monthly revenue by contract type (top, stacked, with the revenue net of SLA credits) and the price each pays
    (bottom, against the headline), from go-live on [USD]."""
    rev = result.ops.revenue
    months = np.arange(result.ops.dates.months)
    earning = months + 1 > result.ops.dates.go_live_month
    series = {
        "committed (take-or-pay, reserved)": RESERVED,
        "on-demand": ON_DEMAND,
        "spot (contracts, idle hours)": SPOT,
        "net of SLA credits": "#111",
        "committed price": RESERVED,
        "on-demand price": ON_DEMAND,
        "spot price": SPOT,
    }
    colors = color("series", list(series), list(series.values()), legend={"columns": 3})
    x_axis = q("month", None, scale={"domain": [0, len(months) - 1], "nice": False})
    usd_tips = [tip("month", "month", "d"), tip("series", "series", kind="nominal"), tip("usd", "USD", "$,.0f")]
    kinds = (
        ("committed (take-or-pay, reserved)", rev.committed_usd),
        ("on-demand", rev.on_demand_usd),
        ("spot (contracts, idle hours)", rev.spot_usd),
    )
    stacked = [
        row
        for i, (name, values) in enumerate(kinds)
        for row in rows(month=months, usd=values, series=[name] * len(months), order=[i] * len(months))
    ]
    top = [
        {
            "data": {"values": stacked},
            "mark": {"type": "area", "line": {"strokeWidth": 0.5}, "point": "transparent"},
            "encoding": {
                "x": {**x_axis, "axis": {"labels": False, "ticks": False, "title": None}},
                "y": q("usd", "USD", "$.3~s", stack="zero"),
                "order": {"field": "order", "type": "quantitative"},
                "color": colors,
                "tooltip": usd_tips,
            },
        },
        {
            "data": {"values": rows(month=months, usd=rev.revenue_usd, series=["net of SLA credits"] * len(months))},
            "mark": {"type": "line", "strokeDash": DOT, "point": "transparent"},
            "encoding": {
                "x": x_axis,
                "y": {"field": "usd", "type": "quantitative"},
                "color": colors,
                "tooltip": [tip("month", "month", "d"), tip("usd", "revenue net of SLA credits [USD]", "$,.0f")],
            },
        },
    ]
    y_price = q("usd_per_gpu_hour", "USD/GPU-h", "$.2f", scale={"zero": True})

    def price(values: np.ndarray, hours: np.ndarray, name: str, interpolate: str) -> Spec:
        shown = np.where(earning & (hours > 0), values, np.nan)  # a price only where hours of its kind sell
        return {
            "data": {"values": rows(month=months, usd_per_gpu_hour=shown, series=[name] * len(months))},
            "transform": [{"filter": "isValid(datum.usd_per_gpu_hour)"}],
            "mark": {"type": "line", "strokeWidth": 2.5, "interpolate": interpolate, "point": "transparent"},
            "encoding": {
                "x": {**x_axis, "title": MONTH_AXIS},
                "y": y_price,
                "color": colors,
                "tooltip": [
                    tip("month", "month", "d"),
                    tip("series", "series", kind="nominal"),
                    tip("usd_per_gpu_hour", "USD/GPU-h", "$.3f"),
                ],
            },
        }

    bottom = [
        price(rev.reserved_usd_per_gpu_hour, rev.committed_gpu_hours, "committed price", "step-after"),
        price(rev.on_demand_usd_per_gpu_hour, rev.on_demand_gpu_hours, "on-demand price", "linear"),
        price(rev.spot_usd_per_gpu_hour, rev.spot_gpu_hours, "spot price", "linear"),
        *rule_y(result.scenario.pricing.usd_per_gpu_hour, color=PALETTE["accent"], text="headline", dash=DOT),
    ]
    return stack(
        chart(*top, title="Revenue per month", height=270),
        chart(*bottom, title="Price per GPU-hour", height=180),
        title="Revenue by contract type and the price each pays",
    )


def timeline_figure(result: Result) -> Spec:
    """Project phases on the month axis: lead time, burn-in, install, operation, depreciation, debt; go-live
    dotted."""
    d = result.ops.dates
    t = result.scenario.timeline
    debt = result.ops.cash.debt
    phases: list[tuple[str, float, float, str]] = [
        ("OEM lead time", 0.0, d.delivery_month, "#b0b7c3"),
        ("integration burn-in", d.delivery_month, d.install_start_month, WARN),
        ("install + on-site burn-in", d.install_start_month, d.go_live_month, "#f4a261"),
        ("operation (earning)", d.go_live_month, float(d.months), POSITIVE),
        ("depreciation", d.go_live_month, min(d.go_live_month + t.useful_life_months, float(d.months)), "#8ab17d"),
    ]
    if debt.draws.any():
        phases += [
            ("debt: drawdown + grace", 0.0, float(debt.repay_start), "#a3b1c6"),
            ("debt: repayment", float(debt.repay_start), float(debt.maturity), RESERVED),
        ]
    names = [p[0] for p in phases]
    bars = {
        "data": data([{"phase": name, "start": start, "end": max(end, start)} for name, start, end, _ in phases]),
        "mark": {"type": "bar"},
        "encoding": {
            "y": n("phase", None, sort=names, scale={"paddingInner": 0.35}),
            "x": q("start", MONTH_AXIS, scale={"domain": [0, d.months], "nice": False}),
            "x2": {"field": "end"},
            "color": color("phase", names, [p[3] for p in phases], legend=None),
            "tooltip": [
                tip("phase", "phase", kind="nominal"),
                tip("start", "from month", ".1f"),
                tip("end", "to month", ".1f"),
            ],
        },
    }
    return chart(bars, *rule_x(d.go_live_month, color="#888", dash=DOT), title="Project timeline", height=280)
