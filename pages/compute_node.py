"""Compute node: edit the HGX server's bill of materials and see what it costs."""

from __future__ import annotations

import streamlit as st

from neoplan import metrics
from neoplan.charts import node_bom_figure
from neoplan.pricebook import default_platforms
from neoplan.scenario import scenario_json
from ui import format as fmt
from ui.state import evaluate_current
from ui.widgets import chart, field_input

st.title("Compute node")
st.caption("One HGX server, line by line: counts from the options × unit prices from the price book.")

left, right = st.columns([1, 2], gap="large")
with left:
    st.subheader("Options")
    field_input("node.preset", "Preset", options_labels={"oem_default": "OEM default quote", "optimized": "Optimized"})
    platforms = default_platforms()
    field_input(
        "cluster.gpu_model",
        "GPU platform",
        options=list(platforms),
        options_labels={k: p.name for k, p in platforms.items()},
    )
    field_input("node.cpu_tier", "CPU tier", options_labels={"entry": "Entry", "mid": "Mid-range", "top": "Top bin"})
    field_input("node.cpu_sockets", "CPU sockets")
    field_input("node.ram_tb", "System memory [TB]", step=0.25)
    field_input("node.nvme_tb", "Local NVMe [TB]", step=7.68)
    field_input("node.dpus", "BlueField-3 DPUs [count]")
    field_input("node.frontend_nics", "ConnectX front-end NICs [count]")
    field_input("fabric.frontend.port_gbps", "Front-end port speed [Gbit/s]")
    field_input("fabric.nics_per_node", "Back-end NICs [count]")
    field_input("fabric.nic_gbps", "Back-end NIC speed [Gbit/s]")
    field_input("node.warranty_years", "Warranty [years]")
    st.divider()
    field_input("cluster.gpus", "GPUs in the cluster", step=8)
    field_input("cluster.hot_spare_share", "Hot spares [% of servers]", step=1.0)

result = evaluate_current()
if result is not None:
    with right:
        saving = result.node_saving_vs_oem_usd
        c1, c2, c3 = st.columns(3)
        label, value, help_text = metrics.card("node_capex_usd", result.node_capex_usd, "Line items below.")
        c1.metric(label, value, help=help_text)
        label, value, help_text = metrics.card("node_saving_vs_oem_usd", saving)
        c2.metric(
            label,
            value,
            delta=fmt.pct(saving / result.oem_default_node_capex_usd) if result.oem_default_node_capex_usd else None,
            help=help_text,
        )
        c3.metric(
            f"Saving over {result.servers + result.spare_servers:,} servers",
            fmt.usd(saving * (result.servers + result.spare_servers)),
            help="Per-server saving times servers bought (hot spares included).",
        )
        c4, c5, c6 = st.columns(3)
        label, value, help_text = metrics.card(
            "capex_usd.compute", result.capex_usd["compute"], "Servers in service plus hot spares × node price."
        )
        c4.metric(label, value, help=help_text)
        c5.metric("Servers + hot spares", f"{result.servers:,} + {result.spare_servers:,}")
        c6.metric(
            "Node price per GPU",
            fmt.usd_exact(result.node_capex_usd / result.platform.gpus_per_node),
            help="Node price divided by its GPUs.",
        )
        chart(node_bom_figure, result, inputs=scenario_json(result.scenario), key="node_bom_chart")
    st.subheader("Bill of materials, per server")
    table = result.bom_table()[["item", "quantity", "unit", "unit_price_usd", "total_usd", "basis", "key"]]
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "item": st.column_config.TextColumn("Item", width=320),
            "quantity": st.column_config.NumberColumn("Qty", width="small"),
            "unit": st.column_config.TextColumn("Unit", width="small"),
            "key": st.column_config.TextColumn("Price key", width="small"),
            "basis": st.column_config.TextColumn("Basis", width="small"),
            "unit_price_usd": st.column_config.NumberColumn("Unit price", format="dollar", step=1),
            "total_usd": st.column_config.NumberColumn("Total", format="dollar", step=1),
        },
    )
    st.caption(
        "Basis: **quoted** = public price, **estimate** = judgement, **fitted** = set to reproduce a "
        "calibration target, **override** = your price. Edit data/prices/*.csv to change defaults."
    )
