"""Operations: failures, recovery, spares, availability and goodput, the performance the design delivers, the
readiness checklist, and what each operating or design choice is worth in NPV."""

from __future__ import annotations

import json
import math
import typing
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st
from annotated_types import Ge, Le

import neoplan
from neoplan import Result, metrics
from neoplan.analysis.advice import breakeven_performance_loss, flip_text, recommendations, value_text
from neoplan.charts.operations import choices_figure, gpu_hours_figure, interruptions_figure, lost_time_figure
from neoplan.economics.operations import OperationsReport
from neoplan.errors import ScenarioError
from neoplan.frozen import freeze
from neoplan.inputs.loading import scenario_from_dict, scenario_json
from neoplan.inputs.presets import deep_merge
from neoplan.inputs.pricebook import default_platforms
from neoplan.inputs.scenario import Scenario
from ui import format as fmt
from ui.labels import humanize
from ui.state import WIDGET_PREFIX, evaluate_current, field_errors, get_scenario, update_field
from ui.widgets import chart, compact_metrics, current_value, field_info, field_input, keep, metric_cards

TABS_KEY = "operations.tab"
TABS = ["Reliability", "Effect of each choice", "Readiness checklist", "The article's advice"]
KPI_KEY = "operations_kpis"
DETAIL_KEY = "operations_details"
CHECKLIST = {  # the readiness checklist: scenario fields operations.<item> (True = done) and their labels
    "drivers": "GPU drivers, fabric manager, CUDA toolkit",
    "ofed": "MLNX_OFED (InfiniBand drivers)",
    "gpudirect_rdma": "GPUDirect RDMA (nvidia-peermem) and HPC-X",
    "shared_storage": "Shared /home and /data on every node",
    "pkey_isolation": "Tenant isolation: IB pKeys, VLANs, storage tenants",
    "monitoring": "Monitoring: DCGM and IPMI exporters, Prometheus, Grafana",
    "sdc_checks": "Silent-data-corruption checks (dcgmi diag -r 4)",
    "nccl_hang_detection": "NCCL-hang detector (power draw)",
    "slurm_topology_conf": "SLURM topology.conf (rank placement)",
    "nccl_topo_file": "NCCL_TOPO_FILE inside VMs",
}
SCHEDULERS = {
    "slurm": "SLURM (70 % of customers want it)",
    "kubernetes": "Kubernetes (20 %)",
    "both": "SLURM and Kubernetes",
    "none": "None: customers bring their own (10 %)",
}
PRESETS = {
    "article": "Article: 1 per 7 days per 512 H100",
    "llama3": "Meta Llama 3: 419 in 54 days on 16,384 H100",
}
TOPOLOGIES = {  # back-end designs tried against the scenario's: the article's four, and top-of-rack at 2:1
    ("reference", 1.0): "Reference fat tree 1:1",
    ("tor", 1.0): "Top-of-rack 1:1",
    ("tor", 2.0): "Top-of-rack 2:1",
    ("vms", 1.0): "Virtual modular switch 1:1",
    ("vms", 2.0): "Virtual modular switch 2:1",
}
CAUSE_NAMES = {
    "backend_nics": "Back-end NICs per server",
    "rail_layout": "Rail layout (top-of-rack congestion)",
    "oversubscription": "Leaf oversubscription",
    "gpudirect": "GPUDirect RDMA and OFED",
    "vm_topology": "NCCL topology inside VMs",
    "topology_conf": "SLURM topology.conf",
    "storage_network": "Storage on the back end (GPU 0's NIC)",
    "small_file_storage": "Self-built storage (small files)",
}
SLA_SOURCES = {"failure_model": "The failure model (downtime)", "fixed_share": "A fixed share of revenue"}
SUBNET_MANAGERS = {"ufm": "UFM (licence per NIC)", "opensm": "OpenSM"}
KPIS = [
    "availability",
    "goodput",
    "interruptions_per_month",
    "performance_factor",
    "sla_credits_usd_per_year",
    "npv_usd",
]
HOT_SPARES_TRIED = 0.03  # hot-spare share tried when the scenario has none: the 3 % (issue #13)


@dataclass(frozen=True)
class Choice:
    """One alternative to the open scenario: which group it belongs to, what it does, and the fields it sets."""

    group: str
    label: str
    change: tuple[tuple[str, Any], ...]
    """(dotted field path, value) pairs laid over the open scenario."""


def _nested(change: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path, value in change:
        *parents, leaf = path.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


def _default(path: str) -> Any:
    return field_info(path)[0].default


def choices(scenario: Scenario) -> list[Choice]:
    """The alternatives worth pricing against ``scenario``: each flips or moves one operating or design choice."""
    ops, fabric, timeline = scenario.operations, scenario.fabric, scenario.timeline
    out: list[Choice] = []
    if timeline.integration_burn_in_weeks > 0 or timeline.onsite_burn_in_days > 0:
        out.append(
            Choice(
                "Operations",
                "Skip burn-in (OEM and on site)",
                (("timeline.integration_burn_in_weeks", 0.0), ("timeline.onsite_burn_in_days", 0.0)),
            )
        )
    else:
        weeks, days = _default("timeline.integration_burn_in_weeks"), _default("timeline.onsite_burn_in_days")
        out.append(
            Choice(
                "Operations",
                f"Burn in {weeks:g} weeks at the OEM and {days:g} days on site",
                (("timeline.integration_burn_in_weeks", weeks), ("timeline.onsite_burn_in_days", days)),
            )
        )
    if scenario.cluster.hot_spare_share > 0:
        out.append(Choice("Operations", "No hot spares", (("cluster.hot_spare_share", 0.0),)))
    else:
        out.append(
            Choice("Operations", f"{HOT_SPARES_TRIED:.0%} hot spares", (("cluster.hot_spare_share", HOT_SPARES_TRIED),))
        )
    interval = ops.checkpoint_interval_minutes
    lo, hi = _bounds("operations.checkpoint_interval_minutes")
    for factor in (0.5, 2.0):
        tried = min(max(interval * factor, lo), hi)
        if tried != interval:
            out.append(
                Choice(
                    "Operations",
                    f"Checkpoint every {tried:,.4g} min",
                    (("operations.checkpoint_interval_minutes", tried),),
                )
            )
    vms = "Tenants on VMs" + ("" if ops.nccl_topo_file else " without NCCL_TOPO_FILE")
    out.append(
        Choice(
            "Operations",
            "Tenants on bare metal" if ops.virtual_machines else vms,
            (("operations.virtual_machines", not ops.virtual_machines),),
        )
    )
    platform = default_platforms().get(scenario.cluster.gpu_model)
    if platform is not None and not platform.rack_scale:  # a rack-scale tray fixes its back-end NICs
        nics = 4 if fabric.nics_per_node == 8 else 8
        out.append(Choice("Design", f"{nics} back-end NICs per server", (("fabric.nics_per_node", nics),)))
    topologies = set(_literal("fabric.topology"))
    for (topology, oversub), label in TOPOLOGIES.items():
        if topology in topologies and (topology, oversub) != (fabric.topology, fabric.oversubscription):
            out.append(Choice("Design", label, (("fabric.topology", topology), ("fabric.oversubscription", oversub))))
    manager = "opensm" if fabric.subnet_manager == "ufm" else "ufm"
    if fabric.topology != "spectrum_x":  # an InfiniBand choice: Ethernet (RoCE) has no subnet manager
        out.append(
            Choice(
                "Design",
                "OpenSM instead of UFM" if manager == "opensm" else "UFM instead of OpenSM",
                (("fabric.subnet_manager", manager),),
            )
        )
    for item, label in CHECKLIST.items():
        if item == "nccl_topo_file" and not ops.virtual_machines:
            continue  # matters only inside VMs
        done = bool(getattr(ops, item))
        out.append(
            Choice("Readiness", f"{'Without' if done else 'With'}: {label}", ((f"operations.{item}", not done),))
        )
    for scheduler in _literal("operations.scheduler"):
        if scheduler != ops.scheduler:
            out.append(
                Choice(
                    "Readiness",
                    f"Scheduler: {SCHEDULERS.get(scheduler, scheduler)}",
                    (("operations.scheduler", scheduler),),
                )
            )
    return out


def _literal(path: str) -> list[Any]:
    return list(typing.get_args(field_info(path)[1]))


def _bounds(path: str) -> tuple[float, float]:
    """(lowest, highest) value the scenario accepts for the number field ``path``."""
    lo, hi = -math.inf, math.inf
    for meta in field_info(path)[0].metadata:
        lo = float(typing.cast(float, meta.ge)) if isinstance(meta, Ge) else lo
        hi = float(typing.cast(float, meta.le)) if isinstance(meta, Le) else hi
    return lo, hi


@dataclass(frozen=True)
class Priced:
    """One choice evaluated by the model: its result and ``to_dict()``, or why the model refused it."""

    choice: Choice
    result: Result | None
    figures: dict[str, Any]
    error: str = ""
    breakeven_loss: float | None = None
    """Back-end designs: the performance loss at which the cheaper of this and the open scenario stops paying."""

    def delta(self, base: dict[str, Any], key: str, scale: float = 1.0) -> float | None:
        """This alternative's figure ``key`` minus the open scenario's (``None`` where either is undefined)."""
        if self.result is None:
            return None
        a, b = metrics.lookup(self.figures, key), metrics.lookup(base, key)
        return None if a is None or b is None else (a - b) * scale


@st.cache_resource(max_entries=256, show_spinner=False)
def _priced(scenario_text: str, label: str, _choice: Choice, _base: Result) -> Priced:
    """The choice labelled ``label`` of the scenario (JSON ``scenario_text``, evaluated as ``_base``) run through the
    whole model, once per scenario; a back-end design also gets the model's break-even performance loss."""
    try:
        variant = neoplan.evaluate(scenario_from_dict(deep_merge(json.loads(scenario_text), _nested(_choice.change))))
    except ScenarioError as exc:
        return freeze(Priced(_choice, None, {}, str(exc)))
    loss = None
    if _choice.group == "Design" and _choice.change[0][0] != "fabric.subnet_manager":
        loss = breakeven_performance_loss(*_cheaper_first(variant, _base))
    return freeze(Priced(_choice, variant, variant.to_dict(), breakeven_loss=loss))


def priced_choices(base: Result, groups: tuple[str, ...] = ("Operations", "Design", "Readiness")) -> list[Priced]:
    """The choices of ``base``'s scenario in ``groups``, each evaluated (cached per scenario and choice: the checklist
    tab waits only for its own)."""
    text = scenario_json(base.scenario)
    return [_priced(text, c.label, c, base) for c in choices(base.scenario) if c.group in groups]


def _cheaper_first(a: Result, b: Result) -> tuple[Result, Result]:
    return (a, b) if a.capex_total_usd < b.capex_total_usd else (b, a)


def _on_check(path: str) -> None:
    update_field(path, bool(st.session_state[WIDGET_PREFIX + path]))


def checklist_box(path: str, label: str, where: Any) -> None:
    """A checkbox bound to the bool field ``path`` (saved in the scenario), with its error under it if any."""
    key = WIDGET_PREFIX + path
    st.session_state[key] = bool(current_value(path))  # always the scenario's value (see field_input)
    where.checkbox(label, key=key, help=field_info(path)[0].description or None, on_change=_on_check, args=(path,))
    error = field_errors().get(path)
    if error:
        where.error(fmt.plain(humanize(error)))


def _signed_usd(value: float | None) -> str:
    if value is None:
        return fmt.NA
    return ("+" if value > 0 else "") + fmt.usd(value)


def _hours(value: float) -> str:
    return f"{value:,.1f} h" if math.isfinite(value) else "no failures"


def _points(fraction: float) -> str:
    """A difference of two fractions in percentage points, signed: ``+0.29 pp`` (``0.00 pp`` when it rounds to 0)."""
    points = round(fraction * 100, 2)
    return f"{'+' if points > 0 else '−' if points < 0 else ''}{abs(points):,.2f} pp"


def choices_table(priced: list[Priced], base: dict[str, Any]) -> pd.DataFrame:
    """One row per alternative: its group, what it does, and the Δ of the figures that matter against ``base``."""
    return pd.DataFrame(
        [
            {
                "Group": p.choice.group,
                "Alternative": p.choice.label,
                "Δ NPV": p.delta(base, "npv_usd"),
                "Δ project IRR [pp]": p.delta(base, "project_irr", 100),
                "Δ TCO [$/GPU-h]": p.delta(base, "tco_usd_per_gpu_hour"),
                "Δ capex": p.delta(base, "capex_usd.total"),
                "Δ goodput [pp]": p.delta(base, "goodput", 100),
                "Performance": p.figures.get("performance_factor"),
                "Not possible because": p.error,  # a dataframe shows text as is
            }
            for p in priced
        ]
    )


def penalty_table(priced: list[Priced], result: Result) -> pd.DataFrame:
    """For each back-end design alternative: which of the two is cheaper, by how much, the performance it loses in
    the model and the loss at which it would stop paying (the model's break-even performance loss)."""
    rows = []
    for p in priced:
        if p.result is None or p.choice.group != "Design" or p.choice.change[0][0] == "fabric.subnet_manager":
            continue
        cheaper, dearer = _cheaper_first(p.result, result)
        if cheaper.operations is None or dearer.operations is None:
            continue
        loss = 1 - cheaper.operations.performance_factor / dearer.operations.performance_factor
        breakeven = p.breakeven_loss
        rows.append(
            {
                "Cheaper design": p.choice.label if cheaper is p.result else "This scenario",
                "Against": "this scenario" if cheaper is p.result else p.choice.label,
                "Capex saved": dearer.capex_total_usd - cheaper.capex_total_usd,
                "Performance loss (model)": loss,
                "Loss at which it stops paying": breakeven,
                "Verdict": fmt.NA if breakeven is None else ("still pays" if loss < breakeven else "stops paying"),
            }
        )
    return pd.DataFrame(rows)


def checklist_effects(
    priced: list[Priced], report: OperationsReport, base: dict[str, Any]
) -> dict[str, tuple[str, float | None]]:
    """Per checklist item: the model's one-line effect of the gap, and the Δ NPV of flipping the item."""
    gaps = {gap.item: gap.effect for gap in report.gaps}
    out: dict[str, tuple[str, float | None]] = {}
    for p in priced:
        path, _ = p.choice.change[0]
        item = path.removeprefix("operations.")
        if p.choice.group != "Readiness" or item not in CHECKLIST:
            continue
        variant_gaps = (
            {}
            if p.result is None or p.result.operations is None
            else {gap.item: gap.effect for gap in p.result.operations.gaps}
        )
        out[item] = (gaps.get(item) or variant_gaps.get(item) or p.error, p.delta(base, "npv_usd"))
    return out


def reliability_tab(result: Result | None, report: OperationsReport | None) -> None:
    """Failure and recovery inputs; MTBF, MTTR, detection, lost time, spares; where the GPU-hours go."""
    left, right = st.columns([1, 2], gap="large")
    with left:
        st.subheader("Failures and recovery")
        field_input("operations.failure_preset", "Failure rate reference", options_labels=PRESETS)
        field_input("operations.mtbf_multiple", "MTBF [× the reference's]")
        field_input("operations.checkpoint_interval_minutes", "Checkpoint interval [min]", fmt="%.0f")
        field_input("operations.job_share", "One job spans [% of the GPUs]")
        field_input("cluster.hot_spare_share", "Hot spares [% of servers]")
        field_input("opex.remote_hands_usd_per_hour", "Remote hands [$/hour]", fmt="%.0f")
        st.subheader("Burn-in")
        field_input("timeline.integration_burn_in_weeks", "OEM integration burn-in [weeks]")
        field_input("timeline.onsite_burn_in_days", "On-site burn-in [days]", fmt="%.1f")
        field_input("operations.early_life_hazard_multiple", "New hardware fails [× the steady rate]")
        if result is not None and result.platform.rack_scale:
            st.subheader("Rack-scale failure domain")
            field_input("cluster.held_back_trays_per_rack", "Trays held back per rack [count]")
            st.caption(
                "A rack with more than two trays down is cordoned whole (CoreWeave's rule); held-back trays are "
                "not sold and cover the first trays down in their rack."
            )
        st.subheader("SLA credits")
        field_input("operations.sla_credits", "SLA credits from", options_labels=SLA_SOURCES)
        if get_scenario().operations.sla_credits == "fixed_share":
            field_input("pricing.sla_credit_share", "SLA credits [% of revenue]")
        else:
            field_input("operations.sla_credit_multiple", "Credit per GPU-hour down [GPU-hours]")
    if result is None or report is None:
        return
    with right:
        with st.container(key=f"{DETAIL_KEY}_reliability"):  # three a row: "Lost per interruption" whole at 1,280 px
            c1, c2, c3 = st.columns(3)
            c4, c5, c6 = st.columns(3)
            c1.metric(
                "Cluster MTBF",
                _hours(report.mtbf_hours),
                help="Mean time between job-interrupting failures of the whole cluster.",
            )
            c2.metric(
                "MTTR",
                _hours(report.mttr_hours),
                help="Mean time a failed server is out of service: repairs waiting for a part, and reboots "
                "(a hot spare takes its place sooner).",
            )
            c3.metric(
                "Detection",
                f"{report.detection_minutes:,.1f} min",
                help="Mean time to notice an interruption: hangs wait for the NCCL watchdog or the power-draw "
                "detector, fail-stops are seen at once.",
            )
            c4.metric(
                "Lost per interruption",
                f"{report.lost_minutes_per_interruption:,.0f} min",
                help="Job time lost: detection + half the checkpoint interval + checkpoint restore + relaunch "
                "(+ a reboot or spare swap for hardware failures).",
            )
            c5.metric(
                "Lost GPU-hours",
                f"{report.lost_gpu_hours_per_month:,.0f} /month",
                help="GPU-hours of interrupted jobs lost each month at steady state, silent data corruption "
                "found late included.",
            )
            unit = result.basis.reliability.repair_unit if result.basis and result.basis.reliability else "server"
            c6.metric(
                f"{unit.capitalize()}s down",
                f"{report.servers_down:,.2f}",
                help=f"Mean {unit}s out of service and not covered by a hot spare (the {unit} is the unit of repair).",
            )
            c7, c8, c9 = st.columns(3)
            label, value, help_text = metrics.card("spare_servers", result.spare_servers)
            c7.metric(label, value, help=help_text)
            c8.metric(
                "Early-life failures",
                f"{report.early_life_interruptions:,.1f}",
                help="Extra failures of new hardware reaching customers after go-live; burn-in finds them "
                f"before. Goodput once they have died out: {fmt.pct(report.steady_goodput, 2)}.",
            )
            c9.metric(
                "Repairs (RMA)",
                f"{report.repairs_per_month:,.1f} /month",
                help="Failures that need a part or the server replaced: each is an RMA to the OEM and a "
                "remote-hands visit. Parts are the OEM's under warranty, then the support contract's.",
            )
            c10, _, _ = st.columns(3)
            c10.metric(
                "Repair bill",
                fmt.usd(report.repair_usd_per_year) + " /year",
                help="Remote hands and freight for those repairs (opex line 'Repairs'); hot spares are capex, "
                "staff and the support contract are their own opex lines.",
            )
        inputs = scenario_json(result.scenario)
        chart(gpu_hours_figure, report, inputs=inputs, key="operations.gpu_hours")
        chart(interruptions_figure, report, inputs=inputs, key="operations.interruptions")
        chart(
            lost_time_figure,
            report,
            result.scenario.operations.checkpoint_interval_minutes,
            inputs=inputs,
            key="operations.lost_time",
        )


def choices_tab(result: Result | None, report: OperationsReport | None, base: dict[str, Any]) -> None:
    """Design inputs; Δ NPV of every alternative; break-even performance penalties; performance by cause."""
    left, right = st.columns([1, 2], gap="large")
    with left:
        st.subheader("Performance by design")
        field_input("operations.performance_elasticity", "Price elasticity to performance [ratio]")
        field_input("operations.virtual_machines", "Tenants on virtual machines")
        if result is None or not result.platform.rack_scale:
            field_input("fabric.nics_per_node", "Back-end NICs per server")
        field_input("fabric.topology", "Back-end design")
        field_input("fabric.oversubscription", "Oversubscription at the leaf [N:1]")
        if get_scenario().fabric.topology != "spectrum_x":  # InfiniBand only
            field_input("fabric.subnet_manager", "Subnet manager", options_labels=SUBNET_MANAGERS)
    if result is None or report is None:
        return
    priced = priced_choices(result)
    with right:
        with st.container(key=f"{DETAIL_KEY}_choices"):
            c1, c2, c3 = st.columns(3)
            c1.metric(
                "Price factor",
                fmt.ratio(report.price_factor),
                help="Multiplier on the achievable price: the delivered performance customers cannot see at "
                "signature (fabric, rank placement, storage), through the elasticity. Reliability moves the "
                "market tier instead (The article's advice tab); 4 NICs lose customers, not price.",
            )
            c2.metric(
                "Utilization factor",
                fmt.ratio(report.utilization_factor),
                help="Multiplier on utilization: the customers a readiness gap turns away.",
            )
            c3.metric(
                "Goodput vs reference",
                _points(report.goodput - report.reference_goodput),
                help="Goodput minus that of the same cluster with the checklist done, default burn-in and no "
                "hot spares [percentage points].",
            )
        table = choices_table(priced, base)
        chart(
            choices_figure,
            table["Alternative"].tolist(),
            table["Δ NPV"].tolist(),
            "What each alternative is worth against this scenario",
            inputs=scenario_json(result.scenario),
            key="operations.choices",
        )
        st.dataframe(
            table if table["Not possible because"].any() else table.drop(columns="Not possible because"),
            hide_index=True,
            width="stretch",
            height="content",
            column_config={
                "Group": st.column_config.TextColumn(width="small"),
                "Alternative": st.column_config.TextColumn(width="large"),
                "Δ NPV": fmt.dollar_column(),
                "Δ capex": fmt.dollar_column(),
                "Δ project IRR [pp]": st.column_config.NumberColumn(format="%.2f"),
                "Δ TCO [$/GPU-h]": st.column_config.NumberColumn(format="%.3f"),
                "Δ goodput [pp]": st.column_config.NumberColumn(format="%.2f"),
                "Performance": st.column_config.NumberColumn(format="%.3f"),
            },
        )
        st.caption(
            "Each row re-runs the whole model with that one change; Δ = the alternative minus this scenario. "
            "Performance is the alternative's delivered performance against the NVIDIA reference design with the "
            "full software stack; the price follows it through the elasticity."
        )
        st.subheader("Break-even performance penalty")
        penalties = penalty_table(priced, result)
        if len(penalties):
            st.dataframe(
                penalties,
                hide_index=True,
                width="stretch",
                column_config={
                    "Capex saved": fmt.dollar_column(),
                    "Performance loss (model)": st.column_config.NumberColumn(format="percent"),
                    "Loss at which it stops paying": st.column_config.NumberColumn(format="percent"),
                },
            )
            st.caption(
                "How much delivered performance the cheaper design may lose against the other before its NPV falls "
                "to the other's (at the elasticity set on the left), and the loss the model applies to it."
            )
        st.subheader("Delivered performance by cause")
        st.dataframe(
            pd.DataFrame(
                {
                    "Cause": [CAUSE_NAMES.get(k, k) for k in report.performance_by_cause],
                    "Factor": list(report.performance_by_cause.values()),
                }
            ),
            hide_index=True,
            column_config={"Factor": st.column_config.NumberColumn(format="%.3f")},
        )
        st.caption(
            f"Each factor taken alone against the reference; together {report.performance_factor:.3f} (bandwidth "
            "losses combine before they stretch the communication time)."
        )


@st.cache_data(max_entries=32, show_spinner="Testing each recommendation on this scenario …")
def _advice(scenario_text: str) -> pd.DataFrame:
    """:func:`neoplan.analysis.advice.recommendations` of the scenario (JSON), once per scenario."""
    return recommendations(scenario_from_dict(json.loads(scenario_text)))


def advice_tab(result: Result | None) -> None:
    """The article's recommendations tested on the scenario: NPV difference and the input at which each flips."""
    left, right = st.columns([1, 2.6], gap="large")
    with left:
        st.subheader("Customers")
        field_input("customers.tier_gap", "Goodput gap between market tiers [%]")
        field_input("customers.premium_gold", "Gold-tier on-demand premium [%]")
        field_input("customers.churn_silver_per_year", "Churn at renewal, silver tier [% a year]")
        field_input("customers.idle_months", "Idle months after a churned customer")
        field_input("customers.acceptance_test_days", "Acceptance test [days]")
        platform = default_platforms().get(get_scenario().cluster.gpu_model)
        if platform is None or not platform.rack_scale:  # a rack-scale tray fixes its NICs: no 4-NIC offer
            field_input("operations.four_nic_refusal_share", "Customers refusing 4 NICs [%]")
        if get_scenario().fabric.topology != "spectrum_x":  # OpenSM is an InfiniBand subnet manager
            field_input("opex.opensm_engineering_fte", "OpenSM engineering [FTE]")
        with st.expander("More customer inputs"):
            field_input("customers.churn_gold_per_year", "Churn at renewal, gold tier [% a year]")
            field_input("customers.churn_bronze_per_year", "Churn at renewal, bronze tier [% a year]")
            field_input("customers.discount_bronze", "Bronze-tier on-demand discount [%]")
            field_input("customers.reacquisition_months", "Revenue lost winning a new customer [months]")
            field_input("customers.acceptance_pass_probability", "Acceptance test passed first time [%]")
            field_input("customers.acceptance_retest_days", "Acceptance re-test after a failure [days]")
            field_input("customers.acceptance_failure_credit", "Credit for a failed acceptance [% of a month]")
    if result is None or result.customers is None:
        return
    c = result.customers
    with right:
        with st.container(key=f"{DETAIL_KEY}_advice"):  # two a row: "Acceptance test fails" whole at 1,280 px
            c1, c2 = st.columns(2)
            c3, c4 = st.columns(2)
            c1.metric(
                "Market tier",
                f"{c.tier} ({c.tier_position:.2f})",
                help="First-year goodput against the same cluster run the reference way (silver, the index price): "
                "a tier gap above is gold, below bronze.",
            )
            c2.metric(
                "On-demand premium", fmt.pct(c.on_demand_premium, 1), help="List price over the index at this tier."
            )
            c3.metric(
                "Churn at renewal",
                fmt.pct(c.churn_per_year, 1) + " /year",
                help=f"Reserved customers lost a year from the first renewal on; the book loses "
                f"{fmt.pct(c.churn_loss_share, 2)} of its revenue a month to idle capacity and winning new ones.",
            )
            c4.metric(
                "Acceptance test fails",
                fmt.pct(c.acceptance_failure_probability, 1),
                help=f"Chance the customer's acceptance test at go-live fails; expected loss "
                f"{c.acceptance_loss_months:.2f} months of revenue (delay and credit).",
            )
        table = _advice(scenario_json(result.scenario))
        shown = pd.DataFrame(
            {
                "Recommendation": table["recommendation"],
                "Recommended": table["recommended"],
                "Alternative": table["alternative"],
                "NPV difference": table["npv_difference_usd"],
                "Wins": table["wins"].map(lambda w: fmt.NA if pd.isna(w) else ("yes" if w else "no")),
                "Decided by": table["lever"],
                "Model": [
                    value_text(None if pd.isna(v) else float(v), u)
                    for v, u in zip(table["model_value"], table["unit"], strict=True)
                ],
                "Flips at": [flip_text(row) for _, row in table.iterrows()],
                "How the model prices it": table["channel"],
            }
        )
        st.dataframe(
            shown,
            hide_index=True,
            width="stretch",
            column_config={
                "Recommendation": st.column_config.TextColumn(width="large"),
                "NPV difference": fmt.dollar_column(),
            },
        )
        st.caption(
            "Each recommendation of the SemiAnalysis playbook re-runs the whole model twice, with the recommended "
            "choice and with the alternative, everything else as this scenario has it; NPV difference = "
            "recommended − alternative at the hurdle rate. 'Decided by' is the input the result turns on, "
            "'Model' its value here and 'Flips at' the value at which the two tie (for a price premium: what the "
            "dearer alternative would have to charge more to break even)."
        )


def readiness_tab(result: Result | None, report: OperationsReport | None, base: dict[str, Any]) -> None:
    """The checklist: a checkbox per item, saved in the scenario, each with its priced effect."""
    st.caption(
        "What customers expect on day one (the article). Untick what the cluster will not have at go-live: each "
        "gap is priced through delivered performance, detection time, failures or the customers it turns away. "
        "Saved with the scenario. The last column is the model's NPV if you flip the item (untick a ticked one, "
        "tick an unticked one), everything else unchanged."
    )
    effects = {}
    if result is not None and report is not None:
        effects = checklist_effects(priced_choices(result, ("Readiness",)), report, base)
    ops = get_scenario().operations
    widths = [3, 4, 1.3]
    for col, title in zip(st.columns(widths), ("In place", "What the gap costs", "NPV if flipped"), strict=True):
        col.markdown(f"**{title}**")
    for item, label in CHECKLIST.items():
        box, effect, value = st.columns(widths, vertical_alignment="center")
        checklist_box(f"operations.{item}", label, box)
        if item == "nccl_topo_file" and not ops.virtual_machines:
            effect.caption("Matters only when tenants get virtual machines (Effect of each choice tab).")
            continue
        text, delta = effects.get(item, ("", None))
        if text:
            effect.caption(fmt.plain(text))
        if delta is not None:
            colour = "green" if delta >= 0 else "red"
            value.markdown(f":{colour}[**{fmt.plain(_signed_usd(delta))}**]")
    field_input("operations.scheduler", "Scheduler offered", options_labels=SCHEDULERS)
    for gap in [] if report is None else report.gaps:
        if gap.item == "scheduler":
            st.caption(fmt.plain(f"{gap.label}: {gap.effect}"))


st.title("Operations")
st.caption(
    "Failures interrupt training jobs; detection, restart and the work since the last checkpoint turn each into "
    "lost GPU-hours. Burn-in, hot spares, the software stack and the fabric design decide how many sellable "
    "GPU-hours customers can use and how fast their jobs run, and so the price they pay."
)

with st.container():  # everything above the tabs in one block, so a message coming or going keeps the open tab
    result = evaluate_current()
    report = None if result is None else result.operations
    base = {} if result is None else result.to_dict()
    if result is not None:
        metric_cards(KPI_KEY, [metrics.cards(base, KPIS)], font_rem=1.5, per_row=3)  # 6 a row cut the labels

for name in ("reliability", "choices", "advice"):
    compact_metrics(f"{DETAIL_KEY}_{name}", 1.2)
# Only the open tab runs (on_change="rerun"; .open is None where Streamlit tracks no tab state, and all run): pricing
# every alternative re-runs the model some 25 times, which only the two tabs that show it wait for. keep() brings
# the user back to the tab they left.
keep(TABS_KEY, TABS[0])
tab_rel, tab_choices, tab_ready, tab_advice = st.tabs(TABS, key=TABS_KEY, on_change="rerun")
if tab_rel.open is not False:
    with tab_rel:
        reliability_tab(result, report)
if tab_choices.open is not False:
    with tab_choices:
        choices_tab(result, report, base)
if tab_ready.open is not False:
    with tab_ready:
        readiness_tab(result, report, base)
if tab_advice.open is not False:
    with tab_advice:
        advice_tab(result)
