"""Figures and yearly roll-ups for the Financing, Pricing & revenue and Results pages.

Everything here is drawn from a :class:`~neoplan.model.Result` (its arrays, tables and
``returns_vs_price``); no model logic. Months count from the purchase order (month 0);
project year 1 = months 0–11, so construction falls in year 1. Money in USD, rates as fractions.
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..model import COST_OF_REVENUE
from .base import PALETTE, STYLE, figure, hline, two_rows, vline, vrect

if TYPE_CHECKING:
    from ..model import Result

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


PNL_ROWS = [
    "revenue_usd",
    "cost_of_revenue_usd",
    "gross_profit_usd",
    "other_opex_usd",
    "ebitda_usd",
    "depreciation_usd",
    "ebit_usd",
    "interest_usd",
    "fees_usd",
    "gain_on_sale_usd",
    "tax_usd",
    "net_income_usd",
    "gross_margin",
    "ebitda_margin",
    "net_margin",
    "project_fcf_usd",
    "equity_fcf_usd",
]
"""Columns of :func:`pnl_by_year`, top to bottom of a P&L."""
PNL_LABELS = {
    "revenue_usd": "Revenue (net of SLA credits)",
    "cost_of_revenue_usd": "Cost of revenue",
    "gross_profit_usd": "Gross profit",
    "other_opex_usd": "Other opex",
    "ebitda_usd": "EBITDA",
    "depreciation_usd": "Depreciation",
    "ebit_usd": "EBIT",
    "interest_usd": "Interest (incl. capitalised)",
    "fees_usd": "Debt fees",
    "gain_on_sale_usd": "Gain / loss on residual sale",
    "tax_usd": "Tax",
    "net_income_usd": "Net income",
    "gross_margin": "Gross margin",
    "ebitda_margin": "EBITDA margin",
    "net_margin": "Net margin",
    "project_fcf_usd": "Project free cash flow",
    "equity_fcf_usd": "Equity free cash flow",
}
"""Display names of the :data:`PNL_ROWS`."""
PNL_BOLD = ("gross_profit_usd", "ebitda_usd", "ebit_usd", "net_income_usd")
"""Subtotal rows of the P&L, shown in bold."""
DEBT_LABELS = {
    "draws_usd": "Draws",
    "interest_accrued_usd": "Interest accrued",
    "interest_capitalized_usd": "… of which capitalised",
    "interest_paid_usd": "… of which paid",
    "principal_usd": "Principal repaid",
    "payoff_usd": "Payoff at horizon",
    "fee_usd": "Upfront fee",
    "debt_service_usd": "Debt service (interest paid + principal)",
    "cfads_usd": "CFADS (EBITDA − tax)",
    "balance_end_usd": "Balance at year end",
    "balance_usd": "Balance at month end",
}
"""Display names of the columns of :func:`debt_by_year` and :func:`debt_by_month`."""


def _finite(value: float) -> bool:
    return math.isfinite(value)


def _kpi(result: Result, key: str) -> float:
    """A KPI as a float; nan where undefined (``None`` or missing)."""
    value = result.kpis.get(key)
    return math.nan if value is None else float(value)


def _layout(**kwargs: object) -> dict[str, object]:
    """STYLE with per-figure overrides (height, margins) taking precedence."""
    return {**STYLE, "legend": {"orientation": "h", "y": -0.18}, **kwargs}


def _year_of_month(months: int) -> np.ndarray:
    """Project year of each month: 1 for months 0–11, 2 for 12–23, … ."""
    return np.arange(months) // 12 + 1


def year_labels(result: Result) -> list[str]:
    """``Y1`` … ``Yn`` for the project years of the horizon; a short last year says how many months it has."""
    months = result.ops.dates.months
    labels = []
    for year in range(1, (months - 1) // 12 + 2):
        length = min(12, months - 12 * (year - 1))
        labels.append(f"Y{year}" if length == 12 else f"Y{year} ({length} mo)")
    return labels


# --- yearly tables --------------------------------------------------------------------------------
_PNL: dict[int, pd.DataFrame] = {}
"""pnl_by_year by id of a Result while it lives: a page draws the table and the margin chart from one computation."""


def pnl_by_year(result: Result) -> pd.DataFrame:
    """Profit and loss per project year (year 1 = months 0–11 after the purchase order) [USD]; a fresh copy.

    Costs are negative so each column adds up: revenue + cost of revenue = gross profit;
    gross profit + other opex = EBITDA; EBITDA + D&A = EBIT; EBIT + interest + fees + gain on
    the residual sale + tax = net income. Margins are fractions of revenue (nan without revenue).
    Cost of revenue = power, colocation, hardware support and software opex (as the model's
    gross margin). A ``Total`` row sums the years.
    """
    key = id(result)
    if key not in _PNL:
        _PNL[key] = _pnl_by_year(result)
        weakref.finalize(result, _PNL.pop, key, None)  # forget it with the Result (its id may be reused)
    return _PNL[key].copy()


def _pnl_by_year(result: Result) -> pd.DataFrame:
    m = result.monthly_table()
    m["year"] = _year_of_month(len(m))
    cost_cols = [f"opex_{k}_usd" for k in COST_OF_REVENUE if f"opex_{k}_usd" in m]
    m["cost_of_revenue_usd"] = m[cost_cols].sum(axis=1)
    g = m.groupby("year").sum(numeric_only=True)
    g.loc["total"] = g.sum()
    out = pd.DataFrame(index=g.index)
    out["revenue_usd"] = g["revenue_usd"]
    out["cost_of_revenue_usd"] = -g["cost_of_revenue_usd"]
    out["gross_profit_usd"] = g["revenue_usd"] - g["cost_of_revenue_usd"]
    out["other_opex_usd"] = -(g["opex_usd"] - g["cost_of_revenue_usd"])
    out["ebitda_usd"] = g["ebitda_usd"]
    out["depreciation_usd"] = -g["depreciation_usd"]
    out["ebit_usd"] = g["ebit_usd"]
    out["interest_usd"] = -g["interest_usd"]
    out["fees_usd"] = -g["fees_usd"]
    out["tax_usd"] = -g["tax_usd"]
    out["net_income_usd"] = g["net_income_usd"]
    gain = out["net_income_usd"] - (out["ebit_usd"] + out["interest_usd"] + out["fees_usd"] + out["tax_usd"])
    out["gain_on_sale_usd"] = gain.round(2)  # proceeds of the residual sale less book value; float noise dropped
    with np.errstate(divide="ignore", invalid="ignore"):
        revenue = out["revenue_usd"].where(out["revenue_usd"] > 0)
        out["gross_margin"] = out["gross_profit_usd"] / revenue
        out["ebitda_margin"] = out["ebitda_usd"] / revenue
        out["net_margin"] = out["net_income_usd"] / revenue
    out["project_fcf_usd"] = g["project_fcf_usd"]
    out["equity_fcf_usd"] = g["equity_fcf_usd"]
    out = out[PNL_ROWS]
    out.index = [*year_labels(result), "Total"]
    out.index.name = "year"
    return out


def debt_by_year(result: Result) -> pd.DataFrame:
    """Debt schedule per project year [USD]; balance at the end of the year.

    Interest accrued = capitalised (added to the loan before operation) + paid in cash.
    Debt service = interest paid + scheduled principal; the payoff at the horizon is separate.
    CFADS = EBITDA − tax. A ``Total`` row sums the flows (its balance is the final one, 0).
    """
    d = result.ops.cash.debt
    months = result.ops.dates.months
    frame = debt_by_month(result).drop(columns=["month", "balance_usd"])
    frame["year"] = _year_of_month(months)
    g = frame.groupby("year").sum()
    g["balance_end_usd"] = d.balance[0][np.minimum(g.index.to_numpy() * 12, months) - 1]
    total = g.sum()
    total["balance_end_usd"] = d.balance[0][-1]
    g.loc["total"] = total
    g.index = [*year_labels(result), "Total"]
    g.index.name = "year"
    return g


def debt_by_month(result: Result) -> pd.DataFrame:
    """Monthly debt schedule [USD]: draws, interest (accrued, capitalised, paid), principal, payoff, fee, balance."""
    c = result.ops.cash
    d = c.debt
    return pd.DataFrame(
        {
            "month": np.arange(result.ops.dates.months),
            "draws_usd": d.draws[0],
            "interest_accrued_usd": d.interest[0],
            "interest_capitalized_usd": d.interest_capitalized[0],
            "interest_paid_usd": d.interest_paid[0],
            "principal_usd": d.principal[0],
            "payoff_usd": d.payoff[0],
            "fee_usd": d.fee[0],
            "debt_service_usd": d.debt_service[0],
            "cfads_usd": c.cfads[0],
            "balance_usd": d.balance[0],
        }
    )


def price_grid(result: Result, n: int = 41) -> np.ndarray:
    """``n`` headline prices around the break-even price, widened to include the scenario's price [USD/GPU-h]."""
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
    """TCO per sold GPU-hour stacked by component, against the headline and break-even prices [USD/GPU-h]."""
    tco = result.tco_breakdown_usd_per_gpu_hour
    total = _kpi(result, "tco_usd_per_gpu_hour")
    price = result.scenario.pricing.usd_per_gpu_hour
    breakeven = _kpi(result, "breakeven_usd_per_gpu_hour")
    span = max(v for v in (total, price, breakeven, 0.01) if _finite(v))
    fig = figure()
    for cat, value in tco.items():
        fig.add_bar(
            y=["TCO"],
            x=[value],
            name=cat,
            orientation="h",
            marker_color=TCO_COLORS.get(cat, PALETTE["oem"]),
            text=[f"{cat}<br>${value:.2f}" if _finite(value) and value > 0.07 * span else ""],
            textposition="inside",
            textangle=0,
            insidetextanchor="middle",
            hovertemplate=f"{cat}: $%{{x:.3f}} /GPU-h<extra></extra>",
        )
    marks = [
        ("headline price", price, PALETTE["accent"], "dash"),
        ("break-even price", breakeven, "#264653", "dot"),
    ]
    for i, (name, value, color, dash) in enumerate(marks):
        if _finite(value):
            vline(fig, value, color=color, dash=dash, width=2)
            fig.add_annotation(
                x=value,
                y=1.0 + 0.16 * (i + 1),
                yref="paper",
                text=f"{name} ${value:.2f}",
                showarrow=False,
                font={"color": color},
                xanchor="center",
            )
    title = "TCO per sold GPU-hour" + (f": ${total:.2f}" if _finite(total) else ": n/a")
    fig.update_layout(
        **_layout(
            height=300,
            margin={"l": 10, "r": 10, "t": 90, "b": 10},
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
            text=f"break-even ${breakeven:.2f}",
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
        text=f"your price ${price:.2f}",
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
    """Debt balance by month (top) and DSCR per 12-month period of operation (bottom)."""
    c = result.ops.cash
    d = c.debt
    fin = result.scenario.financing
    months = np.arange(result.ops.dates.months)
    fig = two_rows(0.55, ("Debt balance at month end", "DSCR = CFADS / debt service, per 12 months of operation"))
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
    table = result.dscr_by_year()
    starts, dscr = table["start_month"], table["dscr"]
    shown = np.isfinite(dscr)
    if shown.any():
        colors = np.where(dscr < 1.0, NEGATIVE, np.where(dscr < fin.target_dscr, WARN, POSITIVE))
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
        hline(fig, 1.0, color=NEGATIVE, dash="dot", axes="2")
        hline(fig, fin.target_dscr, color="#888", dash="dash", axes="2", text=f"target {fin.target_dscr:.2f}×")
        top = max(float(np.nanmax(dscr)), fin.target_dscr)
        bottom = min(float(np.nanmin(dscr)), 0.0)
        fig.update_layout(yaxis2_range=[bottom * 1.25, top * 1.25])
    else:
        fig.add_annotation(
            x=0.5, y=0.2, xref="paper", yref="paper", text="no debt service", showarrow=False, font={"size": 14}
        )
    fig.update_layout(yaxis_title_text="USD", yaxis2_title_text="DSCR [×]", xaxis2_title_text=MONTH_AXIS)
    fig.update_layout(**_layout(height=560), showlegend=False, bargap=0.1)
    return fig


def margin_figure(result: Result) -> go.Figure:
    """Gross and EBITDA margin per project year (left axis), revenue bars behind them (right axis) [fraction, USD]."""
    pnl = pnl_by_year(result).drop(index="Total")
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
