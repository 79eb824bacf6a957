"""Figures for the Overview, Financing, Pricing & revenue and Results pages (plotly, :mod:`.base`): they only draw.

Each figure is drawn from a :class:`~neoplan.model.Result` (its arrays, KPIs and ``returns_vs_price``) and the
statements of :mod:`neoplan.finance.statements` (P&L by project year, debt schedule); no roll-ups or model logic here.
Months count from the purchase order (month 0); project year 1 = months 0–11, so construction falls in year 1
(:mod:`neoplan.finance.statements` says what "year" means). Money in USD, rates as fractions; hover text in the app's
formats (:mod:`neoplan.formats`).

The statements and their labels used to live here; they are re-exported for old imports.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go

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
from ..formats import months as months_text
from ..formats import pct, ratio, usd, usd_exact
from .base import LEGEND_BELOW, PALETTE, STYLE, Draft, hline, hover, money_axis, two_rows, vline, vrect

if TYPE_CHECKING:
    from ..model import Result

__all__ = [
    "DEBT_LABELS",
    "DSCR_CLASSES",
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
DSCR_CLASSES = ("DSCR below covenant", "DSCR below target", "DSCR at or above target")
"""The DSCR bars' colour classes (one legend entry each), coloured NEGATIVE, WARN, POSITIVE."""


def _finite(value: float) -> bool:
    return math.isfinite(value)


def _kpi(result: Result, key: str) -> float:
    """A KPI as a float; nan where undefined (``None`` or missing)."""
    value = result.kpis.get(key)
    return math.nan if value is None else float(value)


def _layout(**kwargs: object) -> dict[str, object]:
    """STYLE with a legend under the plot and per-figure overrides (height, margins) taking precedence."""
    return {**STYLE, "legend": LEGEND_BELOW, **kwargs}


def _per_gpu_hour(value: float, decimals: int = 2) -> str:
    """``$2.13 /GPU-h`` (``−$0.12 /GPU-h``)."""
    return f"{usd_exact(value, decimals)} /GPU-h"


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
def tco_figure(result: Result) -> go.Figure:
    """TCO per sold GPU-hour stacked by component, against the price path: the price a GPU-hour sells for at go-live
    (dashed) and on average over the life (solid), levelised as TCO is (so the gap between TCO and the average is the
    margin, the subtitle) [USD/GPU-h]."""
    tco = result.tco_breakdown_usd_per_gpu_hour
    total = _kpi(result, "tco_usd_per_gpu_hour")
    go_live = result.sold_usd_per_gpu_hour_at_go_live
    lifetime = result.sold_usd_per_gpu_hour_lifetime
    span = max(v for v in (total, go_live, lifetime, 0.01) if _finite(v))
    fig = Draft()
    for cat, value in tco.items():
        share = f" ({pct(value / total)} of TCO)" if _finite(total) and total > 0 else ""
        fig.add(
            "bar",
            y=["TCO"],
            x=[value],
            name=cat,
            orientation="h",
            marker_color=TCO_COLORS.get(cat, PALETTE["oem"]),
            text=[f"{cat}<br>{usd_exact(value, 2)}" if _finite(value) and value > 0.07 * span else ""],
            textposition="inside",
            textangle=0,
            insidetextanchor="middle",
            **hover([f"{cat}: {_per_gpu_hour(value, 3)}{share}"]),
        )
    marks = [
        ("sold at go-live", go_live, PALETTE["accent"], "dash"),
        ("sold on average", lifetime, "#264653", "solid"),
    ]
    for i, (name, value, colour, dash) in enumerate(marks):
        if _finite(value):
            vline(fig, value, color=colour, dash=dash, width=2)
            fig.annotate(
                x=value,
                y=1.0,
                yref="paper",
                yanchor="bottom",
                yshift=4 + 18 * i,
                text=f"{name} {usd_exact(value, 2)}",
                showarrow=False,
                font={"color": colour},
                xanchor="center",
            )
    title = "TCO per sold GPU-hour" + (f": {usd_exact(total, 2)}" if _finite(total) else ": n/a")
    subtitle = ""
    if _finite(total) and _finite(lifetime) and lifetime > 0:
        margin = 1 - total / lifetime
        subtitle = f"margin on the average sold price {'−' if margin < 0 else ''}{abs(margin):.0%}"
    fig.update(
        **_layout(
            height=340,
            margin={"l": 10, "r": 10, "t": 120, "b": 10},
            legend={**LEGEND_BELOW, "y": -0.35, "traceorder": "normal"},
        ),
        barmode="stack",
        title={"text": title, "subtitle": {"text": subtitle}},
        xaxis={
            "title": {"text": "USD per sold GPU-hour (levelised at the hurdle rate)"},
            "tickformat": "$.2f",
            "rangemode": "tozero",
        },
    )
    return fig.figure()


def cash_flow_figure(result: Result) -> go.Figure:
    """Monthly project free cash flow (bars, green in, red out), cumulative project and equity cash (lines), go-live
    and payback marked [USD]."""
    c = result.ops.cash
    months = np.arange(result.ops.dates.months)
    flow = c.project_fcf[0]
    cum = np.cumsum(flow)
    cum_equity = np.cumsum(c.equity_fcf[0])
    fig = Draft()
    for name, where, colour in (
        ("project cash flow (in)", flow >= 0, POSITIVE),
        ("project cash flow (out)", flow < 0, NEGATIVE),
    ):
        fig.add(
            "bar",
            x=months[where],
            y=flow[where],
            name=name,
            marker_color=colour,
            **hover(f"month {m}<br>{name}: {usd_exact(v)}" for m, v in zip(months[where], flow[where], strict=True)),
        )
    for values, name, line in (
        (cum, "cumulative project cash", {"color": "#264653", "width": 2.5}),
        (cum_equity, "cumulative equity cash", {"color": EQUITY, "width": 1.5, "dash": "dot"}),
    ):
        fig.add(
            "scatter",
            x=months,
            y=values,
            mode="lines",
            name=name,
            line=line,
            **hover(f"month {m}<br>{name}: {usd_exact(v)}" for m, v in zip(months, values, strict=True)),
        )
    hline(fig, 0, color="#888", width=1)
    go_live = result.ops.dates.go_live_month
    vline(fig, go_live, color="#888", dash="dot", width=1, text="go-live", beside=True)
    payback = _kpi(result, "payback_months")
    if _finite(payback):
        vline(fig, payback, color=PALETTE["accent"], dash="dash", width=2)
        fig.add(
            "scatter",
            x=[payback],
            y=[0.0],
            mode="markers",
            name="payback",
            marker={"color": PALETTE["accent"], "size": 12, "symbol": "diamond"},
            **hover([f"payback at month {payback:.1f}"]),
        )
        fig.annotate(
            x=payback,
            y=0.55,
            yref="paper",
            text=f" payback: month {payback:.1f} ",
            showarrow=False,
            xanchor="right" if payback > 0.7 * len(months) else "left",
            font={"color": PALETTE["accent"]},
            bgcolor="rgba(255,255,255,0.8)",
        )
    else:
        fig.annotate(
            x=0.99,
            y=0.05,
            xref="paper",
            yref="paper",
            text=f"no payback within the {len(months)}-month horizon",
            showarrow=False,
            xanchor="right",
            font={"color": NEGATIVE},
        )
    fig.update(
        **_layout(),
        title="Monthly project cash flow and cumulative cash",
        xaxis={"title": {"text": MONTH_AXIS}, "range": [-0.5, len(months) - 0.5]},
        yaxis=money_axis("USD", flow, cum, cum_equity),
        bargap=0.1,
        barmode="relative",
    )
    return fig.figure()


def irr_vs_price_figure(result: Result, prices: np.ndarray | None = None) -> go.Figure:
    """Project and equity IRR against the headline price, the hurdle, break-even and the current price marked; the
    hover gives NPV and payback at each price [fraction]."""
    grid = price_grid(result) if prices is None else np.asarray(prices, dtype=float)
    curve = result.returns_vs_price(grid)
    p = curve["usd_per_gpu_hour"]
    fig = Draft()
    curves = (("project_irr", "project IRR", RESERVED), ("equity_irr", "equity IRR", EQUITY))
    for key, name, colour in curves:
        fig.add(
            "scatter",
            x=p,
            y=curve[key],
            mode="lines",
            name=name,
            line={"color": colour, "width": 2.5},
            **hover(
                f"{_per_gpu_hour(price)}<br>{name} {pct(irr)}<br>project NPV {usd(npv)}<br>payback "
                + (f"month {pay:.1f}" if math.isfinite(pay) else "none in the horizon")
                for price, irr, npv, pay in zip(p, curve[key], curve["npv_usd"], curve["payback_months"], strict=True)
            ),
        )
    hurdle = result.scenario.financing.hurdle_rate
    hline(fig, hurdle, color="#888", dash="dot", text=f"hurdle {pct(hurdle, 0)}", below=True)
    breakeven = _kpi(result, "breakeven_usd_per_gpu_hour")
    if _finite(breakeven):
        vline(fig, breakeven, color="#264653", dash="dash", width=2)
        fig.add(
            "scatter",
            x=[breakeven],
            y=[hurdle],
            mode="markers",
            name="break-even (NPV = 0)",
            marker={"color": "#264653", "size": 11, "symbol": "diamond"},
            **hover([f"break-even {_per_gpu_hour(breakeven)}: project NPV 0 at the {pct(hurdle, 0)} hurdle"]),
        )
        fig.annotate(
            x=breakeven,
            y=1.0,
            yref="paper",
            text=f"break-even {usd_exact(breakeven, 2)}",
            showarrow=False,
            xanchor="left",
            yanchor="top",
            font={"color": "#264653"},
        )
    price = result.scenario.pricing.usd_per_gpu_hour
    vline(fig, price, color=PALETTE["accent"], dash="dot", width=2)
    fig.annotate(
        x=price,
        y=0.9,
        yref="paper",
        text=f"your price {usd_exact(price, 2)}",
        showarrow=False,
        xanchor="left",
        font={"color": PALETTE["accent"]},
    )
    for key, name, colour in curves:
        value = _kpi(result, key)
        if _finite(value):
            fig.add(
                "scatter",
                x=[price],
                y=[value],
                mode="markers",
                showlegend=False,
                name=f"{name} at your price",
                marker={"color": colour, "size": 9},
                **hover([f"{name} at your price {_per_gpu_hour(price)}: {pct(value)}"]),
            )
    fig.update(
        **_layout(),
        title="IRR against headline price (all else equal)",
        xaxis={"title": {"text": "headline price at go-live [USD per GPU-hour]"}, "tickformat": "$.2f"},
        yaxis={"title": {"text": "IRR per year [%]"}, "tickformat": ".0%"},
    )
    return fig.figure()


def _balance(fig: Draft, result: Result) -> None:
    """The debt figure's top plot: the balance, the repayment window and the sale proceeds swept into the loan."""
    d = result.ops.cash.debt
    months = np.arange(result.ops.dates.months)
    fig.add(
        "scatter",
        x=months,
        y=d.balance[0],
        mode="lines",
        fill="tozeroy",
        name="debt balance",
        line={"color": RESERVED},
        **hover(f"month {m}<br>debt balance {usd_exact(v)}" for m, v in zip(months, d.balance[0], strict=True)),
    )
    end = len(months) - 0.5  # the window cut at the horizon, as the plot is
    window = (min(float(d.repay_start) - 0.5, end), min(float(d.maturity) - 0.5, end))
    if d.draws.any() and window[1] > window[0]:
        vrect(fig, *window, fill="#b0b7c3", opacity=0.15, text="repayment window")
    swept = np.flatnonzero(d.swept[0] > 0)
    if swept.size:
        fig.add(
            "bar",
            x=months[swept],
            y=d.swept[0, swept],
            name="sale proceeds repaying the loan",
            marker_color=WARN,
            **hover(
                f"month {m}<br>{usd_exact(v)} of sale proceeds repay the loan"
                for m, v in zip(months[swept], d.swept[0, swept], strict=True)
            ),
        )


def _cover(fig: Draft, result: Result) -> None:
    """The debt figure's bottom plot: DSCR bars per 12 months of operation (coloured against the covenant and the
    target), the LLCR line, and lines at 1.0×, the covenant and the target."""
    fin = result.scenario.financing
    months = result.ops.dates.months
    table = result.dscr_by_year()
    starts, dscr = table["start_month"], table["dscr"]
    llcr = result.llcr_by_year()["llcr"]
    shown = np.isfinite(dscr)
    if not shown.any():
        fig.annotate(
            x=0.5, y=0.2, xref="paper", yref="paper", text="no debt service", showarrow=False, font={"size": 14}
        )
        return
    period_end = np.minimum(starts + 12, months)
    classes = np.where(dscr < fin.covenant_dscr, 0, np.where(dscr < fin.target_dscr, 1, 2))
    for k, (name, colour) in enumerate(zip(DSCR_CLASSES, (NEGATIVE, WARN, POSITIVE), strict=True)):
        pick = shown & (classes == k)
        if not pick.any():
            continue
        fig.add(
            "bar",
            x=((starts + period_end) / 2 - 0.5)[pick],
            y=dscr[pick],
            width=((period_end - starts) * 0.9)[pick],
            name=name,
            marker_color=colour,
            text=[ratio(v) for v in dscr[pick]],
            textposition="outside",
            cliponaxis=False,
            xaxis="x2",
            yaxis="y2",
            **hover(
                f"months {a}–{b - 1}<br>DSCR {ratio(v)} (covenant {ratio(fin.covenant_dscr)})"
                for a, b, v in zip(starts[pick], period_end[pick], dscr[pick], strict=True)
            ),
        )
    fig.add(
        "scatter",
        x=starts - 0.5,
        y=llcr,
        mode="lines+markers",
        name="LLCR",
        line={"color": EQUITY},
        marker={"symbol": "diamond", "size": 9},
        xaxis="x2",
        yaxis="y2",
        **hover(f"start of month {s}<br>LLCR {ratio(v)}" for s, v in zip(starts, llcr, strict=True)),
    )
    hline(fig, 1.0, color="#888", dash="dot", axes="2")
    covenant = f"covenant {ratio(fin.covenant_dscr)}"
    hline(fig, fin.covenant_dscr, color=NEGATIVE, dash="dot", axes="2", text=covenant, below=True)
    hline(fig, fin.target_dscr, color="#888", dash="dash", axes="2", text=f"target {ratio(fin.target_dscr)}")
    cover = np.concatenate([dscr[shown], llcr[np.isfinite(llcr)]])
    top = max(float(cover.max()), fin.target_dscr, fin.covenant_dscr)
    bottom = min(float(cover.min()), 0.0)
    fig.update(yaxis2={"range": [bottom * 1.25, top * 1.25]})


def debt_figure(result: Result) -> go.Figure:
    """Debt balance by month (top, with the sale proceeds swept into the loan and the repayment window) and the
    lender's cover per 12-month period of operation (bottom): DSCR bars and the LLCR at each period's start, against
    the covenant.

    DSCR bars are red below the covenant, amber below the target and green at or above it (the legend says which);
    the LLCR a line of diamonds; dotted lines at 1.0× and the covenant, a dashed line at the target.
    """
    months = result.ops.dates.months
    fig = two_rows(0.55, ("Debt balance at month end", "DSCR (bars) and LLCR (line) per 12 months of operation"))
    _balance(fig, result)
    _cover(fig, result)
    fig.update(
        yaxis=money_axis("USD", result.ops.cash.debt.balance[0]),
        yaxis2={"title": {"text": "cover [×]"}},
        xaxis2={"title": {"text": MONTH_AXIS}, "range": [-0.5, months - 0.5]},
        xaxis={"range": [-0.5, months - 0.5]},
    )
    fig.update(**_layout(height=580), title="Debt and cover", bargap=0.1)
    return fig.figure()


def margin_figure(result: Result, pnl: pd.DataFrame | None = None) -> go.Figure:
    """Gross and EBITDA margin per project year (lines, left axis), revenue bars behind them (right axis)
    [fraction, USD].

    ``pnl`` is the result's :func:`~neoplan.finance.statements.pnl_by_year` (computed when not given).
    """
    pnl = (pnl_by_year(result) if pnl is None else pnl).drop(index="Total")
    years = [str(y) for y in pnl.index]
    fig = Draft()  # revenue on y (right), margins on y2 overlaying it: make_subplots(secondary_y) written out
    fig.add(
        "bar",
        x=years,
        y=pnl["revenue_usd"],
        name="revenue",
        marker_color="#dde3ea",
        **hover(f"{y}<br>revenue {usd_exact(v)}" for y, v in zip(years, pnl["revenue_usd"], strict=True)),
    )
    for key, name, colour in (("gross_margin", "gross margin", POSITIVE), ("ebitda_margin", "EBITDA margin", RESERVED)):
        fig.add(
            "scatter",
            x=years,
            y=pnl[key],
            mode="lines+markers+text",
            name=name,
            line={"color": colour, "width": 2.5},
            text=[pct(v, 0) if math.isfinite(v) else "" for v in pnl[key]],
            textposition="top center",
            yaxis="y2",
            **hover(f"{y}<br>{name} {pct(v)}" for y, v in zip(years, pnl[key], strict=True)),
        )
    # margins on the overlaying axis so the lines draw above the bars, but with their axis on the left
    fig.update(
        xaxis={"anchor": "y", "domain": [0.0, 0.94], "title": {"text": "project year"}},
        yaxis2={
            "anchor": "x",
            "overlaying": "y",
            "title": {"text": "margin [%]"},
            "tickformat": ".0%",
            "side": "left",
            "rangemode": "tozero",
        },
        yaxis=money_axis("revenue [USD]", pnl["revenue_usd"], side="right", showgrid=False, rangemode="tozero"),
    )
    fig.update(**_layout(), title="Margins by project year (Y1 = months 0–11, includes construction)")
    return fig.figure()


def revenue_mix_figure(result: Result) -> go.Figure:
    """Monthly revenue by contract type (top, stacked, with the revenue net of SLA credits) and the price each pays
    (bottom, against the headline), from go-live on [USD]."""
    rev = result.ops.revenue
    months = np.arange(result.ops.dates.months)
    earning = months + 1 > result.ops.dates.go_live_month
    kinds = (
        ("committed (take-or-pay, reserved)", rev.committed_usd, RESERVED),
        ("on-demand", rev.on_demand_usd, ON_DEMAND),
        ("spot (contracts, idle hours)", rev.spot_usd, SPOT),
    )
    fig = two_rows(0.6, ("Revenue per month", "Price per GPU-hour"))
    for name, y, colour in kinds:
        fig.add(
            "scatter",
            x=months,
            y=y,
            mode="lines",
            stackgroup="revenue",
            name=name,
            line={"color": colour, "width": 0.5},
            **hover(f"month {m}<br>{name}: {usd_exact(v)}" for m, v in zip(months, y, strict=True)),
        )
    fig.add(
        "scatter",
        x=months,
        y=rev.revenue_usd,
        mode="lines",
        name="net of SLA credits",
        line={"color": "#111", "dash": "dot"},
        **hover(
            f"month {m}<br>revenue net of SLA credits: {usd_exact(v)}"
            for m, v in zip(months, rev.revenue_usd, strict=True)
        ),
    )
    for y, hours, name, colour in (
        (rev.reserved_usd_per_gpu_hour, rev.committed_gpu_hours, "committed price", RESERVED),
        (rev.on_demand_usd_per_gpu_hour, rev.on_demand_gpu_hours, "on-demand price", ON_DEMAND),
        (rev.spot_usd_per_gpu_hour, rev.spot_gpu_hours, "spot price", SPOT),
    ):
        shown = np.where(earning & (hours > 0), y, np.nan)  # a price only where hours of its kind sell
        fig.add(
            "scatter",
            x=months,
            y=shown,
            mode="lines",
            name=name,
            line={"color": colour, "width": 2.5},
            line_shape="hv" if name.startswith("committed") else "linear",
            xaxis="x2",
            yaxis="y2",
            **hover(f"month {m}<br>{name}: {_per_gpu_hour(v, 3)}" for m, v in zip(months, shown, strict=True)),
        )
    hline(fig, result.scenario.pricing.usd_per_gpu_hour, color=PALETTE["accent"], dash="dot", axes="2", text="headline")
    fig.update(
        yaxis=money_axis("USD per month", rev.committed_usd + rev.on_demand_usd + rev.spot_usd),
        yaxis2={"title": {"text": "USD/GPU-h"}, "rangemode": "tozero", "tickformat": "$.2f"},
        xaxis2={"title": {"text": MONTH_AXIS}, "range": [0, len(months) - 1]},
    )
    fig.update(**_layout(height=580), title="Revenue by contract type and the price each pays")
    return fig.figure()


def timeline_figure(result: Result) -> go.Figure:
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
    fig = Draft()
    for name, start, end, colour in reversed(phases):  # plotly draws the first category at the bottom
        fig.add(
            "bar",
            y=[name],
            x=[max(end - start, 0.0)],
            base=[start],
            orientation="h",
            marker_color=colour,
            showlegend=False,
            name=name,
            **hover([f"{name}: month {start:.1f} → {end:.1f} ({months_text(max(end - start, 0.0))})"]),
        )
    vline(fig, d.go_live_month, color="#888", dash="dot", text="go-live", beside=True)
    fig.update(
        **_layout(height=300, margin={"l": 10, "r": 10, "t": 50, "b": 10}),
        title="Project timeline",
        xaxis={"title": {"text": MONTH_AXIS}, "range": [0, d.months]},
        bargap=0.35,
    )
    return fig.figure()
