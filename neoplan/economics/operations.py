"""Operations and reliability economics: failures, recovery, availability, goodput and delivered performance.

Every constant comes from ``data/operations.csv`` (source, date, basis); the scenario's own choices from its
``operations:`` section (:class:`neoplan.inputs.scenario.Operations`). Conventions: rates per month of the whole
cluster, times in the unit their names give, shares as fractions.

**Failures.** Job-interrupting failures scale with GPUs from a preset (the article: one per 7 days per 512 H100;
Meta's Llama 3: 419 in 54 days on 16,384 H100), divided by ``mtbf_multiple``, split by cause with the Llama 3
counts. Network failures scale with the back end's transceivers per GPU against the all-optics fabric the presets
were measured on (lasers fail, passive copper hardly does). New hardware fails ``hazard_multiple`` times as often,
decaying with ``decay_weeks``; burn-in (OEM integration weeks + on-site days) ages it before customers see it.

**Cost of an interruption** (job GPU-hours): the job (``job_share`` of the GPUs) loses detection (hangs wait for
the detector: 5 min power-draw detector or the 30–35 min NCCL watchdog) + half a checkpoint interval + the
checkpoint read back at the storage's throughput + relaunch + (hardware failures) a reboot, or a swap to a hot
spare when one is free. Silent data corruption not caught by checks costs a long rollback.

**Availability** = share of sellable GPU-hours whose server is up: servers waiting for a part (Poisson, mean
= repair rate × repair time) not covered by hot spares, plus reboots not covered by a spare.
**Goodput** = availability × (1 − job GPU-hours lost ÷ GPU-hours) ≤ availability.
Spares and RMA in money: hot-spare servers are capex (``cluster.hot_spare_share``, bought, racked, cabled and
idling); replacement parts are the OEM's under the warranty and ``opex.support_rate`` after it, so no second
RMA line is added here. SLA credits (``operations.sla_credits = failure_model``) = unavailability ×
``sla_credit_multiple`` of gross revenue, replacing the fixed ``pricing.sla_credit_share`` (kept for
``fixed_share``); early-life failures are credited at the performance elasticity in the months they happen.

**Delivered performance** vs the NVIDIA reference (non-blocking, rail-optimized, 8 NICs, full software stack,
storage on the front end): a step is (1 − c) compute + c exposed communication at full bandwidth; less bandwidth
stretches the communication part (``1 / ((1 − c) + c / bandwidth_ratio)``). A missing topology.conf slows the
collectives at the message sizes bad rank placement hits (the article's 20–30 % "for certain important message
sizes"), a bandwidth ratio on that share of the communication, not the whole job; storage on the back end puts each
server's storage traffic on GPU 0's NIC while it reads at its target, and collectives wait for that straggler;
self-built (NFS-class) storage is a direct throughput factor (small-file stalls). On a rack-scale (NVL72) platform
the scale-out fabric's units are compute trays: traffic crosses the spines once the trays outnumber one scalable
unit of leaves (the NVLink domain carries what stays in the rack).

**Into money.** Effects a customer cannot see at signature (fabric, rank placement, storage) move the achievable
price by ``performance_elasticity`` × the change of delivered performance. An observable spec cut (4 back-end NICs)
is lost demand instead: ``four_nic_refusal_share`` of the customers refuse it, a lost segment that slows filling
(utilization). Reliability (goodput) prices through the market tier, churn and the acceptance test
(:mod:`neoplan.economics.customers`), not the elasticity.

**Rack-scale failure domain.** On an NVL72 rack ``cluster.held_back_trays_per_rack`` trays are kept out of sale
and cover the first trays down in their rack; a rack with more than ``rack.cordon_above_trays_down`` trays down is
cordoned whole (CoreWeave) until they are back; failed trays are exchanged in the same rack. With D ~ Poisson(m)
trays down in a rack (m = the cluster's mean trays down ÷ racks), a rack loses min(max(D − held, 0), sold) sold
trays while D is within the threshold and all its sold trays above it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import numpy as np

from ..inputs.pricebook import DATA_DIR, PriceBookError, default_platforms, read_assumptions
from ..timebase import DAYS_PER_MONTH, HOURS_PER_MONTH, WEEKS_PER_MONTH

if TYPE_CHECKING:
    from ..inputs.business import Operations
    from ..inputs.scenario import Scenario

OPERATIONS_FILE = DATA_DIR / "operations.csv"
CAUSES = ("gpu", "hbm", "network", "host", "software", "sdc")
"""Failure causes, as Meta's Llama 3 table groups them (sdc = silent data corruption)."""
HARDWARE_CAUSES = ("gpu", "hbm", "network", "host", "sdc")
"""Causes that take a server out (reboot or repair); software failures only need a relaunch."""
PRESETS = ("article", "llama3")
Value = TypeVar("Value", float, np.ndarray)
"""One case as a Python float, or n cases as an array (n,): the failure model's math runs on either."""
FULL_NICS = 8
"""Back-end NICs per HGX server of the reference design (one per GPU) [count]."""
OBSERVABLE = ("backend_nics",)
"""Performance causes a customer sees in the spec sheet: priced as lost demand, not through the elasticity."""
DIRECT = ("small_file_storage",)
"""Performance causes that are a direct throughput factor rather than a bandwidth ratio."""


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/operations.csv (evaluate 1 → 4 ms without)
def constants() -> Mapping[str, float]:
    """The constants of ``data/operations.csv`` by key [the unit of each row] (read-only)."""
    return MappingProxyType({k: row.value for k, row in read_assumptions(OPERATIONS_FILE).items()})


def constant(key: str) -> float:
    """One constant of ``data/operations.csv``."""
    try:
        return constants()[key]
    except KeyError:
        raise PriceBookError(f"{OPERATIONS_FILE.name} has no key {key!r}") from None


# --- failures -------------------------------------------------------------------------------------------------------


def failures_per_month(preset: str, gpus: float, mtbf_multiple: float = 1.0) -> float:
    """Job-interrupting failures per month of ``gpus`` GPUs at the preset's rate (network at its measured optics)."""
    return _per_gpu_day(preset) * DAYS_PER_MONTH * gpus / mtbf_multiple


def _per_gpu_day(preset: str) -> float:
    """Job interruptions per GPU-day of a failure preset [count/GPU-day]."""
    if preset not in PRESETS:
        raise ValueError(f"operations.failure_preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    return constant(f"failures.{preset}.interruptions") / (
        constant(f"failures.{preset}.days") * constant(f"failures.{preset}.gpus")
    )


def cause_shares() -> dict[str, float]:
    """Share of interruptions by cause (Llama 3 counts) [fraction]."""
    counts = {c: constant(f"cause.{c}.count") for c in CAUSES}
    total = sum(counts.values())
    return {c: v / total for c, v in counts.items()}


def optics_factor(transceivers_per_gpu: float) -> float:
    """Network failures of a fabric vs the all-optics fabric of the presets [ratio]: only the optics part scales."""
    share = constant("network.optics_failure_share")
    return (1.0 - share) + share * transceivers_per_gpu / constant("network.optics_per_gpu_all_optics")


def interruptions_by_cause(
    preset: str, gpus: float, transceivers_per_gpu: float, mtbf_multiple: float = 1.0
) -> dict[str, float]:
    """Steady-state job interruptions per month by cause [count/month]."""
    total = failures_per_month(preset, gpus, mtbf_multiple)
    out = {c: total * s for c, s in cause_shares().items()}
    out["network"] *= optics_factor(transceivers_per_gpu)
    return out


def burn_in_months(integration_burn_in_weeks: float, onsite_burn_in_days: float) -> float:
    """Age of the hardware when customers get it [months]."""
    return integration_burn_in_weeks / WEEKS_PER_MONTH + onsite_burn_in_days / DAYS_PER_MONTH


def early_life_interruptions(rate_per_month: Value, burn_in: float, hazard_multiple: float) -> Value:
    """Extra interruptions customers see over the hardware's life from early failures [count].

    Hazard ``rate × A × exp(−age/τ)`` on top of the steady rate (A = ``hazard_multiple``), integrated from the age
    at go-live (``burn_in`` months) on: ``rate × A × τ × exp(−burn_in/τ)``.
    """
    return early_life_between(rate_per_month, burn_in, math.inf, hazard_multiple)


def early_life_between(rate_per_month: Value, burn_in: float, window_months: float, hazard_multiple: float) -> Value:
    """Extra interruptions from early failures in the first ``window_months`` after go-live [count]:
    ``rate × A × τ × exp(−burn_in/τ) × (1 − exp(−window/τ))``."""
    tau = constant("early_life.decay_weeks") / WEEKS_PER_MONTH
    return rate_per_month * hazard_multiple * tau * math.exp(-burn_in / tau) * -math.expm1(-window_months / tau)


# --- recovery -------------------------------------------------------------------------------------------------------


def detection_minutes(ops: Operations) -> float:
    """Mean time to detect an interruption [minutes]: hangs wait for the detector, fail-stops are seen at once."""
    return _detection_minutes(ops.nccl_hang_detection, ops.monitoring)


def _detection_minutes(nccl_hang_detection: bool, monitoring: bool) -> float:
    hang = constant("detection.hang_share")
    detector = constant("detection.power_draw_minutes" if nccl_hang_detection else "detection.watchdog_minutes")
    minutes = hang * detector + (1.0 - hang) * constant("detection.fail_stop_minutes")
    return minutes + (0.0 if monitoring else constant("detection.no_monitoring_extra_minutes"))


def restore_minutes(checkpoint_tb: float, read_gbyte_per_s: float) -> float:
    """Time to read a checkpoint back from the shared storage [minutes] (0 without a checkpoint or storage)."""
    if checkpoint_tb <= 0 or read_gbyte_per_s <= 0:
        return 0.0
    return checkpoint_tb * 1000.0 / read_gbyte_per_s / 60.0


def _poisson_tail_terms(spares: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k = spares+1 … stop-1 as floats, ln k!, k − spares) for :func:`expected_excess`'s Poisson tail."""
    k = np.arange(spares + 1, stop, dtype=float)
    return k, np.array([math.lgamma(x + 1.0) for x in k]), k - spares


def expected_excess(mean: np.ndarray, spares: int) -> np.ndarray:
    """E[max(D − spares, 0)] for D ~ Poisson(``mean``) (n,): servers down and not covered by a spare [count] (n,).

    The sum of (k − spares) P(D = k) over k > spares, as far as the largest mean needs (the terms beyond are below
    the last bit; with spares far beyond every mean the whole tail is, and the result 0).
    """
    mean = np.asarray(mean, dtype=float)
    top = float(mean.max(initial=0.0))
    reach = top + 12.0 * math.sqrt(top)
    if spares > reach + 40.0:
        return np.zeros(mean.shape)
    k, log_factorial, excess = _poisson_tail_terms(spares, spares + int(reach + 60.0))
    positive = np.maximum(mean, 1e-300)[..., None]  # a mean of 0 has no tail (its log is not defined)
    log_pmf = -positive + k * np.log(positive) - log_factorial
    return (excess * np.exp(log_pmf)).sum(axis=-1) * (mean > 0)


# --- performance ----------------------------------------------------------------------------------------------------


def _stretch(bandwidth_ratio: float) -> float:
    """Step time vs full bandwidth when back-end bandwidth is ``bandwidth_ratio`` of full [ratio]."""
    c = constant("perf.exposed_comm_share")
    return (1.0 - c) + c / bandwidth_ratio


def performance_by_cause(scenario: Scenario) -> dict[str, float]:
    """Delivered-performance factor of each design choice and checklist gap vs the reference [ratio, ≤ 1 each].

    Bandwidth effects are each taken alone against full bandwidth; :func:`performance_factor` combines the
    bandwidth ratios first, so the factors here multiply to slightly less than the combined factor.
    """
    ratios = _bandwidth_ratios(scenario)
    return {k: 1.0 / _stretch(r) if k not in DIRECT else r for k, r in ratios.items()}


def _scale_out_units(scenario: Scenario) -> tuple[int, int, bool]:
    """(units the back end wires, GPUs per unit, rack-scale): servers, or the compute trays of NVL72 racks."""
    platform = default_platforms().get(scenario.cluster.gpu_model)
    if platform is not None and platform.rack_scale:
        return scenario.cluster.servers * platform.compute_trays, platform.gpus_per_tray, True
    return scenario.cluster.servers, scenario.cluster.gpus_per_node, False


def _bandwidth_ratios(scenario: Scenario) -> dict[str, float]:
    """Back-end bandwidth ratio of each cause [ratio]; the :data:`DIRECT` causes are direct throughput factors."""
    fabric, ops, st = scenario.fabric, scenario.operations, scenario.storage
    servers, gpus_per_unit, rack_scale = _scale_out_units(scenario)
    if fabric.topology == "tor":
        per_leaf = max(scenario.facility.servers_per_rack, 1)
        crossing = 0.0 if servers <= per_leaf else 1.0 - (per_leaf - 1) / (servers - 1)
        congestion = constant("perf.tor_congestion_bandwidth_ratio")
    else:  # rail-optimized: only traffic between pods crosses the spines
        crossing = constant("perf.cross_pod_comm_share") if servers > fabric.servers_per_su else 0.0
        congestion = 1.0
    rail = 1.0 / ((1.0 - crossing) + crossing / congestion)
    spine = 1.0 / ((1.0 - crossing) + crossing * fabric.oversubscription / congestion)
    rdma = constant("perf.gpudirect_off_gbps") / constant("perf.gpudirect_on_gbps")
    placement = 1.0 - (1.0 - constant("perf.topology_conf_missing_factor")) * constant(
        "perf.topology_conf_message_share"
    )
    straggler = 1.0 - gpus_per_unit * st.target_gbps_per_gpu / fabric.nic_gbps  # GPU 0's NIC carries the storage
    return {
        "backend_nics": 1.0 if rack_scale else fabric.nics_per_node / FULL_NICS,
        "rail_layout": rail,
        "oversubscription": spine / rail,
        "gpudirect": 1.0 if (ops.gpudirect_rdma and ops.ofed) else rdma,
        "vm_topology": constant("perf.vm_no_topo_bandwidth_ratio")
        if (ops.virtual_machines and not ops.nccl_topo_file)
        else 1.0,
        "topology_conf": 1.0 if ops.slurm_topology_conf else placement,
        "storage_network": max(straggler, 0.05) if st.network == "backend" else 1.0,
        "small_file_storage": constant("perf.small_file_storage_factor") if st.vendor_class == "self_built" else 1.0,
    }


def performance_factor(scenario: Scenario, *, observable: bool = True) -> float:
    """Delivered performance vs the NVIDIA reference with the full stack [ratio, 0–1].

    Bandwidth ratios multiply (4 NICs and an oversubscribed spine both cut what a GPU gets), then stretch the
    exposed communication; the :data:`DIRECT` factors multiply the result. ``observable=False`` leaves out the
    :data:`OBSERVABLE` causes: the performance a customer cannot see at signature, which the elasticity prices.
    """
    ratios = {k: v for k, v in _bandwidth_ratios(scenario).items() if observable or k not in OBSERVABLE}
    bandwidth = math.prod(v for k, v in ratios.items() if k not in DIRECT)
    return math.prod(v for k, v in ratios.items() if k in DIRECT) / _stretch(bandwidth)


def utilization_factor(scenario: Scenario) -> float:
    """Multiplier on utilization from checklist gaps and spec cuts that drive customers away [ratio, 0–1]."""
    ops = scenario.operations
    factor = _utilization_factor(ops.scheduler, ops.drivers, ops.shared_storage, ops.pkey_isolation)
    _, _, rack_scale = _scale_out_units(scenario)
    if not rack_scale and scenario.fabric.nics_per_node < FULL_NICS:
        factor *= 1.0 - constant("util.segment_loss_elasticity") * ops.four_nic_refusal_share
    return factor


def _utilization_factor(scheduler: str, drivers: bool, shared_storage: bool, pkey_isolation: bool) -> float:
    served = {
        "slurm": constant("util.slurm_share") + constant("util.own_share"),
        "kubernetes": constant("util.kubernetes_share") + constant("util.own_share"),
        "both": 1.0,
        "none": constant("util.own_share"),
    }
    baseline = constant("util.slurm_share") + constant("util.own_share")
    factor = 1.0 - constant("util.segment_loss_elasticity") * max(baseline - served[scheduler], 0.0)
    for in_place, key in ((drivers, "drivers"), (shared_storage, "shared_storage"), (pkey_isolation, "pkey")):
        if not in_place:
            factor *= 1.0 - constant(f"util.{key}_missing_loss")
    return factor


# --- the report -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChecklistGap:
    """One readiness item not in place and what it costs."""

    item: str
    label: str
    channel: str
    """How it is priced: performance, detection, failures or utilization."""
    effect: str


@dataclass(frozen=True)
class Design:
    """What the failure model needs from the sized design (none of it depends on a stress driver).

    ``servers`` and ``spare_servers`` count repair units: servers, or compute trays on a rack-scale platform
    (NVL72), where a failed tray is pulled and swapped while the rest of the rack keeps serving.
    """

    gpus: int
    gpus_per_node: int
    servers: int
    spare_servers: int
    transceivers_per_gpu: float
    restore_minutes: float
    burn_in_months: float
    performance_factor: float
    utilization_factor: float
    repair_unit: str = "server"
    """What ``servers`` counts: ``server`` or ``compute tray``."""
    hidden_performance_factor: float | None = None
    """Performance without the observable causes, which the elasticity prices [ratio]; None = ``performance_factor``."""
    trays_per_rack: int = 1
    """Compute trays per rack-scale rack (the failure domain); 1 = no rack-scale domain (HGX servers)."""
    held_back_trays: int = 0
    """Trays per rack kept out of sale as in-rack spares [count]."""
    cordon_above: int | None = None
    """A rack with more trays down than this is cordoned whole; None = no cordon."""
    hazard_multiple: float = 10.0
    """Early-life failure rate at power-on as a multiple of the steady rate [ratio]."""

    @property
    def priced_performance_factor(self) -> float:
        """The performance the elasticity prices [ratio]."""
        return self.performance_factor if self.hidden_performance_factor is None else self.hidden_performance_factor

    @property
    def racks(self) -> int:
        """Failure domains: rack-scale racks, or one per server [count]."""
        return max(self.servers // self.trays_per_rack, 1)

    @property
    def sold_servers(self) -> int:
        """Repair units on sale: held-back trays excluded [count]."""
        return self.servers - self.held_back_trays * (
            self.servers // self.trays_per_rack if self.trays_per_rack > 1 else 0
        )

    @property
    def sellable_gpus(self) -> int:
        """GPUs on sale: held-back trays' GPUs excluded [count]."""
        return self.gpus * self.sold_servers // self.servers if self.servers else 0


@dataclass(frozen=True)
class Outcome:
    """Steady-state reliability figures of n cases, arrays (n,)."""

    interruptions_per_month: np.ndarray
    detection_minutes: np.ndarray
    lost_minutes_per_interruption: np.ndarray
    lost_gpu_hours_per_month: np.ndarray
    servers_down: np.ndarray
    availability: np.ndarray
    goodput: np.ndarray
    repairs_per_month: np.ndarray
    """Failures that need a part or the server replaced (an RMA and a remote-hands visit) per month."""


def outcome(
    ops: Operations,
    design: Design,
    mtbf_multiple: np.ndarray | float,
    detection: np.ndarray | float,
) -> Outcome:
    """Availability and goodput of n cases for per-case MTBF multiples and detection times (arrays (n,))."""
    mtbf = np.asarray(mtbf_multiple, dtype=float).reshape(-1)
    detect = np.asarray(detection, dtype=float).reshape(-1)
    return Outcome(*_steady_state(ops, design, design.spare_servers, mtbf, detect, ops.sdc_checks))


def own_outcome(ops: Operations, design: Design) -> Outcome:
    """:func:`outcome` of one case at the scenario's own MTBF multiple and detection time."""
    return outcome(ops, design, ops.mtbf_multiple, detection_minutes(ops))


def reference_goodput(ops: Operations, design: Design) -> float:
    """Goodput of the same cluster run the reference way: checklist done, no spares, preset MTBF [fraction]."""
    reference = _steady_state(ops, design, 0, np.ones(1), np.array([_detection_minutes(True, True)]), True, held=0)
    return float(reference[GOODPUT][0])


class _Failures(NamedTuple):
    """What the steady state of a design takes from its failure preset, fabric, spares and SDC checks."""

    interruptions_per_month: float
    """At the preset's MTBF, all causes [count/month]."""
    sdc_per_month: float
    """Silent data corruptions among them [count/month]."""
    hardware_share: float
    """Share of the interruptions that take a server out [fraction]."""
    wait_minutes: float
    """Hardware failure: swap to a hot spare when there are spares, else a reboot [minutes]."""
    relaunch_minutes: float
    sdc_late_minutes: float
    """Job time lost to a silent data corruption found late, averaged over the ones checks catch [minutes]."""
    waiting_per_interruption: float
    """Servers waiting for a part per interruption per month (the Poisson mean ÷ the rate) [count·month]."""
    out_per_interruption: float
    """Servers out for a reboot or a swap per interruption per month (not covered by spares) [count·month]."""
    repairs_per_interruption: float
    """Share of the interruptions that need a part or the server replaced (an RMA) [fraction]."""


def _failures(preset: str, gpus: int, transceivers_per_gpu: float, spare: bool, sdc_checks: bool) -> _Failures:
    """:class:`_Failures` of a design (a pure function of a few design figures)."""
    by_cause = interruptions_by_cause(preset, gpus, transceivers_per_gpu, 1.0)
    total = sum(by_cause.values())
    hardware_share = sum(by_cause[c] for c in HARDWARE_CAUSES) / total
    repair_share, reboot = constant("repair.share"), constant("restart.reboot_minutes")
    wait = constant("restart.spare_swap_minutes") if spare else reboot
    sdc_late = constant("sdc.late_loss_hours") * 60.0 * (1.0 - constant("sdc.caught_share") if sdc_checks else 1.0)
    # a reboot keeps its server out unless a spare takes over, and with spares every hardware failure costs a swap
    out_minutes = hardware_share * (wait if spare else (1.0 - repair_share) * reboot)
    return _Failures(
        interruptions_per_month=total,
        sdc_per_month=by_cause["sdc"],
        hardware_share=hardware_share,
        wait_minutes=wait,
        relaunch_minutes=constant("restart.relaunch_minutes"),
        sdc_late_minutes=sdc_late,
        waiting_per_interruption=hardware_share * repair_share * constant("repair.hours") / HOURS_PER_MONTH,
        out_per_interruption=out_minutes / 60.0 / HOURS_PER_MONTH,
        repairs_per_interruption=hardware_share * repair_share,
    )


GOODPUT = 6
"""Where goodput sits among :func:`_steady_state`'s figures (the order of :class:`Outcome`)."""


def poisson_pmf(mean: np.ndarray | float, counts: np.ndarray) -> np.ndarray:
    """P(D = k) for D ~ Poisson(``mean``) (n,) at each of ``counts`` (K,), shape (n, K); a mean of 0 is all at 0."""
    m = np.atleast_1d(np.asarray(mean, dtype=float)).reshape(-1, 1)
    k = np.asarray(counts, dtype=float)
    log_factorial = np.array([math.lgamma(x + 1.0) for x in k])
    return np.exp(-m + k * np.log(np.maximum(m, 1e-300)) - log_factorial) * (m > 0) + (k == 0) * (m <= 0)


def rack_lost_trays(mean_down: np.ndarray, trays: int, held: int, cordon_above: int | None) -> np.ndarray:
    """Sold trays out of service per rack-scale rack (n,) for D ~ Poisson(``mean_down``) trays down in it [count].

    ``held`` trays are out of sale and cover the first trays down; a rack with more than ``cordon_above`` trays down
    is cordoned and all its ``trays − held`` sold trays are out (see the module doc).
    """
    k = np.arange(trays + 1, dtype=float)
    pmf = poisson_pmf(mean_down, k)
    sold = trays - held
    loss = np.minimum(np.maximum(k - held, 0.0), sold)
    if cordon_above is not None:
        loss = np.where(k > cordon_above, float(sold), loss)
    tail = np.maximum(1.0 - pmf.sum(axis=1), 0.0)  # more trays down than the rack holds: all sold trays out
    return (pmf * loss).sum(axis=1) + tail * sold


def _steady_state(
    ops: Operations,
    design: Design,
    spares: int,
    mtbf: np.ndarray,
    detect: np.ndarray,
    sdc_checks: bool,
    held: int | None = None,
) -> tuple[np.ndarray, ...]:
    """The :class:`Outcome` figures, in its order, of n cases (arrays (n,)).

    Of ``ops`` only the failure preset, checkpoint interval and job share are read, of ``design`` neither the hot
    spares nor the performance and utilization factors: ``spares``, ``sdc_checks`` and the held-back trays
    (``held``, default the design's) are given apart, so that the reference way of running
    (:func:`reference_goodput`) needs no section or design of its own.
    """
    f = _failures(ops.failure_preset, design.gpus, design.transceivers_per_gpu, spares > 0, sdc_checks)
    fixed_min = (
        ops.checkpoint_interval_minutes / 2.0
        + design.restore_minutes
        + f.relaunch_minutes
        + f.hardware_share * f.wait_minutes
    )
    rate = f.interruptions_per_month / mtbf
    lost_min = detect + fixed_min
    lost_gpu_h = ops.job_share * design.gpus * (rate * lost_min + f.sdc_per_month / mtbf * f.sdc_late_minutes) / 60.0
    if design.trays_per_rack > 1:  # rack-scale: trays down per rack, held-back trays and the cordon (module doc)
        held = design.held_back_trays if held is None else held
        per_rack = rate * (f.waiting_per_interruption + f.out_per_interruption) / design.racks
        lost = rack_lost_trays(per_rack, design.trays_per_rack, held, design.cordon_above) * design.racks
        down = expected_excess(lost, spares) if spares else lost
        availability = _clip01(1.0 - down / (design.racks * (design.trays_per_rack - held)))
    else:  # servers waiting for a part (Poisson, covered by spares first) and servers out for a reboot or a swap
        down = expected_excess(rate * f.waiting_per_interruption, spares) + rate * f.out_per_interruption
        availability = _clip01(1.0 - down / design.servers)
    goodput = _clip01(availability * (1.0 - lost_gpu_h / (design.gpus * HOURS_PER_MONTH)))
    return rate, detect, lost_min, lost_gpu_h, down, availability, goodput, rate * f.repairs_per_interruption


def _clip01(x: np.ndarray) -> np.ndarray:
    """``x`` within [0, 1]."""
    return np.minimum(np.maximum(x, 0.0), 1.0)


@dataclass(frozen=True)
class OperationsReport:
    """Reliability and delivered performance of one scenario (steady state unless named)."""

    interruptions_per_month: float
    interruptions_by_cause: dict[str, float]
    early_life_interruptions: float
    mtbf_hours: float
    detection_minutes: float
    restore_minutes: float
    restart_minutes: float
    lost_minutes_per_interruption: float
    lost_gpu_hours_per_month: float
    mttr_hours: float
    servers_down: float
    availability: float
    goodput: float
    """Goodput of the first operating year, early-life failures included [fraction]."""
    steady_goodput: float
    """Goodput once early-life failures have died out [fraction]."""
    reference_goodput: float
    performance_factor: float
    performance_by_cause: dict[str, float]
    utilization_factor: float
    price_factor: float
    sla_credit_share: float
    gaps: list[ChecklistGap]
    repairs_per_month: float = 0.0
    """Failures needing a part or a server swap per month (an RMA and a remote-hands visit each)."""
    repair_usd_per_year: float = 0.0
    """Remote hands and freight for those repairs over a year in service [USD]."""

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-able figures (the ``operations`` block of ``Result.to_dict``)."""
        return {
            "mtbf_hours": self.mtbf_hours,
            "mttr_hours": self.mttr_hours,
            "detection_minutes": self.detection_minutes,
            "restore_minutes": self.restore_minutes,
            "restart_minutes": self.restart_minutes,
            "lost_minutes_per_interruption": self.lost_minutes_per_interruption,
            "lost_gpu_hours_per_month": self.lost_gpu_hours_per_month,
            "early_life_interruptions": self.early_life_interruptions,
            "servers_down": self.servers_down,
            "steady_goodput": self.steady_goodput,
            "reference_goodput": self.reference_goodput,
            "price_factor": self.price_factor,
            "utilization_factor": self.utilization_factor,
            "sla_credit_share": self.sla_credit_share,
            "repairs_per_month": self.repairs_per_month,
            "repair_usd_per_year": self.repair_usd_per_year,
            "interruptions_by_cause": dict(self.interruptions_by_cause),
            "performance_by_cause": dict(self.performance_by_cause),
            "gaps": {g.item: f"{g.label}: {g.effect} ({g.channel})" for g in self.gaps},
        }


def design_of(
    scenario: Scenario,
    *,
    transceivers: int,
    checkpoint_tb: float,
    read_gbyte_per_s: float,
    spare_servers: int,
    trays_per_server: int = 1,
) -> Design:
    """The design figures the failure model needs, from the sized fabric and storage.

    ``trays_per_server`` > 1 (a rack-scale node of that many compute trays) makes the tray the repair unit.
    """
    cl, t = scenario.cluster, scenario.timeline
    rack_scale = trays_per_server > 1
    return Design(
        gpus=cl.gpus,
        gpus_per_node=cl.gpus_per_node,
        servers=cl.servers * trays_per_server,
        spare_servers=spare_servers * trays_per_server,
        transceivers_per_gpu=transceivers / cl.gpus,
        restore_minutes=restore_minutes(checkpoint_tb, read_gbyte_per_s),
        burn_in_months=burn_in_months(t.integration_burn_in_weeks, t.onsite_burn_in_days),
        performance_factor=performance_factor(scenario),
        utilization_factor=utilization_factor(scenario),
        repair_unit="compute tray" if rack_scale else "server",
        hidden_performance_factor=performance_factor(scenario, observable=False),
        trays_per_rack=trays_per_server,
        held_back_trays=cl.held_back_trays_per_rack if rack_scale else 0,
        cordon_above=int(constant("rack.cordon_above_trays_down")) if rack_scale else None,
        hazard_multiple=scenario.operations.early_life_hazard_multiple,
    )


def price_factor(ops: Operations, design: Design, performance_penalty: Value) -> Value:
    """Multiplier on the achievable price [ratio, ≥ 0]: elasticity × the change of the performance customers cannot
    see at signature (:attr:`Design.priced_performance_factor`, times 1 − the stress penalty).

    Floats for one case, arrays (n,) for n cases. Goodput does not enter: reliability moves the market tier
    (:mod:`neoplan.economics.customers`).
    """
    delivered = design.priced_performance_factor * (1.0 - performance_penalty)
    factor = 1.0 - ops.performance_elasticity * (1.0 - delivered)
    return np.maximum(factor, 0.0)


def first_year_goodput(ops: Operations, design: Design, out: Outcome) -> np.ndarray:
    """Goodput of the first operating year, early-life failures included, of n cases (n,) [fraction].

    Early failures (:func:`early_life_interruptions`, nearly all inside the first year) each cost the job the
    lost minutes of an interruption.
    """
    early = early_life_interruptions(out.interruptions_per_month, design.burn_in_months, design.hazard_multiple)
    early_gpu_h = early * out.lost_minutes_per_interruption / 60.0 * ops.job_share * design.gpus
    return np.maximum(out.goodput - out.availability * early_gpu_h / (12 * design.gpus * HOURS_PER_MONTH), 0.0)


def sla_credit_share(ops: Operations, availability: Value) -> Value:
    """SLA credits as a share of gross revenue under the failure model [fraction] (a float or arrays (n,))."""
    return ops.sla_credit_multiple * (1.0 - availability)


def repair_usd_per_month(remote_hands_usd_per_hour: float, out: Outcome) -> np.ndarray:
    """What the repairs of n cases cost per month in service (n,) [USD]: remote hands and freight per repair.

    Each failure that needs a part or the server replaced (:attr:`Outcome.repairs_per_month`) takes
    ``repair.hands_hours`` of the colocation's remote hands at ``remote_hands_usd_per_hour`` and
    ``repair.freight_usd`` to return the failed part. The part itself is the OEM's under the warranty and then
    the support contract's (``opex.support_rate``); hot spares are bought with the cluster (capex).
    """
    per_repair = constant("repair.hands_hours") * remote_hands_usd_per_hour + constant("repair.freight_usd")
    return out.repairs_per_month * per_repair


def checklist_gaps(scenario: Scenario) -> list[ChecklistGap]:
    """The readiness items not in place, each with its priced effect (numbers from data/operations.csv)."""
    ops, c = scenario.operations, constant
    rdma = f"back end at {c('perf.gpudirect_off_gbps'):g} instead of {c('perf.gpudirect_on_gbps'):g} Gbit/s per NIC"
    items: list[tuple[bool, str, str, str, str]] = [
        (
            ops.drivers,
            "drivers",
            "Drivers (cuda-drivers, fabricmanager, cuda-toolkit)",
            "utilization",
            f"−{c('util.drivers_missing_loss'):.0%} utilization: customers set up the stack themselves",
        ),
        (ops.ofed, "ofed", "MLNX_OFED", "performance", rdma),
        (ops.gpudirect_rdma, "gpudirect_rdma", "GPUDirect RDMA (nvidia-peermem, HPC-X)", "performance", rdma),
        (
            ops.scheduler != "none",
            "scheduler",
            "Scheduler (SLURM or Kubernetes)",
            "utilization",
            f"only the {c('util.own_share'):.0%} of customers with their own scheduler are served",
        ),
        (
            ops.shared_storage,
            "shared_storage",
            "Shared /home and /data",
            "utilization",
            f"−{c('util.shared_storage_missing_loss'):.0%} utilization: data staged on local NVMe",
        ),
        (
            ops.pkey_isolation,
            "pkey_isolation",
            "pKey tenant isolation",
            "utilization",
            f"−{c('util.pkey_missing_loss'):.0%} utilization: multi-tenant buyers refuse a shared fabric",
        ),
        (
            ops.monitoring,
            "monitoring",
            "Monitoring (DCGM, IPMI, Prometheus, Grafana)",
            "detection",
            f"+{c('detection.no_monitoring_extra_minutes'):g} min to find each failed server",
        ),
        (
            ops.sdc_checks,
            "sdc_checks",
            "Silent-data-corruption checks (dcgmi diag -r 4)",
            "failures",
            f"every SDC event is found late ({c('sdc.late_loss_hours'):g} h of the job lost); checks catch "
            f"{c('sdc.caught_share'):.0%}",
        ),
        (
            ops.nccl_hang_detection,
            "nccl_hang_detection",
            "NCCL-hang detector (power draw)",
            "detection",
            f"hangs wait {c('detection.watchdog_minutes'):g} min for the NCCL watchdog instead of "
            f"{c('detection.power_draw_minutes'):g} min",
        ),
        (
            ops.slurm_topology_conf,
            "slurm_topology_conf",
            "SLURM topology.conf",
            "performance",
            f"collectives {1 - c('perf.topology_conf_missing_factor'):.0%} slower at the message sizes bad rank "
            f"placement hits ({c('perf.topology_conf_message_share'):.0%} of the exposed communication)",
        ),
    ]
    if ops.virtual_machines:
        items.append(
            (
                ops.nccl_topo_file,
                "nccl_topo_file",
                "NCCL_TOPO_FILE in VMs",
                "performance",
                f"{c('perf.vm_no_topo_bandwidth_ratio'):.0%} of the back-end bandwidth inside VMs",
            )
        )
    if ops.scheduler == "kubernetes":
        items.append(
            (
                False,
                "scheduler",
                "SLURM",
                "utilization",
                f"the {c('util.slurm_share'):.0%} of customers who want SLURM are not served",
            )
        )
    return [ChecklistGap(item, label, channel, effect) for ok, item, label, channel, effect in items if not ok]


def operations_report(scenario: Scenario, design: Design, own: Outcome | None = None) -> OperationsReport:
    """The steady-state operations figures of one scenario at its own driver values.

    ``own`` is :func:`own_outcome` of the scenario and ``design`` when already computed.
    """
    ops = scenario.operations
    by_cause = interruptions_by_cause(ops.failure_preset, design.gpus, design.transceivers_per_gpu, ops.mtbf_multiple)
    out = own_outcome(ops, design) if own is None else own
    ref = reference_goodput(ops, design)
    rate = float(out.interruptions_per_month[0])
    spare = design.spare_servers > 0
    repair_share = constant("repair.share")
    reboot_min = constant("restart.spare_swap_minutes") if spare else constant("restart.reboot_minutes")
    mttr_h = repair_share * constant("repair.hours") + (1.0 - repair_share) * reboot_min / 60.0
    availability = float(out.availability[0])
    steady = float(out.goodput[0])
    early = early_life_interruptions(rate, design.burn_in_months, design.hazard_multiple)
    first_year = float(first_year_goodput(ops, design, out)[0])
    return OperationsReport(
        interruptions_per_month=rate,
        interruptions_by_cause=by_cause,
        early_life_interruptions=early,
        mtbf_hours=HOURS_PER_MONTH / rate if rate > 0 else math.inf,
        detection_minutes=float(out.detection_minutes[0]),
        restore_minutes=design.restore_minutes,
        restart_minutes=constant("restart.relaunch_minutes") + reboot_min,
        lost_minutes_per_interruption=float(out.lost_minutes_per_interruption[0]),
        lost_gpu_hours_per_month=float(out.lost_gpu_hours_per_month[0]),
        mttr_hours=mttr_h,
        servers_down=float(out.servers_down[0]),
        availability=availability,
        goodput=first_year,
        steady_goodput=steady,
        reference_goodput=ref,
        performance_factor=design.performance_factor,
        performance_by_cause=performance_by_cause(scenario),
        utilization_factor=design.utilization_factor,
        price_factor=float(price_factor(ops, design, 0.0)),
        sla_credit_share=sla_credit_share(ops, availability)
        if ops.sla_credits == "failure_model"
        else scenario.pricing.sla_credit_share,
        gaps=checklist_gaps(scenario),
        repairs_per_month=float(out.repairs_per_month[0]),
        repair_usd_per_year=12 * float(repair_usd_per_month(scenario.opex.remote_hands_usd_per_hour, out)[0]),
    )


def as_sold(scenario: Scenario, report: OperationsReport) -> Scenario:
    """``scenario`` with utilization and SLA credits as the failure model makes them, for price solvers.

    A solver that builds revenue from ``scenario.pricing`` alone then finds the *effective* price; divide it by
    the price factor (:func:`headline_price`). The customer effects of :mod:`neoplan.economics.customers` (tier premium,
    churn, acceptance) are left out: the break-even price is that of the index-priced contract book.
    """
    pricing = scenario.pricing.model_copy(
        update={
            "utilization": scenario.pricing.utilization * report.utilization_factor,
            "sla_credit_share": report.sla_credit_share,
        }
    )
    return scenario.model_copy(update={"pricing": pricing})


def headline_price(report: OperationsReport, effective_usd_per_gpu_hour: float) -> float:
    """The headline price that sells at ``effective_usd_per_gpu_hour`` after the price factor [USD/GPU-h]."""
    return effective_usd_per_gpu_hour / report.price_factor if report.price_factor > 0 else math.nan
