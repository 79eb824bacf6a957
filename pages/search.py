"""Design search: every platform, back-end fabric, storage tier and debt share around the open scenario, ranked."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from neoplan import formats, metrics
from neoplan.analysis.search import OBJECTIVES, Space
from neoplan.charts.search import capex_irr_figure
from neoplan.errors import ScenarioError
from neoplan.inputs.loading import scenario_json
from neoplan.inputs.profiles import CHANGED_FIELDS
from ui.format import plain
from ui.labels import humanize, label_of
from ui.state import get_scenario, search_current, set_scenario
from ui.widgets import chart, keep, metric_cards, number_field

KEY = "search."
CONSTRAINTS: tuple[tuple[str, str, str, float, float, str | None, Callable[[float], float], str], ...] = (
    # (constraint, label, field key, lowest, highest, decimals, typed → model unit, help)
    ("min_dscr", "Min DSCR [×]", "min_dscr", 0.0, 100.0, None, float,
     "Constraint: the lowest debt cover a design may have."),
    ("max_capex_usd", "Max capex [USD M]", "max_capex_musd", 0.0, 1e6, "%.1f", lambda m: m * 1e6,
     "Constraint: the most a design may cost."),
    ("min_equity_irr", "Min equity IRR [%]", "min_equity_irr_pct", -100.0, 1000.0, "%.1f", lambda pct: pct / 100,
     "Constraint: the lowest equity IRR a design may return."),
)  # fmt: skip
OBJECTIVE_LABELS = {
    "npv_usd": "NPV (highest)",
    "project_irr": "Project IRR (highest)",
    "equity_irr": "Equity IRR (highest)",
    "min_dscr": "Min DSCR (highest)",
    "tco_usd_per_gpu_hour": "TCO per GPU-hour (lowest)",
    "capex_usd": "Capex (lowest)",
    "breakeven_usd_per_gpu_hour": "Break-even price (lowest)",
    "cost_usd_per_million_tokens": "Cost per million tokens (lowest)",
    "breakeven_usd_per_million_tokens": "Token break-even (lowest)",
}
METRIC_OF = {"capex_usd": "capex_usd.total"}  # the registry figure of an objective named otherwise in the table
SHOWN = {
    "rank": "#",
    "gpu_model": "Platform",
    "topology": "Back end",
    "oversubscription": "Oversub.",
    "nics_per_node": "NICs",
    "storage": "Storage",
    "debt_share": "Debt",
    "gpus": "GPUs",
    "capex_usd": "Capex",
    "npv_usd": "NPV",
    "project_irr": "Project IRR",
    "equity_irr": "Equity IRR",
    "min_dscr": "Min DSCR",
    "tco_usd_per_gpu_hour": "TCO",
    "feasible": "Feasible",
    "infeasible_reason": "Why not",
}
FORMATS = {
    "capex_usd": formats.usd,
    "npv_usd": formats.usd,
    "project_irr": formats.pct,
    "equity_irr": formats.pct,
    "debt_share": lambda v: formats.pct(v, 0),
    "min_dscr": formats.ratio,
    "tco_usd_per_gpu_hour": formats.usd_per_gpu_hour,
    "oversubscription": lambda v: f"{v:g}:1",
}


def _label(row: dict) -> str:
    """A row of the table in words, for the picker."""
    return (
        f"{row['rank']}. {row['gpu_model']} · {row['topology']} {row['oversubscription']:g}:1 · "
        f"{row['nics_per_node']} NICs · {row['storage']} · {formats.pct(row['debt_share'], 0)} debt"
    )


scenario = get_scenario()
st.title("Design search")
space = Space()
where = (
    f"the {scenario.facility.it_power_mw:g} MW IT envelope (sized by power)"
    if scenario.cluster.size_by == "power"
    else f"{scenario.cluster.gpus:,} GPUs (rounded to whole nodes)"
)
st.caption(
    f"Every platform a price book knows × back-end topology × oversubscription × back-end NICs × storage tier "
    f"({space.designs:,} designs), each financed at {len(space.debt_shares)} debt shares, at {where}. Each platform "
    "brings its profile: " + ", ".join(label_of(f) for f in CHANGED_FIELDS) + " (data/platform_defaults.csv, "
    "data/rental_contracts.csv); the open scenario's own platform keeps its inputs. Everything else is the open "
    "scenario."
)

controls = st.columns(5)
keep(KEY + "objective", "npv_usd")
objective = str(
    controls[0].selectbox(
        "Rank by", list(OBJECTIVES), format_func=lambda k: OBJECTIVE_LABELS[str(k)], key=KEY + "objective"
    )
)
constraints: dict[str, float | None] = {}
for box, (name, label, key, lo, hi, fmt, to_model, meaning) in zip(controls[1:4], CONSTRAINTS, strict=True):
    typed = number_field(
        label, KEY + key, lo=lo, hi=hi, optional=True, fmt=fmt, where=box, placeholder="none", help=meaning
    )
    constraints[name] = None if typed is None else to_model(typed)
top = int(number_field("Rows shown", KEY + "top", default=20, lo=1, hi=1000, integer=True, where=controls[4]))
try:
    with st.spinner("Designing and financing every design …"):
        found = search_current(objective, constraints)
except ScenarioError as exc:
    st.error(plain(humanize(str(exc))))
    st.stop()

table = found.table
feasible = table[table["feasible"]]
best = feasible.iloc[0] if len(feasible) else None
metric_cards(
    "search_cards",
    [
        [
            (
                "Designs built",
                f"{table['design'].nunique():,}",
                "Platform × topology × oversubscription × NICs × storage.",
            ),
            ("Rows ranked", f"{len(table):,}", "Designs × debt shares."),
            ("Feasible", f"{len(feasible):,}", "Buildable and meeting every constraint."),
            (
                "Best " + OBJECTIVE_LABELS[objective].split(" (")[0],
                metrics.text(METRIC_OF.get(objective, objective), None if best is None else float(best[objective])),
                "Of the feasible designs.",
            ),
        ]
    ],
    font_rem=1.4,
)
inputs = f"{scenario_json(scenario)}|{objective}|{sorted(constraints.items())}"
chart(capex_irr_figure, found, inputs=inputs, key="search.frontier")

shown = table.head(top)[list(SHOWN)].copy()
for column, show in FORMATS.items():
    shown[column] = [formats.NA if v != v else show(v) for v in shown[column]]  # NaN: n/a
shown["infeasible_reason"] = [humanize(str(v)) for v in shown["infeasible_reason"]]  # fields by their labels
st.dataframe(shown.rename(columns=SHOWN), hide_index=True, width="stretch")

records = table.head(top).to_dict(orient="records")
pick, button = st.columns([4, 1], vertical_alignment="bottom")
keep(KEY + "pick", 1)
rank = pick.selectbox(
    "Open a design as the scenario",
    [int(r["rank"]) for r in records],
    format_func=lambda k: _label(records[k - 1]),
    key=KEY + "pick",
)
if button.button("Open as scenario", key=KEY + "open", type="primary"):
    try:
        opened = found.scenario(int(rank))
    except ScenarioError as exc:
        st.error(plain(humanize(str(exc))))
    else:
        set_scenario(opened, source=f"search rank {rank} ({_label(records[int(rank) - 1])})")
        st.switch_page("pages/overview.py")
st.caption(f"Searched in {found.seconds:.2f} s.")
