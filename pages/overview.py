"""Overview: the current scenario on one screen — what it is, what it costs, what it returns."""

from __future__ import annotations

import streamlit as st

from neoplan.charts.finance import cash_flow_figure, tco_figure
from neoplan.charts.site import capex_treemap_figure
from neoplan.costs import share_by_basis
from neoplan.scenario import scenario_json
from ui import format as fmt
from ui.state import evaluate_current, get_scenario
from ui.widgets import chart, compact_metrics

scenario = get_scenario()
st.title("neoplan")
about = f" — {fmt.plain(scenario.description)}" if scenario.description else ""
st.markdown(f"**{fmt.plain(scenario.name)}**{about}")

result = evaluate_current()
if result is None:
    st.stop()

k = result.kpis
with st.container(border=True):
    st.caption("CLUSTER")
    c = st.columns(5)
    c[0].metric("GPUs", f"{result.gpus:,}", help=result.platform.name)
    c[1].metric("Servers", f"{result.servers:,}",
                help=f"HGX servers in service, plus {result.spare_servers} hot spares.")
    c[2].metric("Node price", fmt.usd_exact(result.node_capex_usd), help="One server, line by line: Compute node page.")
    c[3].metric("Power (IT peak)", fmt.mw(result.facility.it_peak_kw),
                help=f"Facility peak with PUE {result.facility.pue:g}: {fmt.mw(result.facility.facility_peak_kw)}.")
    c[4].metric("Racks", f"{result.facility.racks:,}", help="Compute, network, storage and management racks.")

KPIS = [
    # (label, value, help, page that explains it)
    ("Capex", fmt.usd(result.capex_total_usd), "Everything bought up front.", "pages/storage_site.py"),
    ("Capex per GPU", fmt.usd_exact(result.capex_per_gpu_usd), "Total capex ÷ GPUs in service.",
     "pages/storage_site.py"),
    ("TCO", fmt.usd_per_gpu_hour(k["tco_usd_per_gpu_hour"]),
     "Levelised cost per sold GPU-hour: capital recovered at the hurdle rate plus opex.", "pages/results.py"),
    ("Break-even price", fmt.usd_per_gpu_hour(k["breakeven_usd_per_gpu_hour"]),
     "Go-live headline price at which project NPV at the hurdle rate is zero.", "pages/pricing.py"),
    ("Project IRR", fmt.pct(k["project_irr"]), "Annual IRR of the unlevered after-tax cash flow.", "pages/results.py"),
    ("Equity IRR", fmt.pct(k["equity_irr"]), "Annual IRR of the cash flow to equity after debt.",
     "pages/financing.py"),
    ("Payback", fmt.months(k["payback_months"]), "From purchase order until cumulative project cash turns positive.",
     "pages/results.py"),
    ("Min DSCR", fmt.ratio(k["min_dscr"]), "Lowest yearly debt-service cover (CFADS ÷ debt service).",
     "pages/financing.py"),
]
compact_metrics("overview_headline", 1.6)  # "$3.23 /GPU-h" fits four to a row at 1,280 px
with st.container(border=True, key="overview_headline"):
    st.caption(f"HEADLINE at {fmt.usd_per_gpu_hour(scenario.pricing.usd_per_gpu_hour)} and "
               f"{fmt.pct(scenario.pricing.utilization, 0)} utilization")
    for row in (KPIS[:4], KPIS[4:]):
        cols = st.columns(4)
        for col, (label, value, help_text, page) in zip(cols, row, strict=True):
            col.metric(label, value, help=help_text)
            col.page_link(page, label="Explain →")

left, mid = st.columns(2)
inputs = scenario_json(result.scenario)
chart(capex_treemap_figure, result, inputs=inputs, key="overview.capex", where=left)
chart(tco_figure, result, inputs=inputs, key="overview.tco", where=mid)
chart(cash_flow_figure, result, inputs=inputs, key="overview.cash")

parts = ", ".join(f"{fmt.pct(share, 0)} {name}" for name, share in share_by_basis(result.capex_lines).items())
st.caption(
    f"Capex by price basis: {parts}. **quoted** = public price, **estimate** = judgement, **fitted** = set to "
    "reproduce a calibration target of the SemiAnalysis article, **override** = your price. Sources and dates: "
    "data/prices/*.csv, or the Export page's workbook."
)
for warning in result.warnings:
    st.warning(fmt.plain(warning))
