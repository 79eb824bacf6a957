"""Network: design the back-end fabric, front end and out-of-band, and compare the back-end designs."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from neoplan import Result, metrics
from neoplan.charts.network import SHORT_LABELS, options_figure, topology_figure
from neoplan.design.fabric import (
    AUTO_SWITCH,
    IB_FAMILIES,
    SPECTRUM_X_FAMILIES,
    DesignOption,
    default_network_catalogue,
    design_options,
    topology_picture,
    with_scenario_design,
)
from neoplan.frozen import freeze
from neoplan.inputs.categories import CAPEX_LABELS, short_labels
from neoplan.inputs.fields import TOPOLOGY_LABELS
from neoplan.inputs.hardware import Fabric
from neoplan.inputs.loading import scenario_json
from neoplan.inputs.platforms import FULL_NICS
from neoplan.inputs.pricebook import default_platforms
from ui import format as fmt
from ui.labels import humanize
from ui.power import gpus_input, show_sized_gpus
from ui.state import evaluate_current, get_scenario
from ui.widgets import chart, compact_metrics, field_input, lazy_expander

GENERATIONS = {400: "400G (NDR, CX-7)", 800: "800G (XDR, CX-8)"}  # short enough to show whole at 1,280 px
DESIGNS = {k: label if k == "reference" else label.split(" (")[0] for k, label in TOPOLOGY_LABELS.items()}
OOB_SHARING = {
    None: "As many racks as the ports fit",
    1: "One switch in every rack",
    2: "One per 2 racks",
    4: "One per 4 racks",
    8: "One per 8 racks",
}
NETWORK_NAMES = {**CAPEX_LABELS, **short_labels("capex")}  # Back-end, …, Management (data/categories.csv)
HIGHLIGHT = "background-color: #fdebe5; font-weight: bold"
BACKEND_FAMILIES = IB_FAMILIES + SPECTRUM_X_FAMILIES


@st.cache_resource(max_entries=32, show_spinner=False)
def cached_options(scenario_text: str, _result: Result) -> list[DesignOption]:
    """``design_options`` of ``_result``'s scenario (JSON ``scenario_text``): five fabrics sized and priced."""
    return freeze(design_options(_result.scenario, _result.book))


def design_label(option: DesignOption, chosen: str) -> str:
    """A design's name for the comparison table, the scenario's own marked ``➜ … (yours)``."""
    short = SHORT_LABELS.get(option.name, option.label)
    return f"➜ {short} (yours)" if option.name == chosen else short


st.title("Network")
st.caption(
    "Back end (GPU fabric), front end (Ethernet) and out-of-band (1 GbE): switches, links, optics and cables "
    "counted from the design, times unit prices from the price book."
)


def _switch_input(fabric: Fabric) -> None:
    """The back-end switch: the families of the chosen fabric (Spectrum-X Ethernet or InfiniBand), and the
    scenario's own choice whatever it is (the design says what is wrong with it)."""
    families = SPECTRUM_X_FAMILIES if fabric.topology == "spectrum_x" else IB_FAMILIES
    catalogue = default_network_catalogue()
    switches = {k: it for k, it in catalogue.items() if it.role == "switch" and it.family in BACKEND_FAMILIES}
    shown = [k for k, it in switches.items() if it.family in families or k == fabric.switch_model]
    field_input(
        "fabric.switch_model",
        "Switch",
        options=[AUTO_SWITCH, *shown],
        options_labels={AUTO_SWITCH: "Auto (by design and generation)"} | {k: switches[k].name for k in shown},
    )


left, right = st.columns([1, 2], gap="large")
with left:
    st.subheader("Back end")
    fab = get_scenario().fabric
    platform = default_platforms().get(get_scenario().cluster.gpu_model)
    field_input("fabric.topology", "Design", options_labels=DESIGNS)
    field_input("fabric.oversubscription", "Oversubscription at the leaf [N:1]")
    if platform is not None and platform.rack_scale and fab.nics_per_node == FULL_NICS:  # fixed by the tray
        per_tray = platform.scaleout_nics_per_tray
        st.caption(f"Back-end NICs: {per_tray} per compute tray, one per GPU, fixed by the tray.")
    else:
        field_input("fabric.nics_per_node", "Back-end NICs per server")
    field_input("fabric.nic_gbps", "Generation (NIC speed)", options_labels=GENERATIONS)
    _switch_input(fab)
    field_input("fabric.servers_per_su", "Servers per scalable unit")
    if fab.topology == "vms":  # the copper between a virtual modular switch's leaves and spines
        field_input(
            "fabric.leaf_spine_cable",
            "Leaf→spine copper (vms)",
            options_labels={"dac": "Passive DAC", "acc": "Active copper (ACC)"},
        )
    if fab.topology != "spectrum_x":  # Ethernet (RoCE) has no InfiniBand subnet manager
        field_input(
            "fabric.subnet_manager",
            "Subnet manager",
            options_labels={"ufm": "UFM (licence per NIC)", "opensm": "OpenSM"},
        )
    else:
        st.caption("Spectrum-X is Ethernet (RoCE): no InfiniBand subnet manager (UFM or OpenSM) to choose.")
    st.subheader("Front end and out-of-band")
    field_input("fabric.frontend.port_gbps", "Front-end port speed [Gbit/s]")
    field_input("fabric.frontend.ports_per_node", "Front-end ports per server")
    field_input(
        "fabric.frontend.switch_class",
        "Front-end switches",
        options_labels={"generic": "Generic Ethernet", "spectrum": "NVIDIA Spectrum"},
    )
    field_input("fabric.frontend.oversubscription", "Front-end oversubscription [N:1]")
    field_input(
        "fabric.frontend.server_cable",
        "Server → front-end leaf",
        options_labels={"optics": "Optics (leaves in network racks)", "dac": "Copper DAC (top-of-rack leaf)"},
    )
    field_input("fabric.frontend.match_storage_ports", "Front-end ports as fast as the storage NICs")
    field_input(
        "fabric.oob.switch_class",
        "Out-of-band switches",
        options_labels={"generic": "Generic 1 GbE", "spectrum": "NVIDIA SN2201"},
    )
    field_input(
        "fabric.oob.racks_per_switch",
        "Compute racks per OOB switch",
        options=list(OOB_SHARING),
        options_labels=OOB_SHARING,
    )
    st.divider()
    gpus_box = gpus_input()

result = evaluate_current()
show_sized_gpus(gpus_box, result)
if result is not None:
    fabric = result.fabric
    b, fe, oob = fabric.backend, fabric.frontend, fabric.oob
    unit_name = "compute tray" if b.gpus_per_node != result.scenario.cluster.gpus_per_node else "server"
    node = fmt.node_word(result.platform.rack_scale)
    switch = default_network_catalogue()[b.items["switch"]]
    storage_gbps = fe.storage_port_gbps or fe.port_gbps
    with right:
        backend_usd = fabric.capex_usd("backend_network")
        spines_label = "Modular chassis" if b.chassis else "Spine switches"
        cards = [
            metrics.card("capex_usd.backend_network", backend_usd, "Switches, optics and cables.", short=True),
            (
                f"Back end per {node}",
                fmt.usd_exact(backend_usd / result.servers),
                f"Back-end capex ÷ {fmt.node_word(result.platform.rack_scale, plural=True)}.",
            ),
            (
                "Bandwidth per GPU",
                f"{b.injection_gbps_per_gpu:,.0f} Gbit/s",
                "NICs × NIC speed ÷ GPUs per server (per compute tray for NVL72).",
            ),
            (
                "Across spines per GPU",
                f"{b.spine_gbps_per_gpu:,.0f} Gbit/s",
                "What each GPU gets when every GPU sends across pods: injection ÷ oversubscription (and taper).",
            ),
            ("Leaf switches", fmt.count(b.leaf_switches), None),
            (spines_label, fmt.count(b.chassis or b.spine_switches), f"{b.tiers} switch tier(s)."),
            ("Core switches", fmt.count(b.core_switches), None),
            (
                "Switch",
                switch.model,
                f"{switch.short_name}: {switch.name}. {b.rails_per_leaf} rail(s) per leaf; {b.endpoints:,} NIC "
                f"endpoints on {b.servers:,} {unit_name}s.",
            ),
            ("Transceivers", fmt.count(b.transceivers), "Server-side single-port plus switch-side twin-port."),
            ("Cables", fmt.count(b.cables), "Fibres, DACs, DAC splitters and ACCs."),
            metrics.card(
                "capex_usd.frontend_network",
                fabric.capex_usd("frontend_network"),
                f"{fe.switches:,} switches, {fe.transceivers:,} transceivers.",
                short=True,
            ),
            ("Front end per GPU", f"{fe.gbps_per_gpu:,.0f} Gbit/s", "The article: 25–50 Gbit/s per GPU is plenty."),
            (
                "Storage read",
                f"{result.storage.read_gbyte_per_s:,.0f} GB/s",
                f"{result.storage.servers} storage servers on {storage_gbps}G ports: throughput is capped by the "
                "ports they plug into.",
            ),
            metrics.card(
                "capex_usd.oob_network",
                fabric.capex_usd("oob_network"),
                f"{oob.ports:,} ports, {oob.switches:,} switches ({oob.rack_access_switches:,} in compute racks, "
                f"{oob.racks_per_switch or 0} rack(s) each).",
                short=True,
            ),
            (
                "UFM licences",
                fmt.count(fabric.ufm_licences),
                "One per InfiniBand NIC endpoint; none with OpenSM or Spectrum-X.",
            ),
            ("Network racks", fmt.count(b.network_racks + fe.network_racks), "Back-end and front-end switch racks."),
            ("Network power", f"{sum(fabric.power_kw.values()):,.1f} kW", "Switches and optics of all three networks."),
        ]
        compact_metrics("network_cards", 1.6)  # "SN5600 · 128×400G" fits a third of the column at 1,280 px
        with st.container(key="network_cards"):
            for row in range(0, len(cards), 3):
                for col, (label, value, help_text) in zip(st.columns(3), cards[row : row + 3], strict=False):
                    col.metric(label, value, help=help_text)
        for warning in fabric.warnings:
            st.warning(fmt.plain(humanize(warning)))

    st.subheader("Compare back-end designs")
    options, chosen = with_scenario_design(
        result.scenario, result.fabric.backend, result.book, cached_options(scenario_json(result.scenario), result)
    )
    st.caption(
        f"Every design at your {result.gpus:,} GPUs and {b.nics_per_node} back-end NICs "
        f"per {unit_name}. Your design (topology and oversubscription as set on the left) is in orange and marked "
        "in the table."
    )
    chart(options_figure, options, chosen, inputs=scenario_json(result.scenario), key="network_options_chart")
    table = pd.DataFrame(
        [
            {
                "Design": design_label(o, chosen),
                "Capex": o.capex_usd,
                "Δ vs ref.": None if o.delta_vs_reference is None else o.delta_vs_reference * 100,
                "Leaves": o.leaf_switches,
                "Spines": o.spine_switches or o.chassis,
                "Cores": o.core_switches,
                "Optics": o.transceivers,
                "Cables": o.cables,
                "Gb/s per GPU": o.spine_gbps_per_gpu,
                "Power [kW]": o.power_kw,
                "Note": o.error,
            }
            for o in options
        ]
    )
    mine = [o.name == chosen for o in options]
    empty = [c for c in ("Cores", "Note") if not table[c].astype(bool).any()]  # no core tier, no infeasible design
    table = table.drop(columns=empty)
    count = st.column_config.NumberColumn(format="localized", width="small")
    st.dataframe(
        table.style.apply(lambda col: [HIGHLIGHT if m else "" for m in mine], axis=0),
        hide_index=True,
        column_config={
            "Design": st.column_config.TextColumn(width=150),
            "Capex": st.column_config.NumberColumn(format="dollar", step=1, width=100),
            "Δ vs ref.": st.column_config.NumberColumn(format="%.1f %%", width="small"),
            "Leaves": count,
            "Spines": count,
            "Cores": count,
            "Optics": st.column_config.NumberColumn(format="localized", width="small", help="Transceivers"),
            "Cables": count,
            "Gb/s per GPU": st.column_config.NumberColumn(
                format="%.0f", width="small", help="What each GPU gets across the spines: injection ÷ oversubscription."
            ),
            "Power [kW]": st.column_config.NumberColumn(format="%.1f", width="small"),
        },
        key="network_options_table",
    )
    for o in options:
        if not o.caveats:
            continue
        with st.expander(f"Caveats — {o.label}"):
            for caveat in o.caveats:
                st.markdown(f"- {caveat}")

    topology = lazy_expander("Topology", "network.topology_open")  # drawn only when opened
    if topology.open:
        picture = topology_picture(b, max_per_tier=16, servers_shown=4)
        chart(topology_figure, picture, inputs=scenario_json(result.scenario), key="network_topology", where=topology)

    st.subheader("Bill of materials")
    bom = pd.DataFrame([ln.as_record() for ln in fabric.lines]).replace({"category": NETWORK_NAMES})
    st.dataframe(
        bom[["category", "item", "quantity", "unit", "unit_price_usd", "total_usd", "basis"]],
        hide_index=True,
        column_config={
            "category": st.column_config.TextColumn("Network", width="small"),
            "item": st.column_config.TextColumn("Item", width=330),
            "quantity": st.column_config.NumberColumn("Qty", format="localized", width="small"),
            "unit": st.column_config.TextColumn("Unit", width="small"),
            "unit_price_usd": st.column_config.NumberColumn("Unit price", format="dollar", step=1, width="small"),
            "total_usd": st.column_config.NumberColumn("Total", format="dollar", step=1, width=100),
            "basis": st.column_config.TextColumn("Basis", width="small"),
        },
        key="network_bom_table",
    )
