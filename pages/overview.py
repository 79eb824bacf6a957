"""Overview: the current scenario on one screen."""

from __future__ import annotations

import streamlit as st

from neoplan.charts import capex_figure
from ui import format as fmt
from ui.state import evaluate_current, get_scenario

scenario = get_scenario()
st.title("neoplan")
st.markdown(f"**{scenario.name}** — {scenario.description}")

result = evaluate_current()
if result is not None:
    capex = result.capex_by_category()
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("GPUs", f"{result.gpus:,}", help=result.platform.name)
    c2.metric("Servers", f"{result.servers:,}", help="Compute servers in service (hot spares excluded).")
    c3.metric("Node price", fmt.usd_exact(result.node_capex_usd), help="See the Compute node page.")
    c4.metric("Capex so far", fmt.usd(capex["total"]), help="Categories modelled so far; see the chart.")
    st.page_link("pages/compute_node.py", label="Edit the compute node →", icon=":material/memory:")
    st.plotly_chart(capex_figure(result), key="overview_capex")
    for warning in result.warnings:
        st.warning(warning)
