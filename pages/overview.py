"""Overview: the current scenario on one screen — what it is, what it costs, what it returns."""

from __future__ import annotations

import streamlit as st

from neoplan import metrics
from neoplan.analysis.alerts import alerts
from neoplan.charts.finance import cash_flow_figure, tco_figure
from neoplan.charts.site import capex_treemap_figure
from neoplan.design.costs import share_by_basis
from neoplan.inputs.loading import scenario_json
from ui import format as fmt
from ui.labels import humanize
from ui.power import power_plan_input
from ui.state import evaluate_current, get_scenario
from ui.widgets import compact_metrics, figure_tabs, metric_cards

PAGE_TITLES = {"pages/financing.py": "Financing", "pages/pricing.py": "Pricing & revenue"}

scenario = get_scenario()
st.title("neoplan")
result = evaluate_current()
described = result.scenario if result is not None else scenario  # as sized (a power plan's GPU count is found)
about = f" — {fmt.plain(described.description)}" if described.description else ""
st.markdown(f"**{fmt.plain(scenario.name)}**{about}")

for alert in alerts(result) if result is not None else ():  # what a lender stops at first, above every other notice
    with st.container(border=True, key=f"overview_alert_{alert.key}"):
        st.warning(f"**{alert.title}.** {fmt.plain(alert.reason)}", icon=":material/report:")
        st.page_link(alert.page, label=f"Why: {PAGE_TITLES.get(alert.page, 'explain')} →")
with st.container(border=True, key="overview_power"):
    st.caption("PLAN FROM POWER")
    entry, figures = st.columns([1, 3], gap="large")
    power_plan_input(result, entry)
if result is None:
    st.stop()

d = result.to_dict()
POWER_HEADLINE = (
    "gpus",
    "racks",
    "it_power_peak_kw",
    "it_power_left_kw",
    "tokens_per_second_per_mw",
    "revenue_usd_per_mw_year",
)
with figures:
    if result.envelope is not None:
        metric_cards("overview_power_cards", [metrics.cards(d, POWER_HEADLINE)], font_rem=1.3, per_row=3)
        st.caption(fmt.plain(result.envelope.sentence()))
    else:
        st.caption(
            "Sized by GPU count. Switch on **Plan from power** to build the largest design whose peak IT load "
            "(servers, network, storage, management, cooling pumps) fits the MW the site can deliver."
        )
compact_metrics("overview_cluster", 1.9)  # an NVL72 rack's "$3,194,100" fits five to a row at 1,280 px
with st.container(border=True, key="overview_cluster"):
    st.caption("CLUSTER")
    c = st.columns(5)
    p = result.platform
    spares = f" Plus {result.spare_servers} hot spares." if result.spare_servers else ""
    facility = f"Facility peak with PUE {result.facility.pue:g}: {fmt.mw(result.facility.facility_peak_kw)}."
    trays = f" {result.servers * p.compute_trays:,} compute trays ({p.compute_trays} per rack)." if p.rack_scale else ""
    notes = {
        "gpus": p.name,
        "servers": trays + spares,
        "node_capex_usd": "Line by line: Compute node page." + (" One NVL72 rack." if p.rack_scale else ""),
        "it_power_peak_kw": facility,
    }
    for col, key in zip(c, ("gpus", "servers", "node_capex_usd", "it_power_peak_kw", "racks"), strict=True):
        label, value, help_text = metrics.card(key, metrics.lookup(d, key), notes.get(key, ""))
        if p.rack_scale and key in ("servers", "node_capex_usd"):
            label = {"servers": "NVL72 racks", "node_capex_usd": "Rack price"}[key]
        col.metric(label, value, help=help_text)

selling_tokens = scenario.pricing.sell == "tokens" and d["usd_per_million_tokens"] is not None
UNIT_COST = (
    ("cost_usd_per_million_tokens", "breakeven_usd_per_million_tokens")
    if selling_tokens
    else ("tco_usd_per_gpu_hour", "breakeven_usd_per_gpu_hour")
)
HEADLINE = (
    "capex_usd.total",
    "capex_per_gpu_usd",
    *UNIT_COST,
    "project_irr",
    "equity_irr",
    "payback_months",
    "min_dscr",
)
KPIS = [(key, *metrics.card(key, metrics.lookup(d, key)), metrics.METRICS[key].page) for key in HEADLINE]
price = (
    f"{metrics.text('usd_per_million_tokens', d['usd_per_million_tokens'])} ({d['serving']['workload']})"
    if selling_tokens
    else fmt.usd_per_gpu_hour(scenario.pricing.usd_per_gpu_hour)
)
compact_metrics("overview_headline", 1.6)  # "$3.23 /GPU-h" fits four to a row at 1,280 px
with st.container(border=True, key="overview_headline"):
    st.caption(f"HEADLINE at {price} and {fmt.pct(scenario.pricing.steady_utilization, 0)} utilization")
    for row in (KPIS[:4], KPIS[4:]):
        cols = st.columns(4)
        for col, (key, label, value, help_text, page) in zip(cols, row, strict=True):
            note = d["irr_notes"].get(key)
            col.metric(label, value, help=help_text if note is None else f"{help_text} {fmt.plain(note)}")
            if note is not None:  # the IRR of these flows is no return to rank by: say so beside it
                col.caption(f"Not meaningful: {fmt.plain(note.removeprefix('not meaningful: '))}")
            col.page_link(page, label="Explain →")
    st.caption(f"**Debt.** {fmt.plain(result.lending['sentence'])}")  # how much was lent at close, and why

# One chart at a time: the browser draws only the open tab's.
inputs = scenario_json(result.scenario)
tabs = [
    ("TCO and the price path", tco_figure, "overview.tco"),
    ("Capex", capex_treemap_figure, "overview.capex"),
    ("Cash flow", cash_flow_figure, "overview.cash"),
]
figure_tabs("overview.tab", tabs, result, inputs=inputs)

parts = ", ".join(f"{fmt.pct(share, 0)} {name}" for name, share in share_by_basis(result.capex_lines).items())
st.caption(
    f"Capex by price basis: {parts}. **quoted** = public price, **estimate** = judgement, **fitted** = set to "
    "reproduce a calibration target of the SemiAnalysis article, **override** = your price. Sources and dates: "
    "data/prices/*.csv, or the Export page's workbook."
)
for warning in result.warnings:
    st.warning(fmt.plain(humanize(warning)))
