"""Financing: debt, equity and the project timeline; returns, debt cover and the debt schedule."""

from __future__ import annotations

import numpy as np
import streamlit as st

from neoplan import metrics
from neoplan.charts.finance import debt_figure, timeline_figure
from neoplan.finance import project as finance
from neoplan.finance.statements import COVER_LABELS, DEBT_LABELS, cover_by_year, debt_by_month, debt_by_year
from neoplan.inputs.loading import scenario_json
from ui import format as fmt
from ui.state import evaluate_current, get_scenario
from ui.widgets import compact_metrics, field_input, figure_tabs, lazy_expander, metric_cards

KPI_KEY = "financing_kpis"
TIMELINE_KEY = "financing_timeline"
FUNDING_KEY = "financing_funding"
CONVENTIONS = (
    "Conventions: the all-in rate is the interest rate + the credit spread, nominal per year, compounding monthly "
    "(rate ÷ 12 a month); the term runs from the first draw. Every flow sits at the end of its month (capex too, "
    "unless it is paid mid-month: then NPV, IRR and MIRR count it half a month earlier), "
    "month 0 (the purchase order) undiscounted; NPV discounts at the hurdle rate as an effective annual rate. "
    "Revenue is collected the receivable days later and taxed as earned. Tax years net a month's loss against "
    "the same year's profits (the tax paid as it accrues, what is left of a loss carried forward). Interest "
    "during construction is capitalised into the asset and depreciated with it; the upfront fee is amortised over "
    "the term. IRR is the "
    "root that agrees with MOIC and with NPV at the hurdle (none if no root does); MIRR discounts equity's "
    "outflows at the all-in rate and reinvests its inflows at the hurdle. Payback is undiscounted, from the purchase "
    "order. CFADS = revenue collected − opex − tax on operations (the sale and its tax left out). LLCR: CFADS to "
    "maturity discounted at the all-in rate ÷ debt outstanding, at the start of each year of operation. Headroom: "
    "1 − covenant ÷ DSCR, how far CFADS can fall before a breach."
)
SWEEP = (
    "The loan is fixed at financial close: its size and repayment schedule (a sculpted loan's principal profile) "
    "are set on this scenario, and every stress case meets that schedule. Sale proceeds repay the outstanding loan "
    "first (a sweep): when the hardware is sold inside the term, at its end of life or at the horizon, the proceeds "
    "prepay the balance and the rest of the schedule shrinks pro rata; debt still owed at the horizon is repaid "
    "then, by equity where the proceeds fall short (no refinancing is assumed)."
)


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
    kpis = ["equity_irr", "equity_mirr", "equity_npv_usd", "project_irr", "min_dscr", "npv_usd", "equity_moic"]
    metric_cards(
        KPI_KEY,
        [[metrics.card(key, metrics.lookup(d, key), f"Hurdle rate {hurdle}." if "npv" in key else "") for key in kpis]],
        font_rem=1.6,
        per_row=4,
    )
    compact_metrics(FUNDING_KEY, 1.6)
    compact_metrics(TIMELINE_KEY, 1.6)
    with st.container(key=FUNDING_KEY):
        s = st.columns(5)
        label, value, help_text = metrics.card(
            "capex_usd.total", result.capex_total_usd, "Deposit at order, the balance at delivery."
        )
        s[0].metric(label, value, help=help_text)
        label, value, help_text = metrics.card("debt_usd", d["debt_usd"], "Drawn with each capex payment.")
        s[1].metric(label, value, help=help_text)
        s[2].metric("Equity in", fmt.usd(result.capex_total_usd - drawn), help="Capex not funded by debt.")
        s[3].metric(
            "Interest capitalised",
            fmt.usd(float(debt.interest_capitalized.sum())),
            help="Interest added to the loan before operation (and any sculpted shortfall). Interest during "
            "construction is capitalised into the asset for tax and depreciated with it.",
        )
        s[4].metric(
            "Upfront fee",
            fmt.usd(float(debt.fee.sum())),
            help="Paid at the first draw; for tax, amortised over the loan term.",
        )

left, right = st.columns([1, 2.6], gap="large")
with left:
    st.subheader("Debt and equity")
    field_input("financing.debt_share", "Debt share of capex [%]")
    field_input("financing.interest_rate", "Interest rate [% per year]")
    field_input("financing.credit_spread", "Credit spread [% per year, on top]")
    field_input("financing.term_months", "Term from first draw [months]")
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
    field_input(
        "financing.sizing",
        "Loan sized on",
        options_labels={
            "capex_share": "Debt share × capex",
            "contracted_revenue": "Contracted (take-or-pay) revenue",
        },
    )
    field_input("financing.target_dscr", "Target DSCR [×]")
    field_input("financing.dsra_months", "Debt service reserve [months]")
    if _sculpted():
        st.caption(
            "Sculpted: the loan is sized so that debt service = CFADS ÷ target DSCR repays it exactly at maturity "
            "(at most debt share × capex); each month's service is proportional to that month's CFADS, with no "
            "balloon. When the debt share is the smaller limit, the cover is above the target."
        )
    field_input("financing.covenant_dscr", "Covenant DSCR [×]")
    field_input("financing.upfront_fee_rate", "Upfront fee [% of debt]")
    field_input("financing.capitalize_idc", "Capitalise IDC")  # interest during construction (see help)
    field_input("financing.hurdle_rate", "Hurdle rate / WACC [% per year]")
    field_input("financing.tax_rate", "Tax rate [%]")
    field_input(
        "financing.tax_period_months",
        "Tax assessed on",
        options=[12, 1],
        options_labels={12: "Tax years", 1: "Each month"},  # what each means: the field's help
    )
    field_input(
        "financing.tax_depreciation",
        "Tax depreciation",
        options_labels={"straight_line": "Straight line", "macrs_5": "MACRS 5-year (US)"},
    )
    if get_scenario().financing.tax_depreciation == "straight_line":
        field_input("financing.tax_life_months", "Tax life [months, empty = operating life]")
    st.subheader("Timeline")
    field_input("timeline.delivery_lead_months", "Delivery lead time [months]")
    field_input("timeline.integration_burn_in_weeks", "OEM integration burn-in [weeks]", fmt="%.1f")
    field_input("timeline.site_install_weeks", "Site installation [weeks]", fmt="%.1f")
    field_input("timeline.onsite_burn_in_days", "On-site burn-in [days]", fmt="%.1f")
    field_input("timeline.deposit_share", "Deposit at order [% of capex]")
    field_input(
        "timeline.capex_timing",
        "Capex paid",
        options_labels={"end_of_month": "At the end of its month", "mid_month": "Mid-month"},
    )
    field_input("timeline.horizon_months", "Analysis horizon [months]")
    field_input("timeline.useful_life_months", "Operating life: shut down or sold after [months]")
    field_input(
        "financing.depreciation_life_months",
        "Book depreciation life [months]",
        placeholder=f"{get_scenario().timeline.useful_life_months} (the operating life)",
    )
    field_input("timeline.residual_value_share", "Residual value [% of capex, empty = resale curve]")
    field_input(
        "timeline.end_of_life",
        "At the end of the useful life",
        options_labels={"shutdown": "Shut down and sell", "refresh": "Refresh: buy a new cluster"},
    )
    if get_scenario().timeline.end_of_life == "refresh":
        field_input("timeline.refresh_capex_multiple", "Refresh capex [× designed capex]")

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
        t[3].metric(
            "Horizon",
            f"{dates.months} months",
            help="Each cluster is sold for its residual value when its useful life ends (go-live + life), or in the "
            "last month if the horizon comes first; past the life it shuts down or is refreshed (end of life).",
        )
        figures = [
            ("Timeline", timeline_figure, "financing_timeline_chart"),
            ("Debt", debt_figure, "financing_debt_chart"),
        ]
        figure_tabs("financing.tab", figures, result, inputs=scenario_json(result.scenario))  # one figure at a time

    st.markdown("**Debt schedule by project year** (Y1 = months 0–11 after the purchase order)")
    yearly = debt_by_year(result).T.rename(index=DEBT_LABELS)
    st.dataframe(yearly.style.format(fmt.usd), height=_height(len(yearly)), key="financing_debt_table")
    schedule = lazy_expander("Monthly debt schedule", "financing.monthly_open")
    if schedule.open:
        monthly = debt_by_month(result).rename(columns={"month": "Month", **DEBT_LABELS})
        dollars = st.column_config.NumberColumn(format="dollar", step=1)  # formatted by the browser: no Styler
        schedule.dataframe(
            monthly, hide_index=True, column_config={c: dollars for c in monthly.columns if c != "Month"}
        )
    st.subheader("Lender's view")
    f = result.scenario.financing
    metric_cards(
        "financing_lender",
        [
            [
                metrics.card(key, metrics.lookup(d, key), note)
                for key, note in (
                    ("min_dscr", f"Covenant {f.covenant_dscr:.2f}×."),
                    ("llcr", ""),
                    ("covenant_headroom", f"Covenant {f.covenant_dscr:.2f}×."),
                    ("debt_usd", "Sculpted: the size the cover supports." if _sculpted() else ""),
                )
            ]
        ],
        font_rem=1.6,
    )
    cover = cover_by_year(result)
    if cover.empty:
        st.caption("No debt, so no debt cover to show.")
    else:
        st.markdown(
            f"**Debt cover by year of operation** (12-month periods from the first full operating month, month "
            f"{int(np.ceil(dates.go_live_month))}, to maturity; covenant {f.covenant_dscr:.2f}×, target "
            f"{f.target_dscr:.2f}×)"
        )
        shown = cover.rename(columns=COVER_LABELS).rename_axis(None)
        st.dataframe(
            shown.style.format(
                {
                    COVER_LABELS["cfads_usd"]: fmt.usd,
                    COVER_LABELS["debt_service_usd"]: fmt.usd,
                    COVER_LABELS["dscr"]: fmt.ratio,
                    COVER_LABELS["llcr"]: fmt.ratio,
                    COVER_LABELS["headroom"]: fmt.pct,
                },
                na_rep=fmt.NA,
            ).map(
                lambda v: "color: #c0392b" if isinstance(v, float) and v < 0 else "", subset=[COVER_LABELS["headroom"]]
            ),
            height=_height(len(shown)),
            key="financing_cover_table",
        )
    st.caption(SWEEP)
    st.caption(CONVENTIONS)
    with st.expander("How this is computed"):
        st.markdown(finance.__doc__ or "")
