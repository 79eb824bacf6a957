"""Storage & site: shared storage, management, racks, power, and the capex and yearly opex of the whole cluster."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from neoplan import metrics
from neoplan.charts.site import (
    capex_treemap_figure,
    capex_waterfall_figure,
    opex_by_year_figure,
    power_figure,
    storage_throughput_figure,
)
from neoplan.design.storage import default_storage_catalogue
from neoplan.finance.statements import capex_by_category, opex_by_year
from neoplan.inputs.loading import scenario_json
from neoplan.inputs.platforms import default_table
from neoplan.inputs.regions import region_values, regions, site_density
from ui import format as fmt
from ui.format import plain
from ui.labels import humanize
from ui.state import evaluate_current, field_errors, get_scenario, update_fields
from ui.widgets import chart, compact_metrics, field_input, lazy_expander, lazy_tabs

CHART_KEY = "storage_site.capex_chart"
METRICS_KEY = "storage_site_metrics"  # the metrics right of each tab's inputs, in a smaller font to fit four a row
TABS_KEY = "storage_site.tab"
NETWORK_LABELS = {"frontend": "Front end (recommended)", "backend": "Back end (compute fabric)"}


def _seconds(value: float) -> str:
    return f"{value:,.1f} s" if math.isfinite(value) else fmt.NA


st.title("Storage & site")
st.caption(
    "Shared storage, management nodes, racks, power and people: the rest of the cluster around the compute "
    "servers, with the capex and yearly opex of the whole plan."
)

# Everything above the tabs lives in one container, so that a warning or error appearing or going away does
# not move the tabs in the element tree (which would send the browser back to the first tab).
with st.container():
    result = evaluate_current()
    inputs = "" if result is None else scenario_json(result.scenario)  # what every chart here depends on
    if result is not None:
        f, s = result.facility, result.storage
        c1, c2, c3, c4 = st.columns(4)
        d = result.to_dict()
        for col, key in ((c1, "capex_usd.total"), (c2, "opex_usd_per_year.total")):
            label, value, help_text = metrics.card(key, metrics.lookup(d, key))
            col.metric(label, value, help=help_text, border=True)
        c3.metric(
            "Site power",
            f"{f.facility_peak_mw:,.2f} MW",
            help=f"Facility peak: IT peak {f.it_peak_mw:,.2f} MW × PUE {f.pue:g}.",
            border=True,
        )
        label, value, help_text = metrics.card("racks", f.racks, "42U each.")
        c4.metric(label, value, help=help_text, border=True)
        # Every storage and facility warning, above the tabs so none is hidden in a closed tab.
        for warning in (*s.warnings, *f.warnings):
            st.warning(fmt.plain(humanize(warning)), icon=":material/warning:")

for tab_name in ("storage", "site", "opex"):
    compact_metrics(f"{METRICS_KEY}_{tab_name}", 1.3)
# Only the open tab runs and is drawn (each has a figure or two the browser would otherwise draw hidden).
tab_storage, tab_site, tab_capex, tab_opex = lazy_tabs(TABS_KEY, ["Storage", "Site & power", "Capex", "Opex"])

# --- storage ------------------------------------------------------------------------------------
if tab_storage.open is not False:
    with tab_storage:
        left, right = st.columns([1, 2], gap="large")
        with left:
            st.subheader("Storage inputs")
            rule = default_table().get(get_scenario().cluster.gpu_model, {}).get("storage.usable_pb")
            per_gpus = f"{rule.value:g} PB per {rule.per_gpus or 1:,} GPUs" if rule else "none"
            field_input("storage.usable_pb", "Usable capacity [PB]", placeholder=f"platform rule: {per_gpus}")
            if result is not None and get_scenario().storage.usable_pb is None:
                st.caption(f"{result.storage.usable_pb:,.1f} PB: the platform's {per_gpus} for {result.gpus:,} GPUs.")
            field_input(
                "storage.vendor_class",
                "Vendor class",
                options_labels={"licensed": "Licensed (Weka/Vast-like)", "self_built": "Self-built NFS"},
            )
            field_input(
                "storage.licence_term",
                "Licence term",
                options_labels={"perpetual": "Perpetual (capex)", "yearly": "Yearly subscription (opex)"},
            )
            field_input(
                "storage.network",
                "Storage network",
                options_labels=NETWORK_LABELS,
            )
            field_input("storage.min_servers", "Minimum servers for HA [count]")
            field_input("storage.target_gbps_per_gpu", "Read target per GPU [Gbit/s]")
            field_input("storage.checkpoint_params_billion", "Checkpoint model size [billion parameters]", fmt="%.0f")
            with st.expander("Advanced"):
                catalogue = default_storage_catalogue()
                field_input(
                    "storage.server_model",
                    "Storage server model",
                    options=[None, *catalogue],
                    options_labels={None: "Default of the vendor class"}
                    | {k: f"{m.name.split(',')[0]} ({m.vendor_class})" for k, m in catalogue.items()},
                )
                field_input("storage.bytes_per_param", "Checkpoint bytes per parameter [B]", fmt="%.1f")
        if result is not None:
            s = result.storage
            with right.container(key=f"{METRICS_KEY}_storage"):
                c1, c2, c3 = st.columns(3)
                c1.metric(
                    "Storage servers",
                    fmt.count(s.servers),
                    help=f"Largest of: minimum for HA, {s.servers_for_capacity} for capacity, "
                    f"{s.servers_for_throughput} for throughput. Model: {s.model.name}.",
                )
                c2.metric(
                    "Aggregate read",
                    f"{s.read_gbyte_per_s:,.0f} GB/s",
                    delta=f"target {s.target_gbyte_per_s:,.0f} GB/s " + ("met" if s.meets_target else "missed"),
                    delta_color="normal" if s.meets_target else "inverse",
                    delta_arrow="off",
                    help="Servers × per-server read bandwidth (capped by the server NICs) vs GPUs × per-GPU target.",
                )
                c3.metric("Aggregate write", f"{s.write_gbyte_per_s:,.0f} GB/s", help="Servers × per-server write.")
                c4, c5, c6 = st.columns(3)
                c4.metric(
                    "Checkpoint write",
                    _seconds(s.checkpoint_write_s),
                    help=f"{s.checkpoint_tb:,.2f} TB ({s.bytes_per_param:g} B/param) at the aggregate write bandwidth.",
                )
                c5.metric(
                    "Headroom to grow",
                    f"{s.headroom_tb / 1000:,.2f} PB",
                    help=f"Net capacity {s.free_bays:,} empty drive bays would add; installed net "
                    f"{s.installed_net_tb / 1000:,.2f} PB for {s.usable_pb:g} PB asked.",
                )
                label, value, help_text = metrics.card(
                    "capex_usd.storage",
                    result.capex_usd["storage"],
                    "Storage servers, drives and any perpetual licence.",
                )
                c6.metric(label, value, help=help_text)
                chart(storage_throughput_figure, result, inputs=inputs, key="storage_site.throughput")
                if s.port_note():
                    st.caption(s.port_note())
                details = {
                    "Server model": s.model.name,
                    "Drives": f"{s.drives:,} ({s.drives_per_server} per server, {s.model.drive_tb:g} TB each)",
                    "Raw capacity": f"{s.raw_tb / 1000:,.2f} PB",
                    "Net efficiency": fmt.pct(s.net_efficiency),
                    "Erasure coding": f"{s.stripe_data}+{s.model.protection_blocks} stripe",
                    "Installed net capacity": f"{s.installed_net_tb / 1000:,.2f} PB",
                    "Empty drive bays": fmt.count(s.free_bays),
                    "Network": f"{NETWORK_LABELS[s.network]}: "
                    f"{s.backend_ports if s.network == 'backend' else s.frontend_ports} × "
                    f"{s.port_gbps:g} Gbit/s ports, plus {s.oob_ports} OOB ports",
                    "Racks": f"{s.racks} ({s.free_rack_units} U free)",
                    "Power": f"{s.power_kw:,.1f} kW",
                    "Licence per year": fmt.usd(s.licence_usd_per_year),
                }
                st.table(pd.DataFrame({"Storage design": list(details.values())}, index=list(details)))

REGION_KEY = "storage_site.region"


def _choose_region() -> None:
    """A region chosen: the site's power and colocation prices, PUE and tax rate become the region's as of the
    scenario's book date, for its rack density (neoplan.inputs.regions); each stays editable after."""
    region = st.session_state[REGION_KEY]
    scenario = get_scenario()
    values = region_values(region, scenario.prices_as_of, site_density(scenario.model_dump(mode="json")))
    update_fields({"facility.region": region, **{path: v.value for path, v in values.items()}}, "facility.region")


def _region_input() -> None:
    known = regions()
    current = get_scenario().facility.region
    st.session_state[REGION_KEY] = current
    st.selectbox(
        "Region",
        list(known),
        format_func=lambda k: known[k].short_name,  # short enough to show whole at 1,280 px
        key=REGION_KEY,
        on_change=_choose_region,
        help=(f"{known[current].name}. " if current in known else "")
        + "Where the site is (data/regions.csv, each number with its source): choosing one sets the power price, "
        "the colocation price for the rack density, the PUE and the tax rate to the region's as of the price book's "
        "date; edit any of them after to use your site's own.",
    )
    error = field_errors().get("facility.region")
    if error:
        st.error(plain(humanize(error)))


# --- site & power -------------------------------------------------------------------------------
if tab_site.open is not False:
    with tab_site:
        left, right = st.columns([1, 2], gap="large")
        with left:
            st.subheader("Site inputs")
            _region_input()
            field_input("facility.rack_power_kw", "Rack power [kW]", fmt="%.1f")
            field_input("facility.servers_per_rack", "Servers per compute rack, at most [count]")
            field_input("facility.pue", "PUE [ratio]")
            field_input("facility.colo_usd_per_kw_month", "Colocation [USD per kW-month]", fmt="%.0f")
            field_input("facility.electricity_usd_per_kwh", "Electricity [USD/kWh]", fmt="%.3f")
            field_input("facility.electricity_in_colo", "Power in colo price")
            field_input("facility.management_nodes", "Management nodes [count]")
            field_input("facility.firewall_pairs", "Firewall HA pairs [count]")
            with st.expander("Power profile"):
                field_input("pricing.utilization", "Utilization [%]")
                field_input("facility.idle_power_share", "Idle draw [% of max]")
                field_input("facility.busy_power_share", "Busy draw [% of max]")
                field_input("facility.cdu_power_share", "CDU pumps, liquid cooling [% of the heat to liquid]")
            with st.expander("Cooling limits"):
                field_input("facility.air_cooled_rack_limit_kw", "Air cooling limit per rack [kW]", fmt="%.0f")
                field_input("facility.liquid_colo_premium", "Colocation premium for liquid cooling [%]")
        if result is not None:
            f = result.facility
            with right.container(key=f"{METRICS_KEY}_site"):
                c1, c2, c3, c4 = st.columns(4)
                c1.metric(
                    "Compute racks",
                    fmt.count(f.compute_racks),
                    help="One NVL72 system per rack." if f.rack_scale else f"{f.servers_per_rack} servers per rack.",
                )
                c2.metric("Network racks", fmt.count(f.network_racks), help="Back-end and front-end switch racks.")
                c3.metric("Storage racks", fmt.count(f.storage_racks))
                c4.metric("Mgmt racks", fmt.count(f.management_racks), help="Management nodes and firewalls.")
                c5, c6, c7, c8 = st.columns(4)
                label, value, help_text = metrics.card("it_power_peak_kw", f.it_peak_kw, short=True)
                c5.metric(label, value, help=help_text)
                c6.metric("Facility peak", f"{f.facility_peak_mw:,.2f} MW", help=f"IT peak × PUE {f.pue:g}.")
                c7.metric("kW per rack", f"{f.kw_per_rack:,.1f} kW", help="Peak IT load spread over all racks.")
                c8.metric(
                    "Compute rack",
                    f"{f.compute_rack_kw:,.1f} kW",
                    delta=f"fits {f.rack_power_kw:g} kW"
                    if f.rack_fits
                    else f"{f.servers_per_rack} of {f.asked_servers_per_rack} servers fit",
                    delta_color="normal" if f.rack_fits else "inverse",
                    delta_arrow="off",
                    help=(
                        f"One rack-scale system of {f.node_max_power_kw:g} kW per rack."
                        if f.rack_scale
                        else f"{f.servers_per_rack} × {f.node_max_power_kw:g} kW servers at max power; servers per "
                        "rack follow from the rack power, so racks and colocation grow when fewer fit."
                    ),
                )
                if f.cooling == "liquid":
                    cdu = sum(ln.total_usd for ln in f.lines if ln.key in ("cdu_per_kw", "liquid_loop_per_rack"))
                    st.caption(
                        f"Direct liquid cooling: {f.liquid_heat_kw:,.0f} kW of heat to facility water through CDUs "
                        f"(pumps {f.cooling_kw:,.1f} kW, counted as IT load); CDUs and rack hook-ups {fmt.usd(cdu)} "
                        "capex."
                    )
                chart(power_figure, result, inputs=inputs, key="storage_site.power")
                c9, c10, c11, c12 = st.columns(4)
                c9.metric("IT average", f"{f.it_avg_kw:,.0f} kW", help=f"At {fmt.pct(f.utilization, 0)} utilization.")
                c10.metric(
                    "Facility energy",
                    f"{f.facility_energy_kwh_per_year / 1e6:,.1f} GWh/yr",
                    help=f"IT {f.it_energy_kwh_per_year / 1e6:,.1f} GWh/yr × PUE.",
                )
                c11.metric("Colocation", f"{fmt.usd(f.colo_usd_per_year)}/yr", help="Peak IT kW × price × 12.")
                c12.metric(
                    "Electricity",
                    f"{fmt.usd(f.energy_usd_per_year)}/yr",
                    help="Energy consumed × price; 0 when the colo price includes electricity.",
                )
                st.caption(
                    f"{f.management_nodes} management nodes ({f.subnet_manager_nodes} with a back-end NIC for the "
                    f"HA subnet manager), {f.firewall_pairs} firewall pair(s), {f.pdus} monitored PDUs "
                    f"(2 per rack{'; NVL72 racks bring their own power shelves' if f.rack_scale else ''}). "
                    f"Management capex {fmt.usd(result.capex_usd['management'])}; racks, "
                    f"installation and burn-in {fmt.usd(result.capex_usd['other'])}."
                )

# --- capex --------------------------------------------------------------------------------------
if tab_capex.open is not False:
    with tab_capex:
        if result is not None:
            c1, c2, c3, c4 = st.columns(4)
            node = fmt.node_word(result.platform.rack_scale)
            c1.metric(f"Per {node}", fmt.usd_exact(result.capex_per_server_usd), help=f"All capex per compute {node}.")
            for col, key in ((c2, "capex_per_server_excl_storage_usd"), (c3, "capex_per_gpu_usd")):
                label, value, help_text = metrics.card(key, getattr(result, key), short=True)
                col.metric(label, value, help=help_text)
            c4.metric(
                "Per GPU excl. storage",
                fmt.usd_exact(result.capex_per_gpu_excl_storage_usd),
                help="Capex less storage per GPU in service.",
            )
            chart_col, table_col = st.columns([3, 2], gap="large")
            with chart_col:
                kind = st.segmented_control(
                    "Chart", ["Waterfall", "Treemap"], default="Waterfall", key=CHART_KEY, label_visibility="collapsed"
                )
                if kind == "Treemap":
                    chart(capex_treemap_figure, result, inputs=inputs, key="storage_site.capex_treemap")
                else:
                    chart(capex_waterfall_figure, result, inputs=inputs, key="storage_site.capex_waterfall")
            with table_col:
                st.dataframe(
                    capex_by_category(result),
                    hide_index=True,
                    width="stretch",
                    column_config={
                        "category": "Category",
                        "capex_usd": fmt.dollar_column("Capex"),
                        "share": st.column_config.NumberColumn("Share", format="percent"),
                    },
                )
            capex_lines = lazy_expander("Every capex line", "storage.capex_lines_open")
            if capex_lines.open:
                with capex_lines:
                    st.dataframe(
                        result.capex_table()[
                            ["category", "item", "quantity", "unit", "unit_price_usd", "total_usd", "basis"]
                        ],
                        hide_index=True,
                        width="stretch",
                        column_config={
                            "category": st.column_config.TextColumn("Category", width="small"),
                            "item": st.column_config.TextColumn("Item", width=300),
                            "unit": "Unit",
                            "basis": "Basis",
                            "quantity": st.column_config.NumberColumn("Qty", format="localized"),
                            "unit_price_usd": fmt.dollar_column("Unit price"),
                            "total_usd": fmt.dollar_column("Total"),
                        },
                    )

# --- opex ---------------------------------------------------------------------------------------
if tab_opex.open is not False:
    with tab_opex:
        left, right = st.columns([1, 2], gap="large")
        with left:
            st.subheader("Running-cost inputs")
            field_input("opex.staff_fte_per_1000_gpus", "Staff per 1,000 GPUs [FTE]")
            field_input("opex.staff_loaded_cost_usd", "Loaded cost per FTE [USD/year]", fmt="%.0f")
            field_input("opex.support_rate", "Hardware support after warranty [% of hardware capex per year]")
            field_input("opex.insurance_rate", "Insurance [% of capex per year]", fmt="%.2f")
            field_input("opex.ai_enterprise", "NVIDIA AI Enterprise")
            if get_scenario().fabric.topology != "spectrum_x":  # UFM manages InfiniBand only
                field_input("opex.ufm_subscription", "UFM as a yearly subscription")
            field_input("opex.transit_usd_per_month", "Transit and cross-connects [USD/month]", fmt="%.0f")
            field_input("opex.sga_rate", "SG&A [% of revenue]")
            field_input("opex.escalation_per_year", "Opex escalation [% per year]")
        if result is not None:
            with right.container(key=f"{METRICS_KEY}_opex"):
                first, run_rate = result.opex_for_year(1), result.opex_usd_per_year
                c1, c2, c3, c4 = st.columns(4)
                c1.metric("Opex, year 1", fmt.usd(first["total"]), help="First year after go-live, by category below.")
                c2.metric(
                    "Support / yr",
                    fmt.usd(run_rate["hardware_support"]),
                    help="Run-rate year: support rate × hardware capex, once the warranty has ended.",
                )
                c3.metric(
                    "Software / yr",
                    fmt.usd(run_rate["software"]),
                    help="AI Enterprise, UFM subscription and a yearly storage licence, as toggled.",
                )
                c4.metric(
                    "Staff / yr",
                    fmt.usd(run_rate["staff"]),
                    help="FTE per 1,000 GPUs × GPUs ÷ 1,000 × loaded cost.",
                )
                chart(opex_by_year_figure, result, inputs=inputs, key="storage_site.opex_chart")
                table = opex_by_year(result)
                money = {c: fmt.dollar_column() for c in table}
                st.dataframe(table, width="stretch", column_config={"_index": "Category", **money})
                st.caption(
                    "Years count from go-live; a short last year is cut by the analysis horizon. SG&A follows revenue; "
                    "hardware support starts when the warranty ends."
                )
