"""Network: design the back-end fabric, front end and out-of-band, and compare the back-end designs."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from neoplan.charts import LAYOUT, PALETTE
from neoplan.fabric import default_network_catalogue, design_options, topology_picture
from ui import format as fmt
from ui.state import evaluate_current
from ui.widgets import field_input

TOPOLOGY_LABELS = {
    "reference": "Reference (NVIDIA RA, optics everywhere)",
    "tor": "Top-of-rack",
    "vms": "Virtual modular switch",
    "modular": "Modular chassis (CS9500 class)",
}
SHORT_LABELS = {
    "reference": "Reference",
    "tor": "Top-of-rack",
    "vms": "VMS 1:1",
    "vms_2to1": "VMS 2:1",
    "modular": "Modular",
}
TIER_COLOURS = {"server": "#b0b7c3", "leaf": "#2a9d8f", "spine": "#264653", "chassis": "#e76f51", "core": "#e9c46a"}


def options_figure(options) -> go.Figure:
    """Back-end capex per design with Δ vs reference as bar text [USD]."""
    ok = [o for o in options if o.feasible]
    fig = go.Figure(
        go.Bar(
            x=[SHORT_LABELS.get(o.name, o.label) for o in ok],
            y=[o.capex_usd for o in ok],
            text=["baseline" if o.name == "reference" else fmt.pct(o.delta_vs_reference) for o in ok],
            textposition="outside",
            marker_color=[PALETTE["oem"] if o.name == "reference" else PALETTE["this"] for o in ok],
            customdata=[[o.spine_gbps_per_gpu, o.spine_switches, o.transceivers] for o in ok],
            hovertemplate="%{x}<br>$%{y:,.0f}<br>%{customdata[0]:,.0f} Gbit/s per GPU across spines"
            "<br>%{customdata[1]} spines · %{customdata[2]:,} transceivers<extra></extra>",
        )
    )
    fig.update_layout(title="Back-end capex by design (hardware)", yaxis_title="USD", **LAYOUT)
    return fig


def topology_figure(picture: dict) -> go.Figure:
    """Simplified drawing of the back end: a sample of each tier and how it connects."""
    pos = {n["id"]: (n["x"], n["y"]) for n in picture["nodes"]}
    xs: list[float | None] = []
    ys: list[float | None] = []
    for e in picture["edges"]:
        (x0, y0), (x1, y1) = pos[e["source"]], pos[e["target"]]
        xs += [x0, x1, None]
        ys += [y0, y1, None]
    fig = go.Figure(
        go.Scatter(x=xs, y=ys, mode="lines", line={"color": "#cfd4dc", "width": 1}, hoverinfo="skip", showlegend=False)
    )
    totals, shown = picture["totals"], picture["shown"]
    for tier, colour in TIER_COLOURS.items():
        nodes = [n for n in picture["nodes"] if n["tier"] == tier]
        if not nodes:
            continue
        fig.add_scatter(
            x=[n["x"] for n in nodes],
            y=[n["y"] for n in nodes],
            mode="markers",
            marker={"size": 14 if tier != "chassis" else 28, "color": colour, "symbol": "square"},
            name=f"{tier}: {shown[tier]:,} of {totals[tier]:,} shown",
            text=[n["label"] for n in nodes],
            hovertemplate="%{text}<extra></extra>",
        )
    fig.update_layout(
        title="Back-end topology (a sample of each tier)",
        xaxis={"visible": False},
        yaxis={"visible": False},
        legend={"orientation": "h", "y": -0.05},
        **LAYOUT,
    )
    return fig


st.title("Network")
st.caption(
    "Back end (GPU fabric), front end (Ethernet) and out-of-band (1 GbE): switches, links, optics and cables "
    "counted from the design, times unit prices from the price book."
)

left, right = st.columns([1, 2], gap="large")
with left:
    st.subheader("Back end")
    field_input("fabric.topology", "Design", options_labels=TOPOLOGY_LABELS)
    field_input("fabric.oversubscription", "Oversubscription at the leaf [N:1]", step=0.5)
    field_input("fabric.nics_per_node", "Back-end NICs per server")
    field_input("fabric.nic_gbps", "NIC speed [Gbit/s]")
    switches = {
        k: it for k, it in default_network_catalogue().items() if it.role == "switch" and it.family in ("ndr", "xdr")
    }
    field_input(
        "fabric.switch_model",
        "Switch",
        options=list(switches),
        options_labels={k: it.name for k, it in switches.items()},
    )
    field_input("fabric.servers_per_su", "Servers per scalable unit")
    field_input(
        "fabric.leaf_spine_cable",
        "Leaf→spine copper (vms)",
        options_labels={"dac": "Passive DAC", "acc": "Active copper (ACC)"},
    )
    field_input(
        "fabric.subnet_manager", "Subnet manager", options_labels={"ufm": "UFM (licence per NIC)", "opensm": "OpenSM"}
    )
    st.subheader("Front end and out-of-band")
    field_input("fabric.frontend.port_gbps", "Front-end port speed [Gbit/s]")
    field_input("fabric.frontend.ports_per_node", "Front-end ports per server")
    field_input(
        "fabric.frontend.switch_class",
        "Front-end switches",
        options_labels={"generic": "Generic Ethernet", "spectrum": "NVIDIA Spectrum"},
    )
    field_input(
        "fabric.oob.switch_class",
        "Out-of-band switches",
        options_labels={"generic": "Generic 1 GbE", "spectrum": "NVIDIA SN2201"},
    )
    st.divider()
    field_input("cluster.gpus", "GPUs in the cluster", step=8)

result = evaluate_current()
if result is not None:
    fabric = result.fabric
    b, fe, oob = fabric.backend, fabric.frontend, fabric.oob
    with right:
        backend_usd = fabric.capex_usd("backend_network")
        spines_label = "Modular chassis" if b.chassis else "Spine switches"
        metrics = [
            ("Back-end capex", fmt.usd(backend_usd), "Switches, optics and cables of the GPU fabric (hardware)."),
            ("Back end per server", fmt.usd_exact(backend_usd / result.servers), "Back-end capex ÷ servers."),
            ("Bandwidth per GPU", f"{b.injection_gbps_per_gpu:,.0f} Gbit/s", "NICs × NIC speed ÷ GPUs per server."),
            (
                "Across spines per GPU",
                f"{b.spine_gbps_per_gpu:,.0f} Gbit/s",
                "What each GPU gets when every GPU sends across pods: injection ÷ oversubscription (and taper).",
            ),
            ("Leaf switches", fmt.count(b.leaf_switches), None),
            (spines_label, fmt.count(b.chassis or b.spine_switches), f"{b.tiers} switch tier(s)."),
            ("Core switches", fmt.count(b.core_switches), None),
            ("Transceivers", fmt.count(b.transceivers), "Server-side single-port plus switch-side twin-port."),
            ("Cables", fmt.count(b.cables), "Fibres, DACs, DAC splitters and ACCs."),
            (
                "Front-end capex",
                fmt.usd(fabric.capex_usd("frontend_network")),
                f"{fe.switches:,} switches, {fe.transceivers:,} transceivers.",
            ),
            ("Front end per GPU", f"{fe.gbps_per_gpu:,.0f} Gbit/s", "The article: 25–50 Gbit/s per GPU is plenty."),
            (
                "Out-of-band capex",
                fmt.usd(fabric.capex_usd("oob_network")),
                f"{oob.ports:,} ports, {oob.switches:,} switches.",
            ),
            ("UFM licences", fmt.count(fabric.ufm_licences), "One per back-end NIC endpoint; none with OpenSM."),
            ("Network racks", fmt.count(b.network_racks + fe.network_racks), "Back-end and front-end switch racks."),
            ("Network power", f"{sum(fabric.power_kw.values()):,.1f} kW", "Switches and optics of all three networks."),
        ]
        for row in range(0, len(metrics), 3):
            for col, (label, value, help_text) in zip(st.columns(3), metrics[row : row + 3], strict=False):
                col.metric(label, value, help=help_text)
        for warning in fabric.warnings:
            st.warning(warning)

        st.subheader("Compare back-end designs")
        options = design_options(result.scenario, result.book)
        st.plotly_chart(options_figure(options), key="network_options_chart")
        st.dataframe(
            [
                {
                    "Design": o.label,
                    "Capex": o.capex_usd,
                    "Δ vs reference": None if o.delta_vs_reference is None else o.delta_vs_reference * 100,
                    "Leaves": o.leaf_switches,
                    "Spines": o.spine_switches or o.chassis,
                    "Cores": o.core_switches,
                    "Transceivers": o.transceivers,
                    "Cables": o.cables,
                    "Gbit/s per GPU across spines": o.spine_gbps_per_gpu,
                    "Power [kW]": o.power_kw,
                    "Note": o.error,
                }
                for o in options
            ],
            hide_index=True,
            column_config={
                "Capex": st.column_config.NumberColumn(format="dollar"),
                "Δ vs reference": st.column_config.NumberColumn(format="%.1f %%"),
                "Power [kW]": st.column_config.NumberColumn(format="%.1f"),
                "Gbit/s per GPU across spines": st.column_config.NumberColumn(format="%.0f"),
            },
            key="network_options_table",
        )
        for o in options:
            with st.expander(f"Caveats — {o.label}"):
                for caveat in o.caveats:
                    st.markdown(f"- {caveat}")

        st.subheader("Topology")
        st.plotly_chart(topology_figure(topology_picture(b, max_per_tier=16, servers_shown=4)), key="network_topology")

        st.subheader("Bill of materials")
        st.dataframe(
            [ln.as_record() for ln in fabric.lines],
            hide_index=True,
            column_config={
                "unit_price_usd": st.column_config.NumberColumn("Unit price", format="dollar"),
                "total_usd": st.column_config.NumberColumn("Total", format="dollar"),
            },
            key="network_bom_table",
        )
