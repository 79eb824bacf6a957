"""Back-end design trade-offs (the article's five designs plus Spectrum-X) and a drawing of the tree as plain data."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...inputs.pricebook import PriceBook
from ...inputs.scenario import Scenario
from ..costs import total_usd
from .backend import BackendDesign, backend_lines
from .catalogue import FabricError, NetworkItem, default_network_catalogue
from .design import _backend_for

DESIGN_CHOICES: tuple[tuple[str, str, str, float], ...] = (
    ("reference", "Reference (NVIDIA RA, optics everywhere)", "reference", 1.0),
    ("tor", "Top-of-rack, non-blocking", "tor", 1.0),
    ("vms", "Virtual modular switch, non-blocking", "vms", 1.0),
    ("vms_2to1", "Virtual modular switch, 2:1", "vms", 2.0),
    ("modular", "Modular chassis (CS9500 class)", "modular", 1.0),
    ("spectrum_x", "Spectrum-X Ethernet (SN5600, RoCE)", "spectrum_x", 1.0),
)

CAVEATS: dict[str, tuple[str, ...]] = {
    "reference": (
        "100% optics: the dearest design; lasers are the part that fails most in a fabric.",
        "Leaves and spines in separate network racks, so every link needs long-reach optics.",
    ),
    "tor": (
        "Not rail-optimized: all 8 flows of a server enter one switch, so congestion hot spots appear "
        "even at 1:1; poor for multi-tenant clusters.",
        "Passive DAC server→leaf (<3 m): cheap and reliable, but thick cables block airflow.",
    ),
    "vms": (
        "Same logical topology as the reference, spine rack placed between leaf racks so leaf→spine is copper.",
        "Thick DAC bundles obstruct airflow and have tight bend radii; ACC is thin but NVIDIA's LinkX NDR ACC "
        "was reported with poor error rates.",
        "Copper is more reliable than optics: fewer transceiver failures, less downtime and fewer repairs.",
    ),
    "vms_2to1": (
        "Half the uplinks: pod-local tensor/expert/pipeline traffic stays on the leaves, only data-parallel "
        "traffic crosses the spines.",
        "Spare leaf ports let spines be added later; customers must be placed with care to avoid "
        "fragmenting across pod boundaries.",
    ),
    "modular": (
        "Liquid cooling only: liquid-ready colocation is scarce and dearer.",
        "Priced by NVIDIA on value: dearer than a self-built virtual modular switch.",
    ),
    "spectrum_x": (
        "Ethernet with RoCE: Spectrum-4 SN5600 switches (64×800G, split 2×400G to the NICs) and SuperNICs; "
        "no UFM or InfiniBand skills needed, but adaptive routing needs the SuperNICs (BlueField-3 / ConnectX-8).",
        "Rail-optimized like the reference: a leaf takes two rails of a 32-server SU, optics everywhere.",
    ),
}

FOUR_NIC_CAVEAT = "4 NICs per server halve back-end bandwidth; most customers will not accept less than 8×400G."


@dataclass(frozen=True)
class DesignOption:
    """One back-end design at the scenario's size, for the side-by-side comparison.

    ``delta_vs_reference`` is the back-end capex change vs ``reference`` [fraction];
    ``error`` says why an infeasible design cannot be built.
    """

    name: str
    label: str
    topology: str
    oversubscription: float
    feasible: bool
    error: str
    capex_usd: float
    capex_per_server_usd: float
    capex_per_gpu_usd: float
    delta_vs_reference: float | None
    leaf_switches: int
    spine_switches: int
    core_switches: int
    chassis: int
    transceivers: int
    cables: int
    network_racks: int
    power_kw: float
    injection_gbps_per_gpu: float
    spine_gbps_per_gpu: float
    liquid_cooled: bool
    caveats: tuple[str, ...]
    backend: BackendDesign | None = None

    def as_record(self) -> dict[str, Any]:
        """Plain dict without the nested design, for tables."""
        return {k: v for k, v in self.__dict__.items() if k != "backend"}


def _switch_for(scenario: Scenario, topology: str) -> str:
    """The scenario's switch for its own family of designs, ``auto`` for the other (InfiniBand vs Spectrum-X)."""
    same = (topology == "spectrum_x") == (scenario.fabric.topology == "spectrum_x")
    return scenario.fabric.switch_model if same else "auto"


def design_options(
    scenario: Scenario, book: PriceBook, *, catalogue: Mapping[str, NetworkItem] | None = None
) -> list[DesignOption]:
    """Every back-end design (reference, tor, vms 1:1, vms 2:1, modular, spectrum_x) at the scenario's GPU count.

    Each option is priced on back-end hardware (category ``backend_network``),
    with counts, bandwidth per GPU [Gbit/s], Δ vs reference [fraction] and the
    article's caveats. Designs that cannot be built come back with
    ``feasible=False`` and the reason.
    """
    cat = catalogue or default_network_catalogue()
    gpus = scenario.cluster.gpus
    raw: list[tuple[str, str, str, float, BackendDesign | None, str]] = []
    for name, label, topology, os_ratio in DESIGN_CHOICES:
        try:
            built = _backend_for(
                scenario,
                cat,
                topology=topology,
                oversubscription=os_ratio,
                switch_model=_switch_for(scenario, topology),
            )
            raw.append((name, label, topology, os_ratio, built, ""))
        except FabricError as exc:
            raw.append((name, label, topology, os_ratio, None, str(exc)))
    costs = {name: total_usd(backend_lines(b, book, cat)) for name, _, _, _, b, _ in raw if b is not None}
    ref = costs.get("reference")
    out = []
    for name, label, topology, os_ratio, option, err in raw:
        caveats = CAVEATS[name] + ((FOUR_NIC_CAVEAT,) if scenario.fabric.nics_per_node == 4 else ())
        if option is None:
            out.append(
                DesignOption(
                    name,
                    label,
                    topology,
                    os_ratio,
                    False,
                    err,
                    math.nan,
                    math.nan,
                    math.nan,
                    None,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    math.nan,
                    math.nan,
                    math.nan,
                    topology == "modular",
                    caveats,
                )
            )
            continue
        out.append(priced_option(name, label, topology, os_ratio, option, costs[name], gpus, ref, caveats))
    return out


def priced_option(
    name: str,
    label: str,
    topology: str,
    oversubscription: float,
    backend: BackendDesign,
    capex_usd: float,
    gpus: int,
    reference_usd: float | None,
    caveats: tuple[str, ...],
) -> DesignOption:
    """A feasible design option from its back end and back-end capex [USD]; Δ vs ``reference_usd`` [fraction]."""
    b = backend
    return DesignOption(
        name=name,
        label=label,
        topology=topology,
        oversubscription=oversubscription,
        feasible=True,
        error="",
        capex_usd=capex_usd,
        capex_per_server_usd=capex_usd / b.servers,
        capex_per_gpu_usd=capex_usd / gpus,
        delta_vs_reference=(capex_usd / reference_usd - 1) if reference_usd else None,
        leaf_switches=b.leaf_switches,
        spine_switches=b.spine_switches,
        core_switches=b.core_switches,
        chassis=b.chassis,
        transceivers=b.transceivers,
        cables=b.cables,
        network_racks=b.network_racks,
        power_kw=b.power_kw,
        injection_gbps_per_gpu=b.injection_gbps_per_gpu,
        spine_gbps_per_gpu=b.spine_gbps_per_gpu,
        liquid_cooled=b.liquid_cooled,
        caveats=caveats,
        backend=b,
    )


YOUR_DESIGN = "yours"
"""Name of the option that is the scenario's own back end when no standard design matches it."""
_TOPOLOGY_SHORT = {
    "reference": "Reference",
    "tor": "Top-of-rack",
    "vms": "VMS",
    "modular": "Modular",
    "spectrum_x": "Spectrum-X",
}


def with_scenario_design(
    scenario: Scenario, backend: BackendDesign, book: PriceBook, options: list[DesignOption]
) -> tuple[list[DesignOption], str]:
    """``options`` with the scenario's own back end among them, and the name of that option.

    The standard option of the same topology and oversubscription when there is one (built at the scenario's
    NICs, as every option is); else an extra option :data:`YOUR_DESIGN` priced the same way (back-end hardware).
    """
    fab = scenario.fabric
    for o in options:
        if o.topology == fab.topology and math.isclose(o.oversubscription, fab.oversubscription):
            return options, o.name
    ref = next((o.capex_usd for o in options if o.name == "reference" and o.feasible), None)
    template = next(o for o in options if o.topology == fab.topology)
    label = f"{_TOPOLOGY_SHORT.get(fab.topology, fab.topology)} {fab.oversubscription:g}:1"
    yours = priced_option(
        YOUR_DESIGN,
        label,
        fab.topology,
        fab.oversubscription,
        backend,
        total_usd(backend_lines(backend, book)),
        scenario.cluster.gpus,
        ref,
        template.caveats,
    )
    return [*options, yours], YOUR_DESIGN


MAX_PICTURE_NODES = 256
"""Most switches per tier, or servers, :func:`topology_picture` draws [count]."""


def _spread(n: int) -> list[float]:
    return [0.5] if n == 1 else [i / (n - 1) for i in range(n)]


def topology_picture(design: BackendDesign, *, max_per_tier: int = 16, servers_shown: int = 4) -> dict[str, Any]:
    """Nodes and edges of a simplified drawing of the back end (plain data, no plotting).

    Shows at most ``max_per_tier`` switches per tier (the first ones, so the
    first pod) and ``servers_shown`` servers of the first SU or rack.

    Returns
    -------
    dict with ``nodes`` (id, tier, x in [0, 1], y = tier level, label),
    ``edges`` (source, target, links) and ``totals`` per tier [count].
    Both caps are 1 to :data:`MAX_PICTURE_NODES` (the edges grow with their product).
    """
    for name, cap in (("max_per_tier", max_per_tier), ("servers_shown", servers_shown)):
        if isinstance(cap, bool) or not isinstance(cap, int) or not 1 <= cap <= MAX_PICTURE_NODES:
            raise ValueError(f"topology_picture: {name} must be from 1 to {MAX_PICTURE_NODES}, got {cap!r}")
    t = design.tree
    totals = {
        "server": design.servers,
        "leaf": design.leaf_switches,
        "spine": design.spine_switches,
        "chassis": design.chassis,
        "core": design.core_switches,
    }
    planes = max(1, design.planes)  # multi-plane Spectrum-X: draw the first plane (planes are identical)
    shown = {k: min(v // planes, max_per_tier) for k, v in totals.items()}
    shown["server"] = min(design.servers, servers_shown)
    levels = {"server": 0, "leaf": 1, "spine": 2, "chassis": 2, "core": 3}
    nodes: list[dict[str, Any]] = []
    for tier, n in shown.items():
        for i, x in enumerate(_spread(n) if n else []):
            nodes.append({"id": f"{tier}{i}", "tier": tier, "x": x, "y": levels[tier], "label": f"{tier} {i + 1}"})
    edges: list[dict[str, Any]] = []
    rails = design.nics_per_node
    per_su = max(1, rails // max(1, design.rails_per_leaf))
    su = max(1, design.leaf_downlinks // max(1, design.rails_per_leaf)) if design.topology != "tor" else 0
    for s in range(shown["server"]):
        if design.leaf_switches == 0:  # servers straight into the chassis
            edges.append({"source": f"server{s}", "target": "chassis0", "links": rails})
        elif design.leaf_switches == 1:  # every NIC on one switch
            edges.append({"source": f"server{s}", "target": "leaf0", "links": rails})
        elif design.topology == "tor":
            per_rack = max(1, design.leaf_downlinks // rails)
            leaf = s // per_rack
            if leaf < shown["leaf"]:
                edges.append({"source": f"server{s}", "target": f"leaf{leaf}", "links": rails})
        else:
            first_leaf = (s // su) * per_su
            for leaf in range(first_leaf, first_leaf + per_su):
                if leaf < shown["leaf"]:
                    edges.append({"source": f"server{s}", "target": f"leaf{leaf}", "links": design.rails_per_leaf})
    if t is not None and t.tiers >= 2:
        upper = "chassis" if design.chassis and design.leaf_switches else "spine"
        for leaf in range(shown["leaf"]):
            pod = leaf // t.leaves_per_pod
            for sp in range(shown[upper]):
                if t.tiers == 2 or sp // t.spines_per_pod == pod:
                    edges.append({"source": f"leaf{leaf}", "target": f"{upper}{sp}", "links": t.leaf_spine_links})
        if t.tiers == 3:
            for sp in range(shown["spine"]):
                j = sp % t.spines_per_pod
                for c in range(shown["core"]):
                    if c // t.cores_per_group == j:
                        edges.append({"source": f"spine{sp}", "target": f"core{c}", "links": t.spine_core_links})
    return {"nodes": nodes, "edges": edges, "totals": totals, "shown": shown, "planes": planes}
