"""Figures for the Financing, Pricing & revenue and Results pages: they only draw.

Each figure is drawn from a :class:`~neoplan.model.Result` (its arrays, KPIs and ``returns_vs_price``) and the
statements of :mod:`neoplan.statements` (P&L by project year, debt schedule); no roll-ups or model logic here.
Months count from the purchase order (month 0); project year 1 = months 0–11, so construction falls in year 1
(:mod:`neoplan.statements` says what "year" means). Money in USD, rates as fractions.

The statements and their labels used to live here; they are re-exported for old imports.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..formats import usd_exact
from ..statements import (  # re-exported: the statements lived here before neoplan.statements
    DEBT_LABELS,
    PNL_BOLD,
    PNL_LABELS,
    PNL_ROWS,
    debt_by_month,
    debt_by_year,
    pnl_by_year,
    year_labels,
)
from .base import PALETTE, STYLE, figure, hline, two_rows, vline, vrect

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
RESERVED, ON_DEMAND, EQUITY = "#264653", "#8ab17d", "#6d597a"


def _finite(value: float) -> bool:
    return math.isfinite(value)


def _kpi(result: Result, key: str) -> float:
    """A KPI as a float; nan where undefined (``None`` or missing)."""
    value = result.kpis.get(key)
    return math.nan if value is None else float(value)


def _layout(**kwargs: object) -> dict[str, object]:
    """STYLE with per-figure overrides (height, margins) taking precedence."""
    return {**STYLE, "legend": {"orientation": "h", "y": -0.18}, **kwargs}


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
    and on average over the life, levelised as TCO is (so the gap between TCO and the average is the margin)
    [USD/GPU-h]."""
    tco = result.tco_breakdown_usd_per_gpu_hour
    total = _kpi(result, "tco_usd_per_gpu_hour")
    go_live = result.sold_usd_per_gpu_hour_at_go_live
    lifetime = result.sold_usd_per_gpu_hour_lifetime
    span = max(v for v in (total, go_live, lifetime, 0.01) if _finite(v))
    fig = figure()
    for cat, value in tco.items():
        fig.add_bar(
            y=["TCO"],
            x=[value],
            name=cat,
            orientation="h",
            marker_color=TCO_COLORS.get(cat, PALETTE["oem"]),
            text=[f"{cat}<br>{usd_exact(value, 2)}" if _finite(value) and value > 0.07 * span else ""],
            textposition="inside",
            textangle=0,
            insidetextanchor="middle",
            hovertemplate=f"{cat}: $%{{x:.3f}} /GPU-h<extra></extra>",
        )
    marks = [
        ("sold at go-live", go_live, PALETTE["accent"], "dash"),
        ("sold on average", lifetime, "#264653", "solid"),
    ]
    for i, (name, value, color, dash) in enumerate(marks):
        if _finite(value):
            vline(fig, value, color=color, dash=dash, width=2)
            fig.add_annotation(
                x=value,
                y=1.0 + 0.16 * (i + 1),
                yref="paper",
                text=f"{name} {usd_exact(value, 2)}",
                showarrow=False,
                font={"color": color},
                xanchor="center",
            )
    title = "TCO per sold GPU-hour" + (f": {usd_exact(total, 2)}" if _finite(total) else ": n/a")
    if _finite(total) and _finite(lifetime) and lifetime > 0:
        margin = 1 - total / lifetime
        title += f"<br><sup>margin on the average sold price {'−' if margin < 0 else ''}{abs(margin):.0%}</sup>"
    fig.update_layout(
        **_layout(
            height=320,
            margin={"l": 10, "r": 10, "t": 110, "b": 10},
            legend={"orientation": "h", "y": -0.45, "traceorder": "normal"},
        ),
        barmode="stack",
        title={"text": title, "y": 0.97},
        xaxis_title="USD per sold GPU-hour (levelised at the hurdle rate)",
    )
    fig.update_xaxes(rangemode="tozero")
    return fig


def cash_flow_figure(result: Result) -> go.Figure:
    """Monthly project free cash flow (bars), cumulative project and equity cash (lines), payback marker [USD]."""
    c = result.ops.cash
    months = np.arange(result.ops.dates.months)
    flow = c.project_fcf[0]
    cum = np.cumsum(flow)
    cum_equity = np.cumsum(c.equity_fcf[0])
    fig = figure()
    fig.add_bar(
        x=months,
        y=flow,
        name="project cash flow",
        marker_color=np.where(flow >= 0, POSITIVE, NEGATIVE),
        hovertemplate="month %{x}<br>$%{y:,.0f}<extra>project cash flow</extra>",
    )
    fig.add_scatter(
        x=months,
        y=cum,
        mode="lines",
        name="cumulative project cash",
        line={"color": "#264653", "width": 2.5},
        hovertemplate="month %{x}<br>$%{y:,.0f}<extra>cumulative project</extra>",
    )
    fig.add_scatter(
        x=months,
        y=cum_equity,
        mode="lines",
        name="cumulative equity cash",
        line={"color": EQUITY, "width": 1.5, "dash": "dot"},
        hovertemplate="month %{x}<br>$%{y:,.0f}<extra>cumulative equity</extra>",
    )
    hline(fig, 0, color="#888", width=1)
    go_live = result.ops.dates.go_live_month
    vline(fig, go_live, color="#888", dash="dot", width=1)
    fig.add_annotation(x=go_live, y=1.0, yref="paper", text="go-live", showarrow=False, xanchor="left", yanchor="top")
    payback = _kpi(result, "payback_months")
    if _finite(payback):
        vline(fig, payback, color=PALETTE["accent"], dash="dash", width=2)
        fig.add_scatter(
            x=[payback],
            y=[0.0],
            mode="markers",
            name="payback",
            marker={"color": PALETTE["accent"], "size": 12, "symbol": "diamond"},
            hovertemplate="payback at month %{x:.1f}<extra></extra>",
        )
        fig.add_annotation(
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
        fig.add_annotation(
            x=0.99,
            y=0.05,
            xref="paper",
            yref="paper",
            text=f"no payback within the {len(months)}-month horizon",
            showarrow=False,
            xanchor="right",
            font={"color": NEGATIVE},
        )
    fig.update_layout(
        **_layout(),
        title="Monthly project cash flow and cumulative cash",
        xaxis_title=MONTH_AXIS,
        yaxis_title="USD",
        bargap=0.1,
    )
    return fig


def irr_vs_price_figure(result: Result, prices: np.ndarray | None = None) -> go.Figure:
    """Project and equity IRR against the headline price, break-even and current price marked [fraction]."""
    grid = price_grid(result) if prices is None else np.asarray(prices, dtype=float)
    curve = result.returns_vs_price(grid)
    p = curve["usd_per_gpu_hour"]
    custom = np.column_stack([curve["npv_usd"] / 1e6, curve["payback_months"]])
    hover = (
        "$%{x:.2f} /GPU-h<br>IRR %{y:.1%}<br>NPV $%{customdata[0]:,.2f} M"
        "<br>payback month %{customdata[1]:.1f}<extra>%{fullData.name}</extra>"
    )
    fig = figure()
    for key, name, color in (("project_irr", "project IRR", RESERVED), ("equity_irr", "equity IRR", EQUITY)):
        fig.add_scatter(
            x=p,
            y=curve[key],
            mode="lines",
            name=name,
            line={"color": color, "width": 2.5},
            customdata=custom,
            hovertemplate=hover,
        )
    hurdle = result.scenario.financing.hurdle_rate
    hline(fig, hurdle, color="#888", dash="dot", text=f"hurdle {hurdle:.0%}", below=True)
    breakeven = _kpi(result, "breakeven_usd_per_gpu_hour")
    if _finite(breakeven):
        vline(fig, breakeven, color="#264653", dash="dash", width=2)
        fig.add_scatter(
            x=[breakeven],
            y=[hurdle],
            mode="markers",
            name="break-even (NPV = 0)",
            marker={"color": "#264653", "size": 11, "symbol": "diamond"},
            hovertemplate="break-even $%{x:.2f} /GPU-h<extra></extra>",
        )
        fig.add_annotation(
            x=breakeven,
            y=1.0,
            yref="paper",
            text=f"break-even {usd_exact(breakeven, 2)}",
            showarrow=False,
            xanchor="left",
            yanchor="top",
        )
    price = result.scenario.pricing.usd_per_gpu_hour
    vline(fig, price, color=PALETTE["accent"], dash="dot", width=2)
    fig.add_annotation(
        x=price,
        y=0.9,
        yref="paper",
        text=f"your price {usd_exact(price, 2)}",
        showarrow=False,
        xanchor="left",
        font={"color": PALETTE["accent"]},
    )
    for key, color in (("project_irr", RESERVED), ("equity_irr", EQUITY)):
        value = _kpi(result, key)
        if _finite(value):
            fig.add_scatter(
                x=[price],
                y=[value],
                mode="markers",
                showlegend=False,
                marker={"color": color, "size": 9},
                hovertemplate=f"{key.replace('_', ' ')} at your price: %{{y:.1%}}<extra></extra>",
            )
    fig.update_layout(
        **_layout(),
        title="IRR against headline price (all else equal)",
        xaxis_title="headline price at go-live [USD per GPU-hour]",
        yaxis_title="IRR per year",
        yaxis_tickformat=".0%",
    )
    return fig


def debt_figure(result: Result) -> go.Figure:
    """Debt balance by month (top, with the sale proceeds swept into the loan) and the lender's cover per 12-month
    period of operation (bottom): DSCR bars and the LLCR at each period's start, against the covenant.

    DSCR bars are red below the covenant, amber below the target and green at or above it; the LLCR a line of
    diamonds; dotted lines at 1.0× and the covenant, a dashed line at the target.
    """
    c = result.ops.cash
    d = c.debt
    fin = result.scenario.financing
    months = np.arange(result.ops.dates.months)
    fig = two_rows(0.55, ("Debt balance at month end", "DSCR (bars) and LLCR (line) per 12 months of operation"))
    fig.add_scatter(
        x=months,
        y=d.balance[0],
        mode="lines",
        fill="tozeroy",
        name="balance",
        line={"color": RESERVED},
        hovertemplate="month %{x}<br>$%{y:,.0f}<extra>balance</extra>",
    )
    if d.draws.any():
        window = (float(d.repay_start) - 0.5, float(d.maturity) - 0.5)
        vrect(fig, *window, fill="#b0b7c3", opacity=0.15, text="repayment window")
    swept = np.flatnonzero(d.swept[0] > 0)
    if swept.size:
        fig.add_bar(
            x=months[swept],
            y=d.swept[0, swept],
            name="sweep",
            marker_color=WARN,
            hovertemplate="month %{x}<br>$%{y:,.0f} of sale proceeds repay the loan<extra>sweep</extra>",
        )
    table = result.dscr_by_year()
    starts, dscr = table["start_month"], table["dscr"]
    llcr = result.llcr_by_year()["llcr"]
    shown = np.isfinite(dscr)
    if shown.any():
        colors = np.where(dscr < fin.covenant_dscr, NEGATIVE, np.where(dscr < fin.target_dscr, WARN, POSITIVE))
        period_end = np.minimum(starts + 12, len(months))
        fig.add_bar(
            x=(starts + period_end) / 2 - 0.5,
            y=dscr,
            width=(period_end - starts) * 0.9,
            name="DSCR",
            marker_color=colors,
            text=[f"{v:.2f}×" if math.isfinite(v) else "" for v in dscr],
            textposition="outside",
            customdata=np.column_stack([starts, period_end - 1]),
            hovertemplate="months %{customdata[0]}–%{customdata[1]}<br>DSCR %{y:.2f}×<extra></extra>",
            xaxis="x2",
            yaxis="y2",
        )
        fig.add_scatter(
            x=starts - 0.5,
            y=llcr,
            mode="lines+markers",
            name="LLCR",
            line={"color": EQUITY},
            marker={"symbol": "diamond", "size": 9},
            hovertemplate="start of month %{x:.0f}<br>LLCR %{y:.2f}×<extra></extra>",
            xaxis="x2",
            yaxis="y2",
        )
        hline(fig, 1.0, color="#888", dash="dot", axes="2")
        hline(
            fig,
            fin.covenant_dscr,
            color=NEGATIVE,
            dash="dot",
            axes="2",
            text=f"covenant {fin.covenant_dscr:.2f}×",
            below=True,
        )
        hline(fig, fin.target_dscr, color="#888", dash="dash", axes="2", text=f"target {fin.target_dscr:.2f}×")
        cover = np.concatenate([dscr[shown], llcr[np.isfinite(llcr)]])
        top = max(float(cover.max()), fin.target_dscr, fin.covenant_dscr)
        bottom = min(float(cover.min()), 0.0)
        fig.update_layout(yaxis2_range=[bottom * 1.25, top * 1.25])
    else:
        fig.add_annotation(
            x=0.5, y=0.2, xref="paper", yref="paper", text="no debt service", showarrow=False, font={"size": 14}
        )
    fig.update_layout(yaxis_title_text="USD", yaxis2_title_text="cover [×]", xaxis2_title_text=MONTH_AXIS)
    fig.update_layout(**_layout(height=560), showlegend=False, bargap=0.1)
    return fig


def margin_figure(result: Result, pnl: pd.DataFrame | None = None) -> go.Figure:
    """Gross and EBITDA margin per project year (left axis), revenue bars behind them (right axis) [fraction, USD].

    ``pnl`` is the result's :func:`~neoplan.statements.pnl_by_year` (computed when not given).
    """
    pnl = (pnl_by_year(result) if pnl is None else pnl).drop(index="Total")
    years = list(pnl.index)
    fig = figure()  # revenue on y (right), margins on y2 overlaying it: make_subplots(secondary_y) written out
    fig.update_layout(
        xaxis={"anchor": "y", "domain": [0.0, 0.94]},
        yaxis={"anchor": "x", "domain": [0.0, 1.0]},
        yaxis2={"anchor": "x", "overlaying": "y", "side": "right"},
    )
    fig.add_bar(
        x=years,
        y=pnl["revenue_usd"],
        name="revenue",
        marker_color="#dde3ea",
        hovertemplate="%{x}<br>revenue $%{y:,.0f}<extra></extra>",
    )
    for key, name, color in (("gross_margin", "gross margin", POSITIVE), ("ebitda_margin", "EBITDA margin", RESERVED)):
        fig.add_scatter(
            x=years,
            y=pnl[key],
            mode="lines+markers+text",
            name=name,
            line={"color": color, "width": 2.5},
            text=[f"{v:.0%}" if math.isfinite(v) else "" for v in pnl[key]],
            textposition="top center",
            hovertemplate="%{x}<br>" + name + " %{y:.1%}<extra></extra>",
            yaxis="y2",
        )
    # margins on the overlaying axis so the lines draw above the bars, but with their axis on the left
    fig.update_layout(
        yaxis2={"title_text": "margin", "tickformat": ".0%", "side": "left", "rangemode": "tozero", "tickmode": "auto"},
        yaxis={"title_text": "revenue [USD]", "side": "right", "showgrid": False, "rangemode": "tozero"},
    )
    fig.update_layout(**_layout(), title="Margins by project year (Y1 = months 0–11, includes construction)")
    fig.update_xaxes(title_text="project year")
    return fig


def revenue_mix_figure(result: Result) -> go.Figure:
    """Monthly revenue by contract type (top) and the price each pays (bottom), from go-live on [USD]."""
    rev = result.ops.revenue
    months = np.arange(result.ops.dates.months)
    earning = months + 1 > result.ops.dates.go_live_month
    reserved_usd = rev.reserved_gpu_hours * rev.reserved_usd_per_gpu_hour
    on_demand_usd = rev.on_demand_gpu_hours * rev.on_demand_usd_per_gpu_hour
    fig = two_rows(0.6, ("Revenue per month", "Price per GPU-hour"))
    for y, name, color in ((reserved_usd, "reserved (take-or-pay)", RESERVED), (on_demand_usd, "on-demand", ON_DEMAND)):
        fig.add_scatter(
            x=months,
            y=y,
            mode="lines",
            stackgroup="revenue",
            name=name,
            line={"color": color, "width": 0.5},
            hovertemplate="month %{x}<br>$%{y:,.0f}<extra>" + name + "</extra>",
        )
    fig.add_scatter(
        x=months,
        y=rev.revenue_usd,
        mode="lines",
        name="net of SLA credits",
        line={"color": "#111", "dash": "dot"},
        hovertemplate="month %{x}<br>$%{y:,.0f}<extra>revenue net of SLA credits</extra>",
    )
    for y, name, color in (
        (rev.reserved_usd_per_gpu_hour, "reserved price", RESERVED),
        (rev.on_demand_usd_per_gpu_hour, "on-demand price", ON_DEMAND),
    ):
        fig.add_scatter(
            x=months,
            y=np.where(earning, y, np.nan),
            mode="lines",
            name=name,
            line={"color": color, "width": 2.5},
            line_shape="hv" if name.startswith("reserved") else "linear",
            hovertemplate="month %{x}<br>$%{y:.3f} /GPU-h<extra>" + name + "</extra>",
            xaxis="x2",
            yaxis="y2",
        )
    hline(fig, result.scenario.pricing.usd_per_gpu_hour, color=PALETTE["accent"], dash="dot", axes="2", text="headline")
    fig.update_layout(
        yaxis_title_text="USD", yaxis2_title_text="USD/GPU-h", yaxis2_rangemode="tozero", xaxis2_title_text=MONTH_AXIS
    )
    fig.update_layout(**_layout(height=560))
    return fig


def timeline_figure(result: Result) -> go.Figure:
    """Project phases on the month axis: lead time, burn-in, install, operation, depreciation, debt."""
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
    fig = figure()
    for name, start, end, color in reversed(phases):
        fig.add_bar(
            y=[name],
            x=[max(end - start, 0.0)],
            base=[start],
            orientation="h",
            marker_color=color,
            showlegend=False,
            customdata=[[start, end]],
            hovertemplate=name + ": month %{customdata[0]:.1f} → %{customdata[1]:.1f}<extra></extra>",
        )
    vline(fig, d.go_live_month, color="#888", dash="dot")
    fig.update_layout(
        **_layout(height=280, margin={"l": 10, "r": 10, "t": 10, "b": 10}),
        xaxis_title=MONTH_AXIS,
        xaxis_range=[0, d.months],
        bargap=0.35,
    )
    return fig
