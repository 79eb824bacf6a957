"""Results: what the cluster costs per GPU-hour, what it returns, and when it pays back."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from neoplan.charts.finance import PNL_BOLD, PNL_LABELS, cash_flow_figure, margin_figure, pnl_by_year, tco_figure
from neoplan.scenario import scenario_json
from ui import format as fmt
from ui.state import evaluate_current, get_scenario
from ui.widgets import chart, metric_cards

KPI_KEY = "results_kpis"
MARGIN_ROWS = [PNL_LABELS[k] for k in ("gross_margin", "ebitda_margin", "net_margin")]
BOLD_ROWS = [PNL_LABELS[k] for k in PNL_BOLD]


def pnl_styler(pnl: pd.DataFrame) -> pd.io.formats.style.Styler:
    """P&L with line items as rows and project years as columns, money and margins formatted."""
    table = pnl.T.rename(index=PNL_LABELS)
    money_rows = [r for r in table.index if r not in MARGIN_ROWS]
    return (
        table.style.format(fmt.usd, subset=pd.IndexSlice[money_rows, :])
        .format(fmt.pct, subset=pd.IndexSlice[MARGIN_ROWS, :])
        .set_properties(subset=pd.IndexSlice[BOLD_ROWS, :], **{"font-weight": "bold"})
    )


st.title("Results")
scenario = get_scenario()
st.caption(
    f"**{fmt.plain(scenario.name)}**: {scenario.cluster.gpus:,} GPUs at "
    f"{fmt.usd_per_gpu_hour(scenario.pricing.usd_per_gpu_hour)} "
    f"and {fmt.pct(scenario.pricing.utilization, 0)} utilization. Edit inputs on the Financing and "
    "Pricing & revenue pages; every figure here comes from the model's Result."
)

result = evaluate_current()
if result is not None:
    k = result.kpis
    hurdle = fmt.pct(scenario.financing.hurdle_rate)
    metric_cards(
        KPI_KEY,
        [
            [
                ("TCO / GPU-h", fmt.usd_per_gpu_hour(k["tco_usd_per_gpu_hour"]),
                 "Fully loaded cost per sold GPU-hour at this utilization: "
                 "capital recovered at the hurdle rate + opex."),
                ("Break-even price", fmt.usd_per_gpu_hour(k["breakeven_usd_per_gpu_hour"]),
                 "Headline price at which project NPV at the hurdle rate is zero."),
                ("NPV", fmt.usd(k["npv_usd"]), f"Project cash flow discounted at the hurdle rate ({hurdle})."),
                ("Project IRR", fmt.pct(k["project_irr"]), "Annual IRR of unlevered cash flow."),
                ("Equity IRR", fmt.pct(k["equity_irr"]), "Annual IRR of cash to equity."),
            ],
            [
                ("Payback", fmt.months(k["payback_months"]),
                 "Months from the purchase order until cumulative project cash turns positive; n/a = not in horizon."),
                ("Min DSCR", fmt.ratio(k["min_dscr"]),
                 "Lowest CFADS / debt service over 12-month periods of operation; n/a = no debt."),
                ("Gross margin", fmt.pct(k["gross_margin"]),
                 "1 − (power, colocation, hardware support, software) / revenue, over the horizon."),
                ("EBITDA margin", fmt.pct(k["ebitda_margin"]), "EBITDA / revenue over the horizon."),
                ("Equity MOIC", fmt.ratio(k["equity_moic"]), "Cash returned to equity / cash put in."),
            ],
        ],
        font_rem=1.4,
        per_row=4,  # five in a row are cut off below ~1,600 px
    )

    inputs = scenario_json(result.scenario)
    chart(tco_figure, result, inputs=inputs, key="results_tco_chart")
    chart(cash_flow_figure, result, inputs=inputs, key="results_cash_chart")
    chart(margin_figure, result, inputs=inputs, key="results_margin_chart")

    st.subheader("Profit and loss by project year")
    st.caption(
        "Y1 = months 0–11 after the purchase order (construction included). Costs are negative. Cost of revenue = "
        "power, colocation, hardware support and software; other opex = staff, insurance, transit and SG&A."
    )
    pnl = pnl_by_year(result)
    st.dataframe(pnl_styler(pnl), height=35 * (len(pnl.columns) + 1) + 3, key="results_pnl_table")

    monthly = result.monthly_table()
    stem = "".join(ch if ch.isalnum() else "_" for ch in scenario.name.lower()).strip("_") or "scenario"
    st.download_button(
        "⬇ Monthly table (CSV)",
        monthly.to_csv(index=False),
        file_name=f"{stem}_monthly.csv",
        mime="text/csv",
        key="results_download_monthly",
        help="One row per month: revenue, opex by category, P&L, capex, debt and cash flows [USD]. "
        "Cash columns are signed: outflows negative.",
    )
    with st.expander("How this is computed"):
        st.markdown(
            """
- **Timeline**: monthly from the purchase order (month 0); revenue starts at go-live, after delivery,
  OEM integration burn-in, site install and on-site burn-in.
- **TCO / GPU-h**: present value of capex (less the residual) and opex (before SG&A) divided by the present
  value of sold GPU-hours, both at the hurdle rate.
- **Break-even price**: the headline price at which project NPV at the hurdle rate is zero (all else equal).
- **NPV**: project free cash flow (after project-level tax, before financing), month 0 undiscounted.
- **IRR**: annual = (1 + monthly IRR)¹² − 1; n/a when cash flows never change sign.
- **Payback**: months until cumulative project cash first turns positive (linear within the month).
- **DSCR**: CFADS (EBITDA − tax) / scheduled debt service, per 12 months from the first full operating month.
- **Margins**: totals over the horizon; gross margin counts power, colocation, hardware support and software
  as cost of revenue. **MOIC**: cash returned to equity / cash put in.
"""
        )
