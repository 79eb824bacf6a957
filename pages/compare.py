"""Compare: two or more scenarios side by side, with deltas against the first."""

from __future__ import annotations

import json
from collections.abc import Callable

import pandas as pd
import streamlit as st

import neoplan
from neoplan import metrics
from neoplan.charts.compare import capex_compare_figure, cumulative_cash_compare_figure, tco_compare_figure
from neoplan.errors import ScenarioError
from neoplan.inputs.loading import scenario_json
from ui import format as fmt
from ui.labels import humanize
from ui.state import evaluate_scenario, get_library, get_scenario
from ui.widgets import figure_tabs, keep, put

CURRENT = "Current scenario (unsaved edits)"
# The figures compared, by registry key (neoplan.metrics: label, format and delta).
COMPARED = (
    "gpus",
    "node_capex_usd",
    "capex_usd.total",
    "capex_per_gpu_usd",
    "capex_per_server_excl_storage_usd",
    "capex_usd.backend_network",
    "opex_usd_per_year.total",
    "tco_usd_per_gpu_hour",
    "breakeven_usd_per_gpu_hour",
    "npv_usd",
    "project_irr",
    "equity_irr",
    "payback_months",
    "min_dscr",
)
CHOSEN = "compare.chosen"

st.title("Compare scenarios")
library = get_library()
options = [CURRENT, *library.names()]
keep(CHOSEN, [n for n in ("reference", "optimized") if n in options])  # kept across pages and refreshes
if any(name not in options for name in st.session_state[CHOSEN]):  # a saved scenario deleted since
    put(CHOSEN, [name for name in st.session_state[CHOSEN] if name in options])
chosen = st.multiselect(
    "Scenarios",
    options,
    key=CHOSEN,
    help="The first one is the baseline for the deltas.",
)
if len(chosen) < 2:
    st.info("Pick at least two scenarios to compare.")
    st.stop()

results = {}
for name in chosen:
    try:
        scenario = get_scenario() if name == CURRENT else library.load(name)
        results[name] = evaluate_scenario(scenario)
    except ScenarioError as exc:
        st.error(fmt.plain(f"{name}: {humanize(str(exc))}"))
if len(results) < 2:
    st.stop()

names = list(results)
data = {name: r.to_dict() for name, r in results.items()}
kinds = {r.platform.gpus_per_node for r in results.values()}  # 8 (an HGX server) or 72 (an NVL72 rack)
mixed = len(kinds) > 1
PER_GPU: dict[str, tuple[str, Callable[[neoplan.Result], float]]] = {
    # a node figure of a server and of a rack is compared per GPU: (label, the Result's per-GPU figure)
    "node_capex_usd": ("Node price per GPU", lambda r: r.node_capex_per_gpu_usd),
    "capex_per_server_excl_storage_usd": ("Capex per GPU excl. storage", lambda r: r.capex_per_gpu_excl_storage_usd),
}


def _row(key: str) -> tuple[str, dict[str, float | None]]:
    """A compared figure's label and value by scenario: per GPU where servers meet racks (like with like)."""
    if mixed and key in PER_GPU:
        label, per_gpu = PER_GPU[key]
        return label, {name: per_gpu(r) for name, r in results.items()}
    return metrics.METRICS[key].label, {name: metrics.lookup(data[name], key) for name in names}


rows = [_row(key) for key in COMPARED]
table: dict[str, list[str]] = {"": [label for label, _ in rows]}
for name in names:
    col = []
    for key, (_, values) in zip(COMPARED, rows, strict=True):
        value = values[name]
        change = "" if name == names[0] else metrics.delta(key, value, values[names[0]])
        col.append(metrics.text(key, value) + (f"  ({change})" if change else ""))
    table[name] = col
st.dataframe(pd.DataFrame(table), hide_index=True, height=(len(COMPARED) + 1) * 35 + 3)
st.caption(
    f"Deltas in brackets are against **{fmt.plain(names[0])}**; rates (IRR) change in percentage points (pp)."
    + (
        " HGX servers and NVL72 racks side by side: the node price and the capex per node are compared per GPU."
        if mixed
        else ""
    )
)


def _design_rows(r: neoplan.Result) -> dict[str, str]:
    """What each design is built from: platform, price book, racks and cooling (to see what differs)."""
    f, p = r.facility, r.platform
    per_rack = f"1 NVL72 system ({p.compute_trays} compute trays)" if p.rack_scale else f"{f.servers_per_rack} servers"
    return {
        "GPU platform": p.name,
        "Hardware prices as of": r.scenario.prices_as_of,
        "GPUs per node (NVLink domain)": f"{p.gpus_per_node}",
        "Per compute rack": f"{per_rack}, {f.compute_rack_kw:,.1f} kW of {f.rack_power_kw:g} kW",
        "Compute racks / all racks": f"{f.compute_racks:,} / {f.racks:,}",
        "Cooling": p.cooling + (f" ({f.liquid_heat_kw:,.0f} kW to facility water)" if f.liquid_heat_kw else ""),
        "Rental price": f"${r.scenario.pricing.usd_per_gpu_hour:.2f} per GPU-hour",
    }


design = {name: _design_rows(r) for name, r in results.items()}
labels = list(design[names[0]])
differs = [label for label in labels if len({design[n][label] for n in names}) > 1]
with st.expander("Design inputs" + (f" — {len(differs)} differ" if differs else " — the same"), expanded=bool(differs)):
    st.dataframe(
        pd.DataFrame(
            {
                "": [f"{label} ≠" if label in differs else label for label in labels],
                **{name: [design[name][label] for label in labels] for name in names},
            }
        ),
        hide_index=True,
    )

inputs = json.dumps({name: scenario_json(r.scenario) for name, r in results.items()})  # names and scenarios, in order
figures = [  # one figure drawn at a time
    ("Capex", capex_compare_figure, "compare.capex"),
    ("TCO", tco_compare_figure, "compare.tco"),
    ("Cumulative cash", cumulative_cash_compare_figure, "compare.cash"),
]
figure_tabs("compare.tab", figures, results, inputs=inputs)
