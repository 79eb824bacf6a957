"""Compute node: edit the HGX server's (or NVL72 rack's) bill of materials, pick the price book, see what it costs."""

from __future__ import annotations

from typing import Any

import streamlit as st

from neoplan import metrics
from neoplan.charts import node_bom_figure
from neoplan.inputs.fields import NODE_PRESET_LABELS
from neoplan.inputs.loading import scenario_json
from neoplan.inputs.platforms import FULL_NICS, plan_switch
from neoplan.inputs.pricebook import BOOK_DATES, book_differences, default_platforms, default_rentals, price_book
from neoplan.inputs.profiles import vintage_changes
from neoplan.model import Result
from ui import format as fmt
from ui import state
from ui.format import plain
from ui.labels import humanize
from ui.power import gpus_input, show_sized_gpus
from ui.state import evaluate_current, field_errors, get_scenario
from ui.widgets import chart, field_input, lazy_expander

PLATFORM_KEY = "compute_node.platform"
NOTE_KEY = "compute_node.platform_note"
BOOK_KEY = "compute_node.prices_as_of"


def _change_book() -> None:
    """Another price book: the plan moves to that date whole (neoplan.inputs.profiles.vintage_changes): the market it
    rents in, the site's region values and the reference rent follow; values the user set stay."""
    as_of = st.session_state[BOOK_KEY]
    state.update_fields(vintage_changes(get_scenario(), as_of), error_path="prices_as_of")


def _book_input() -> None:
    st.session_state[BOOK_KEY] = get_scenario().prices_as_of
    st.selectbox(
        "Price book (hardware prices as of)",
        list(BOOK_DATES),
        key=BOOK_KEY,
        on_change=_change_book,
        help="The date the plan is priced at: the hardware book, the rental market and price curve, and the site's "
        "region values all of that date; a rent or site number you set yourself stays.",
    )
    error = field_errors().get("prices_as_of")
    if error:
        st.error(plain(humanize(error)))


def _switch_platform() -> None:
    """Move the plan to the chosen platform with its defaults (neoplan.inputs.platforms), keeping the user's own
    values."""
    key = st.session_state[PLATFORM_KEY]
    before = get_scenario()
    switch = plan_switch(before.model_dump(mode="json"), key, baseline=state.baseline())
    if state.update_fields(switch.values, error_path="cluster.gpu_model"):
        name = default_platforms()[key].name
        st.session_state[NOTE_KEY] = f"Switched to the {name}: {switch.note()}." if switch.changes else ""


def _platform_input() -> Any:
    """The platform picker; returns a placeholder under it for the note of the last switch (drawn once the plan is
    sized: :func:`_switch_note`)."""
    platforms = default_platforms()
    current = get_scenario().cluster.gpu_model
    st.session_state[PLATFORM_KEY] = current
    st.selectbox(
        "GPU platform",
        list(platforms),
        format_func=lambda k: platforms[k].short_name,
        key=PLATFORM_KEY,
        on_change=_switch_platform,
        help="HGX servers hold 8 GPUs; a GB200/GB300 NVL72 rack is one 72-GPU node (18 compute trays × 4 GPUs, "
        "9 NVLink switch trays, liquid cooled). Switching brings the platform's defaults (data/platform_defaults.csv: "
        "price book, rental price, rack power, back-end NIC generation, storage per GPU) except the values you set "
        "yourself; a note lists every change and why.",
    )
    where = st.empty()
    error = field_errors().get("cluster.gpu_model")
    if error:
        st.error(plain(humanize(error)))
    return where


def _switch_note(where: Any, result: Result | None) -> None:
    """The last platform switch's note in ``where``; a plan sized by power says the count it was sized to."""
    note = st.session_state.pop(NOTE_KEY, "")
    if not note:
        return
    if result is not None and result.envelope is not None:
        unit = "racks" if result.platform.rack_scale else "servers"
        note += (
            f" Sized by power: {result.gpus:,} GPUs in {result.servers:,} {unit} within "
            f"{result.envelope.it_power_kw / 1000:,g} MW of IT power."
        )
    where.info(plain(note), icon=":material/swap_horiz:")


st.title("Compute node")
st.caption(
    "One HGX server (or one NVL72 rack), line by line: counts from the options × unit prices from the price book."
)

left, right = st.columns([1, 2], gap="large")
with left:
    st.subheader("Options")
    field_input("node.preset", "Preset", options_labels=NODE_PRESET_LABELS)
    _book_input()
    note_box = _platform_input()
    chosen = default_platforms().get(get_scenario().cluster.gpu_model)
    rack_scale = chosen is not None and chosen.rack_scale
    per = " per compute tray" if rack_scale else ""
    if not rack_scale:  # NVL72: the Grace CPUs and their LPDDR5X are part of the rack system
        field_input(
            "node.cpu_tier", "CPU tier", options_labels={"entry": "Entry", "mid": "Mid-range", "top": "Top bin"}
        )
        field_input("node.cpu_sockets", "CPU sockets")
        field_input("node.ram_tb", "System memory [TB]")
    field_input("node.nvme_tb", f"Local NVMe [TB]{per}")
    field_input("node.dpus", f"BlueField-3 DPUs [count]{per}")
    field_input("node.frontend_nics", f"ConnectX front-end NICs [count]{per}")
    field_input("fabric.frontend.port_gbps", "Front-end port speed [Gbit/s]")
    if rack_scale and chosen is not None and get_scenario().fabric.nics_per_node == FULL_NICS:  # fixed by the tray
        st.caption(
            f"Back-end NICs: {chosen.scaleout_nics_per_tray} per compute tray, one per GPU "
            f"({chosen.scaleout_nics_per_node} per rack), fixed by the tray."
        )
    else:
        field_input("fabric.nics_per_node", "Back-end NICs [count]")
    field_input("fabric.nic_gbps", "Back-end NIC speed [Gbit/s]")
    field_input("node.warranty_years", "Warranty [years]")
    st.divider()
    gpus_box = gpus_input()  # a power plan's count is found by the sizing: shown once sized
    field_input("cluster.hot_spare_share", "Hot spares [% of servers]")

result = evaluate_current()
_switch_note(note_box, result)
show_sized_gpus(gpus_box, result)
if result is not None:
    with left:
        rental = default_rentals(result.book.as_of).get(result.platform.key)
        if rental is not None:
            st.caption(
                f"Reference rental price of the {result.platform.name}: ${rental.usd_per_gpu_hour:.2f}/GPU-hour "
                f"({rental.date}, {rental.basis}). The scenario rents at "
                f"${result.scenario.pricing.usd_per_gpu_hour:.2f}."
            )
        for warning in (w for w in result.warnings if w.startswith("prices_as_of")):
            st.warning(plain(humanize(warning)))
        if result.book.as_of != BOOK_DATES[0]:
            changes = book_differences(price_book(BOOK_DATES[0]), price_book(result.book.as_of))
            book_changes = lazy_expander(
                f"What the {result.book.as_of} book changes ({len(changes)} prices)", "node.book_changes_open"
            )
            if book_changes.open:
                with book_changes:
                    st.dataframe(
                        [
                            {
                                "Item": row.description,
                                BOOK_DATES[0]: old,
                                result.book.as_of: row.price_usd,
                                "Basis": row.basis,
                                "Source": row.source,
                            }
                            for _key, old, row in changes
                        ],
                        hide_index=True,
                        column_config={
                            BOOK_DATES[0]: st.column_config.NumberColumn(format="dollar"),
                            result.book.as_of: st.column_config.NumberColumn(format="dollar"),
                        },
                    )
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
        nodes = "racks" if result.platform.rack_scale else "servers"
        c3.metric(
            f"Saving over {result.servers + result.spare_servers:,} {nodes}",
            fmt.usd(saving * (result.servers + result.spare_servers)),
            help="Per-server saving times servers bought (hot spares included).",
        )
        c4, c5, c6 = st.columns(3)
        label, value, help_text = metrics.card(
            "capex_usd.compute", result.capex_usd["compute"], "Servers in service plus hot spares × node price."
        )
        c4.metric(label, value, help=help_text)
        c5.metric(f"{nodes.capitalize()} + hot spares", f"{result.servers:,} + {result.spare_servers:,}")
        c6.metric(
            "Node price per GPU",
            fmt.usd_exact(result.node_capex_usd / result.platform.gpus_per_node),
            help="Node price divided by its GPUs.",
        )
        chart(node_bom_figure, result, inputs=scenario_json(result.scenario), key="node_bom_chart")
    p = result.platform
    if p.rack_scale:
        st.subheader("Bill of materials, per NVL72 rack")
        st.caption(
            f"One node is one rack: {p.compute_trays} compute trays × {p.gpus_per_tray} GPUs and {p.switch_trays} "
            f"NVLink switch trays (the NVLink domain of {p.nvlink_domain_gpus} GPUs), up to "
            f"{p.node_max_power_kw:g} kW (~{p.tray_max_power_kw:.1f} kW per compute tray), {p.cooling} cooled. "
            "NICs, DPUs, drives, integration and warranty are counted per compute tray; the Grace CPUs and their "
            "memory are in the rack price, so CPU tier, sockets and system memory do not apply."
        )
    else:
        st.subheader("Bill of materials, per server")
        st.caption(
            f"{p.name}: {p.gpus_per_node} × {p.gpu_memory_gb} GB, up to {p.node_max_power_kw:g} kW, {p.cooling} cooled."
        )
    table = result.bom_table()[["item", "quantity", "unit", "unit_price_usd", "total_usd", "basis", "key"]]
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "item": st.column_config.TextColumn("Item", width=320),
            "quantity": st.column_config.NumberColumn("Qty", width="small"),
            "unit": st.column_config.TextColumn("Unit", width="small"),
            "key": st.column_config.TextColumn(
                "Price key", width="small", help="The key to override this price under prices: in a scenario file."
            ),
            "basis": st.column_config.TextColumn("Basis", width="small"),
            "unit_price_usd": st.column_config.NumberColumn("Unit price", format="dollar", step=1),
            "total_usd": st.column_config.NumberColumn("Total", format="dollar", step=1),
        },
    )
    st.caption(
        "Basis: **quoted** = public price, **estimate** = judgement, **fitted** = set to reproduce a "
        "calibration target, **override** = your price. Edit data/prices/*.csv to change defaults."
    )
