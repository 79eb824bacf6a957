"""Financing: debt, equity and the project timeline; returns, debt cover and the debt schedule."""

from __future__ import annotations

import streamlit as st

from neoplan import finance, metrics
from neoplan.charts.finance import debt_figure, timeline_figure
from neoplan.scenario import scenario_json
from neoplan.statements import DEBT_LABELS, debt_by_month, debt_by_year
from ui import format as fmt
from ui.state import evaluate_current, get_scenario
from ui.widgets import chart, compact_metrics, field_input, metric_cards

KPI_KEY = "financing_kpis"
TIMELINE_KEY = "financing_timeline"
FUNDING_KEY = "financing_funding"


def _sculpted() -> bool:
    """Whether the current scenario repays the debt sculpted to cash flow."""
    return get_scenario().financing.amortization == "sculpted"


def _height(rows: int) -> int:
    """Dataframe height showing ``rows`` rows and the header without scrolling [px]."""
    return 35 * (rows + 1) + 3


st.title("Financing")
st.caption(
    "How the capex is paid for and when the cluster starts earning: debt share, rate, term and repayment "
    "profile; equity funds the rest. Month 0 is the purchase order."
)

result = evaluate_current()  # widget callbacks have already applied this run's edits
if result is not None:
    k = result.kpis
    debt = result.ops.cash.debt
    drawn = float(debt.draws.sum())
    hurdle = fmt.pct(result.scenario.financing.hurdle_rate)
    d = result.to_dict()
    kpis = ["equity_irr", "project_irr", "min_dscr", "npv_usd", "equity_moic"]
    metric_cards(
        KPI_KEY,
        [[metrics.card(key, metrics.lookup(d, key), f"Hurdle rate {hurdle}." if key == "npv_usd" else "")
          for key in kpis]],
        font_rem=1.6,
    )
    compact_metrics(FUNDING_KEY, 1.6)
    compact_metrics(TIMELINE_KEY, 1.6)
    with st.container(key=FUNDING_KEY):
        s = st.columns(5)
        label, value, help_text = metrics.card(
            "capex_usd.total", result.capex_total_usd, "Deposit at order, the balance at delivery."
        )
        s[0].metric(label, value, help=help_text)
        s[1].metric("Debt drawn", fmt.usd(drawn), help="Debt share × capex, drawn with each capex payment.")
        s[2].metric("Equity in", fmt.usd(result.capex_total_usd - drawn), help="Capex not funded by debt.")
        s[3].metric(
            "Interest capitalised",
            fmt.usd(float(debt.interest_capitalized.sum())),
            help="Interest added to the loan before operation (and any sculpted shortfall).",
        )
        s[4].metric("Upfront fee", fmt.usd(float(debt.fee.sum())), help="Paid at the first draw, expensed for tax.")

left, right = st.columns([1, 2.6], gap="large")
with left:
    st.subheader("Debt and equity")
    field_input("financing.debt_share", "Debt share of capex [%]", step=5.0)
    field_input("financing.interest_rate", "Interest rate [% per year]", step=0.5)
    field_input("financing.term_months", "Term from first draw [months]", step=6)
    field_input("financing.grace_months", "Grace, interest only [months]")
    field_input(
        "financing.amortization",
        "Repayment profile",
        options_labels={
            "annuity": "Annuity (level payments)",
            "straight_line": "Straight line (level principal)",
            "sculpted": "Sculpted to cash flow (CFADS)",
        },
    )
    field_input("financing.target_dscr", "Target DSCR [×]", step=0.05)
    if _sculpted():
        st.caption(
            "Sculpted: debt service each month = CFADS / DSCR*, with DSCR* set so the loan is repaid exactly at "
            "maturity. A DSCR* below the target means the debt is too large for it."
        )
    field_input("financing.upfront_fee_rate", "Upfront fee [% of debt]", step=0.5)
    field_input("financing.capitalize_idc", "Capitalise IDC")  # interest during construction (see help)
    field_input("financing.hurdle_rate", "Hurdle rate / WACC [% per year]", step=1.0)
    field_input("financing.tax_rate", "Tax rate [%]", step=1.0)
    st.subheader("Timeline")
    field_input("timeline.delivery_lead_months", "Delivery lead time [months]")
    field_input("timeline.integration_burn_in_weeks", "OEM integration burn-in [weeks]", step=0.5, fmt="%.1f")
    field_input("timeline.site_install_weeks", "Site installation [weeks]", step=0.5, fmt="%.1f")
    field_input("timeline.onsite_burn_in_days", "On-site burn-in [days]", step=1.0, fmt="%.1f")
    field_input("timeline.deposit_share", "Deposit at order [% of capex]", step=5.0)
    field_input("timeline.horizon_months", "Analysis horizon [months]", step=6)
    field_input("timeline.useful_life_months", "Depreciation life [months]", step=6)
    field_input("timeline.residual_value_share", "Residual value [% of capex]", step=1.0)

if result is not None:
    dates = result.ops.dates
    with right:
        st.subheader("Timeline")
        t = st.container(key=TIMELINE_KEY).columns(4)
        t[0].metric(
            "Delivery", metrics.month_point(dates.delivery_month), help="Purchase order to delivery; capex balance due."
        )
        go_live, go_live_text, go_live_help = metrics.card("go_live_month", k["go_live_month"])
        t[1].metric(go_live, go_live_text, help=go_live_help)
        t[2].metric(
            "Repayment",
            f"{debt.repay_start}–{debt.maturity - 1}" if drawn > 0 else fmt.NA,
            help="Months of scheduled repayment: first full operating month + grace, to the end of the term "
            "(or the horizon, where any balance left is paid off).",
        )
        t[3].metric("Horizon", f"{dates.months} months", help="Residual value received in the last month.")
        chart(timeline_figure, result, inputs=scenario_json(result.scenario), key="financing_timeline_chart")

        st.subheader("Debt")
        chart(debt_figure, result, inputs=scenario_json(result.scenario), key="financing_debt_chart")

    st.markdown("**Debt schedule by project year** (Y1 = months 0–11 after the purchase order)")
    yearly = debt_by_year(result).T.rename(index=DEBT_LABELS)
    st.dataframe(yearly.style.format(fmt.usd), height=_height(len(yearly)), key="financing_debt_table")
    with st.expander("Monthly debt schedule"):
        monthly = debt_by_month(result).rename(columns={"month": "Month", **DEBT_LABELS})
        dollars = st.column_config.NumberColumn(format="dollar", step=1)  # formatted by the browser: no Styler
        st.dataframe(monthly, hide_index=True, column_config={c: dollars for c in monthly.columns if c != "Month"})
    with st.expander("How this is computed"):
        st.markdown(finance.__doc__ or "")
