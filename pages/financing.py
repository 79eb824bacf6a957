"""Financing: debt, equity and the project timeline; returns, debt cover and the debt schedule."""

from __future__ import annotations

import numpy as np
import streamlit as st

from neoplan import metrics
from neoplan.charts.finance import debt_figure, timeline_figure
from neoplan.finance import project as finance
from neoplan.finance import waterfall
from neoplan.finance.statements import (
    COVER_LABELS,
    DEBT_LABELS,
    cover_by_year,
    debt_by_month,
    debt_by_year,
    loan_at_close,
)
from neoplan.inputs.loading import scenario_json
from neoplan.inputs.loans import AMORTIZATIONS, CREDIT_SPREAD_SETS, RATE_BASES, TRANCHE_KINDS
from ui import format as fmt
from ui.state import evaluate_current, get_scenario
from ui.widgets import compact_metrics, field_input, figure_tabs, lazy_expander, metric_cards, table_field

KPI_KEY = "financing_kpis"
TIMELINE_KEY = "financing_timeline"
FUNDING_KEY = "financing_funding"
CONVENTIONS = (
    "Conventions: the all-in rate is the interest rate + the credit spread (a floating tranche: SOFR + its spread), "
    "nominal per year, compounding monthly (rate ÷ 12 a month); the term runs from the first draw (a delayed-draw "
    "tranche's: from each draw). Every flow sits at the end of its month (capex too, "
    "unless it is paid mid-month: then NPV, IRR and MIRR count it half a month earlier), "
    "month 0 (the purchase order) undiscounted; NPV discounts at the hurdle rate as an effective annual rate. "
    "Revenue is collected the receivable days later and taxed as earned. Tax years net a month's loss against "
    "the same year's profits (the tax paid as it accrues, what is left of a loss carried forward). Interest "
    "during construction is capitalised into the asset and depreciated with it; the upfront fee is amortised over "
    "the term. IRR is the "
    "root that agrees with MOIC and with NPV at the hurdle (none if no root does); MIRR discounts equity's "
    "outflows at the all-in rate and reinvests its inflows at the hurdle. Payback is undiscounted, from the purchase "
    "order. CFADS = revenue collected − opex − tax on operations (the sale and its tax left out). DSCR by year of "
    "repayment, from the first repayment month. LLCR: CFADS to the last maturity discounted at the debt's average "
    "rate ÷ debt outstanding, at the start of each year of repayment. Headroom: "
    "1 − covenant ÷ DSCR, how far CFADS can fall before a breach."
)
SWEEP = (
    "The debt is fixed at financial close: each tranche's size, its installments (as shares of the balance when "
    "repayment starts), a fixed tranche's rate, a floating one's spread and the reserve are set on this scenario, and "
    "every stress case meets them. Prepayments (the cash sweep, sale proceeds) leave the installments as they are, "
    "so they repay the last ones first and the loan ends sooner; debt still owed at the horizon is repaid then, by "
    "equity (no refinancing is assumed)."
)
WATERFALL = (
    "**Cash waterfall**, each month from the first full operating month until the debt is repaid: "
    "CFADS (revenue collected − opex − tax on operations) → debt service of every tranche, most senior first "
    "(interest, then the installment due; at maturity what is left) → a shortfall is paid from cash held by a "
    "lock-up, then the debt service reserve; what they cannot pay is a **payment default** (counted; the model has "
    "the sponsor pay it) → a surplus refills the reserve first → the **cash sweep** prepays the senior tranche with "
    "the sweep share of what is left → the rest is **held** in the project while distributions are locked up, else "
    "**distributed** with the cash held before. **Tests** every 3 months from the first repayment month, on the "
    f"trailing {waterfall.TEST_WINDOW_MONTHS} months' DSCR: below the lock-up DSCR distributions lock up, and stay "
    f"locked until **{waterfall.RELEASE_TESTS} tests in a row** pass; below the covenant is a **covenant breach** "
    "(counted), which locks up too and sweeps **all** the surplus and the cash held into the senior loan until a "
    "test meets the covenant again."
)
TRANCHE_COLUMNS = {
    "name": st.column_config.TextColumn("Name", required=True, max_chars=40),
    "kind": st.column_config.SelectboxColumn("Kind", options=list(TRANCHE_KINDS), required=True),
    "share": st.column_config.NumberColumn("Share of capex", min_value=0.0, max_value=1.0, format="%.3f"),
    "rate_basis": st.column_config.SelectboxColumn("Rate", options=list(RATE_BASES)),
    "interest_rate": st.column_config.NumberColumn("Fixed rate", min_value=0.0, max_value=1.0, format="%.4f"),
    "spread": st.column_config.NumberColumn("Spread over SOFR", min_value=0.0, max_value=0.3, format="%.4f"),
    "credit_spreads": st.column_config.SelectboxColumn("Spread by credit", options=list(CREDIT_SPREAD_SETS)),
    "term_months": st.column_config.NumberColumn("Term [months]", min_value=1, max_value=360, step=1),
    "grace_months": st.column_config.NumberColumn("Grace [months]", min_value=0, max_value=120, step=1),
    "amortization": st.column_config.SelectboxColumn("Repayment", options=list(AMORTIZATIONS)),
    "upfront_fee_rate": st.column_config.NumberColumn("Fee", min_value=0.0, max_value=0.2, format="%.4f"),
    "finances_refresh": st.column_config.CheckboxColumn("Funds refreshes"),
}
PHASE_COLUMNS = {
    "share": st.column_config.NumberColumn("Share of the cluster", min_value=0.0, max_value=1.0, format="%.3f"),
    "delay_months": st.column_config.NumberColumn("Months after the first delivery", min_value=0.0, max_value=120.0),
}


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
    fin = get_scenario().financing
    field_input(
        "financing.sizing",
        "Senior loan sized on",
        options_labels={
            "dscr": "Contracts (sculpted)",
            "capex_share": "Debt share × capex",
            "contracted_revenue": "Contracted revenue ÷ target DSCR",
        },
    )
    if fin.sizing == "capex_share":
        field_input("financing.debt_share", "Debt share of capex [%]")
    else:
        field_input("financing.max_debt_share", "Maximum debt share of capex [%]")
    field_input("financing.interest_rate", "Interest rate [% per year]")
    field_input("financing.credit_spread", "Credit spread [% per year, on top]")
    field_input("financing.term_months", "Term from first draw [months]")
    field_input("financing.grace_months", "Grace, interest only [months]")
    if fin.sizing == "dscr":
        st.caption(
            "Sized on contracts: the senior loan's service is the contracted cash flow the forecast carries ÷ the "
            "target DSCR, month by month (sculpted), so it is repaid as the take-or-pay contracts pay."
        )
    else:
        field_input(
            "financing.amortization",
            "Repayment profile",
            options_labels={
                "annuity": "Annuity (level payments)",
                "straight_line": "Straight line (level principal)",
                "sculpted": "Sculpted to cash flow (CFADS)",
            },
        )
    field_input("financing.target_dscr", "Target DSCR [×]")
    field_input("financing.covenant_dscr", "Covenant DSCR [×]")
    field_input("financing.lockup_dscr", "Lock-up DSCR [×]")
    field_input("financing.cash_sweep_share", "Cash sweep [% of the surplus]")
    field_input("financing.dsra_months", "Debt service reserve [months]")
    if _sculpted() and fin.sizing == "capex_share":
        st.caption(
            "Sculpted: the loan is sized so that debt service = CFADS ÷ target DSCR repays it exactly at maturity "
            "(at most debt share × capex); each month's service is proportional to that month's CFADS, with no "
            "balloon. When the debt share is the smaller limit, the cover is above the target."
        )
    field_input("financing.upfront_fee_rate", "Upfront fee [% of debt]")
    field_input("financing.capitalize_idc", "Capitalise IDC")  # interest during construction (see help)
    tranches = lazy_expander("Tranches (senior, delayed draw, vendor, mezzanine)", "financing.tranches_open")
    if tranches.open:
        with tranches:
            table_field(
                "financing.tranches",
                "Tranches, most senior first",
                TRANCHE_COLUMNS,
                help_text="Empty: one senior loan of the fields above. The first tranche may leave its share empty "
                "(sized as above); a kind fills every term left empty from data/tranche_defaults.csv. Rates and "
                "shares as fractions (0.11 = 11 %).",
            )
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
    phases = lazy_expander("Phased build", "financing.phases_open")
    if phases.open:
        with phases:
            table_field(
                "timeline.phases",
                "Phases",
                PHASE_COLUMNS,
                help_text="Empty: the whole cluster at once. Shares add up to 1; the first phase's delay is 0. Capex, "
                "power, staff, opex and revenue follow each phase; each draws its own debt.",
            )

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
        first, end = finance.repayment_periods(result.ops.cash)
        t[2].metric(
            "Repayment",
            f"{int(first[0])}–{int(end[0]) - 1}" if drawn > 0 else fmt.NA,
            help="Months of repayment: first full operating month + grace, to the last month with debt service due "
            "(the end of the term, the horizon where any balance left is paid off, or sooner for a loan repaid as its "
            "contracts pay).",
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
                    ("debt_usd", result.lending["sentence"]),
                    ("covenant_breaches", f"Covenant {f.covenant_dscr:.2f}×."),
                    ("lockup_months", f"Lock-up below {f.lockup_dscr:.2f}×."),
                    ("payment_default_months", ""),
                    ("sponsor_cure_usd", ""),
                )
            ]
        ],
        font_rem=1.6,
        per_row=4,
    )
    st.caption(fmt.plain(result.lending["sentence"]))
    losses = result.tax_losses_carried_usd
    if losses > 1.0:
        st.caption(
            f"Tax losses still carried forward at the horizon: {fmt.usd(losses)}, worth "
            f"{fmt.usd(losses * f.tax_rate)} at the tax rate against later profits; the model does not value them "
            "(the cluster is sold at the horizon and no income inside it offsets them)."
        )
    cover = cover_by_year(result)
    if cover.empty:
        st.caption("No debt, so no debt cover to show.")
    else:
        st.markdown(
            f"**Debt cover by year of repayment** (12-month periods from the first repayment month, month "
            f"{int(np.ravel(result.ops.cash.debt.repay_start)[0])}, to the last month with debt service; covenant "
            f"{f.covenant_dscr:.2f}×, target {f.target_dscr:.2f}×)"
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
    close = lazy_expander("The debt at close, tranche by tranche", "financing.close_open")
    if close.open:
        terms = loan_at_close(result)
        close.dataframe(
            terms.assign(value=terms["value"].map(lambda v: "" if v is None else str(v)))[["label", "value", "unit"]],
            hide_index=True,
        )
    st.markdown(WATERFALL)
    st.caption(SWEEP)
    st.caption(CONVENTIONS)
    with st.expander("How this is computed"):
        st.markdown(finance.__doc__ or "")
