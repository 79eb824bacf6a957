"""Results: what the cluster costs per GPU-hour, what it returns, and when it pays back."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from neoplan import metrics
from neoplan.charts.finance import cash_flow_figure, margin_figure, tco_figure
from neoplan.charts.site import capex_sankey_figure
from neoplan.finance.statements import PNL_BOLD, PNL_LABELS, pnl_by_year
from neoplan.inputs.loading import scenario_json
from ui import format as fmt
from ui.state import evaluate_current, get_scenario
from ui.widgets import figure_tabs, metric_cards

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
result = evaluate_current()
gpus = f"{result.gpus:,} GPUs" if result is not None else "GPUs"  # as sized: a power plan's count is found
st.caption(
    f"**{fmt.plain(scenario.name)}**: {gpus} at "
    f"{fmt.usd_per_gpu_hour(scenario.pricing.usd_per_gpu_hour)} "
    f"and {fmt.pct(scenario.pricing.steady_utilization, 0)} utilization. Edit inputs on the Financing and "
    "Pricing & revenue pages; every figure here comes from the model's Result."
)

if result is not None:
    d = result.to_dict()
    hurdle = f"Hurdle rate {fmt.pct(scenario.financing.hurdle_rate)}."
    row1 = ["tco_usd_per_gpu_hour", "breakeven_usd_per_gpu_hour", "npv_usd", "project_irr", "equity_irr"]
    row2 = ["payback_months", "discounted_payback_months", "min_dscr", "gross_margin", "ebitda_margin", "equity_moic"]
    metric_cards(
        KPI_KEY,
        [
            [
                metrics.card(k, metrics.lookup(d, k), hurdle if k in ("npv_usd", "discounted_payback_months") else "")
                for k in row
            ]
            for row in (row1, row2)
        ],
        font_rem=1.4,
        per_row=4,  # five in a row are cut off below ~1,600 px
    )

    inputs = scenario_json(result.scenario)
    charts = [  # one figure drawn at a time
        ("TCO and the price path", tco_figure, "results_tco_chart"),
        ("Where the money goes", capex_sankey_figure, "results_sankey_chart"),
        ("Cash flow", cash_flow_figure, "results_cash_chart"),
        ("Margins", margin_figure, "results_margin_chart"),
    ]
    figure_tabs("results.tab", charts, result, inputs=inputs)

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
        figures = "\n".join(f"- **{metrics.METRICS[k].label}**: {metrics.METRICS[k].definition}" for k in row1 + row2)
        st.markdown(
            "- **Timeline**: monthly from the purchase order (month 0); revenue starts at go-live, after delivery, "
            "OEM integration burn-in, site install and on-site burn-in.\n"
            f"{figures}\n"
            "- **IRR**: annual = (1 + monthly IRR)¹² − 1; n/a when cash flows never change sign. NPV discounts "
            "month *t* at the monthly equivalent of the rate, month 0 undiscounted."
        )
