"""The whole fabric of a scenario: back end, front end and out-of-band, priced, with warnings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...inputs.pricebook import Platform, PriceBook, default_platforms
from ...inputs.scenario import Scenario
from ..costs import CostLine, total_usd
from ..facility import PDUS_PER_RACK, effective_servers_per_rack
from .backend import UFM_REQUIRED_ABOVE_GPUS, BackendDesign, backend_lines, size_backend, subnet_manager_lines
from .catalogue import FabricError, NetworkItem, default_network_catalogue
from .frontend import FrontendDesign, frontend_lines, size_frontend
from .links import cabled_servers, ceil_div
from .oob import OobDesign, oob_lines, size_oob

OOB_MANAGEMENT_PORTS_PER_CHASSIS = 2  # two management modules per modular chassis


@dataclass(frozen=True)
class FabricDesign:
    """Back end, front end and out-of-band of one scenario, with priced lines.

    ``lines`` carry categories ``backend_network``, ``frontend_network``, ``oob_network`` and ``management`` (UFM
    licences: fabric-management software, kept out of the back-end hardware). ``power_kw`` holds ``backend``,
    ``frontend``, ``oob`` [kW].
    """

    backend: BackendDesign
    frontend: FrontendDesign
    oob: OobDesign
    lines: list[CostLine]
    power_kw: dict[str, float]
    warnings: list[str] = field(default_factory=list)
    subnet_manager: str = "ufm"

    def capex_usd(self, category: str | None = None) -> float:
        """Capex of one category (all lines if None) [USD]."""
        return total_usd([ln for ln in self.lines if category is None or ln.category == category])

    @property
    def ufm_licences(self) -> int:
        """UFM licences bought [count] (InfiniBand only)."""
        ib = self.backend.topology != "spectrum_x"
        return self.backend.endpoints if self.subnet_manager == "ufm" and ib else 0

    def backend_summary(self) -> dict[str, Any]:
        """The JSON-contract ``backend`` block: leaf/spine/core switches, transceivers, cables, capex_usd."""
        b = self.backend
        return {
            "topology": b.topology,
            "oversubscription": b.oversubscription,
            "tiers": b.tiers,
            "leaf_switches": b.leaf_switches,
            "spine_switches": b.spine_switches,
            "core_switches": b.core_switches,
            "chassis": b.chassis,
            "transceivers": b.transceivers,
            "cables": b.cables,
            "endpoints": b.endpoints,
            "capex_usd": self.capex_usd("backend_network"),
            "switch_model": b.items["switch"],
            "nic_gbps": b.nic_gbps,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary of all three networks [counts, USD, kW, Gbit/s]."""
        f, o = self.frontend, self.oob
        return {
            "backend": self.backend_summary(),
            "frontend": {
                "switch_class": f.switch_class,
                "leaf_switches": f.leaf_switches,
                "spine_switches": f.spine_switches,
                "core_switches": f.core_switches,
                "transceivers": f.transceivers,
                "cables": f.cables,
                "gbps_per_gpu": f.gbps_per_gpu,
                "capex_usd": self.capex_usd("frontend_network"),
                "oversubscription": f.oversubscription,
                "server_cable": f.server_cable,
                "switch_gbps": f.switch_gbps,
            },
            "oob": {
                "switch_class": o.switch_class,
                "ports": o.ports,
                "access_switches": o.access_switches,
                "aggregation_switches": o.aggregation_switches,
                "capex_usd": self.capex_usd("oob_network"),
                "rack_access_switches": o.rack_access_switches,
            },
            "ufm_licences": self.ufm_licences,
            "power_kw": dict(self.power_kw),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class ScaleOut:
    """What the networks see of the compute: units wired (servers, or NVL72 compute trays) and their ports.

    ``units`` [count] carry ``nics_per_unit`` back-end NICs and ``gpus_per_unit`` GPUs each; a rack holds
    ``units_per_rack`` units and ``bmcs_per_rack`` BMCs (trays and NVLink switch trays for NVL72).
    """

    units: int
    nics_per_unit: int
    gpus_per_unit: int
    units_per_rack: int
    bmcs_per_rack: int
    racks: int
    rack_scale: bool


def platform_of(scenario: Scenario) -> Platform | None:
    """The scenario's GPU platform, or None when the catalogue does not know it (the model reports that)."""
    return default_platforms().get(scenario.cluster.gpu_model)


def scale_out(scenario: Scenario, platform: Platform | None, installed: int | None = None) -> ScaleOut:
    """Units the networks wire: servers (HGX, hot spares included), or the compute trays of NVL72 racks.

    ``installed``: servers bought, hot spares included, as the design counted them (default: counted here).
    """
    cl, fab = scenario.cluster, scenario.fabric
    nodes = cabled_servers(cl.servers, cl.hot_spare_share) if installed is None else installed
    if platform is not None and platform.rack_scale:
        trays = platform.compute_trays
        return ScaleOut(
            nodes * trays,
            platform.scaleout_nics_per_tray,
            platform.gpus_per_tray,
            trays,
            platform.bmc_ports_per_node,
            nodes,
            True,
        )
    per_rack = scenario.facility.servers_per_rack
    if platform is not None:
        per_rack = effective_servers_per_rack(scenario.facility, platform)
    return ScaleOut(nodes, fab.nics_per_node, cl.gpus_per_node, per_rack, per_rack, ceil_div(nodes, per_rack), False)


def _backend_for(
    scenario: Scenario, catalogue: Mapping[str, NetworkItem], unit: ScaleOut | None = None, **override: Any
) -> BackendDesign:
    fab = scenario.fabric
    unit = scale_out(scenario, platform_of(scenario)) if unit is None else unit
    args: dict[str, Any] = {
        "topology": fab.topology,
        "nics_per_node": unit.nics_per_unit,
        "nic_gbps": fab.nic_gbps,
        "oversubscription": fab.oversubscription,
        "servers_per_su": fab.servers_per_su,
        "servers_per_rack": unit.units_per_rack,
        "leaf_spine_cable": fab.leaf_spine_cable,
        "gpus_per_node": unit.gpus_per_unit,
        "switch_model": fab.switch_model,
    }
    args.update(override)
    return size_backend(unit.units, catalogue=catalogue, **args)


def fabric_warnings(scenario: Scenario, backend: BackendDesign) -> list[str]:
    """Plain-language warnings about the chosen fabric."""
    fab, gpus = scenario.fabric, scenario.cluster.gpus
    platform = platform_of(scenario)
    out = []
    if fab.subnet_manager == "opensm" and gpus > UFM_REQUIRED_ABOVE_GPUS and backend.topology != "spectrum_x":
        out.append(
            f"UFM is a hard requirement above {UFM_REQUIRED_ABOVE_GPUS:,} GPUs (SemiAnalysis); "
            f"fabric.subnet_manager 'opensm' is not advised for {gpus:,} GPUs"
        )
    if backend.liquid_cooled:
        out.append("The modular chassis is liquid-cooled only: liquid-ready colocation is scarce and dearer")
    single_chassis = backend.topology == "modular" and backend.leaf_switches == 0
    if single_chassis and backend.oversubscription > 1:
        out.append("fabric.oversubscription has no effect inside a single modular chassis (non-blocking backplane)")
    if backend.spine_taper > 1:
        out.append(
            f"{backend.endpoints:,} NIC endpoints exceed a non-blocking 3-tier tree of {backend.items['switch']} "
            f"switches; the spine→core layer is tapered {backend.spine_taper:.1f}:1 to fit (Meta runs 7:1 between pods)"
        )
    if fab.leaf_spine_cable == "acc" and backend.topology == "vms":
        out.append("ACC leaf→spine cables: NVIDIA LinkX NDR ACC has been reported with poor error rates")
    if fab.leaf_spine_cable == "acc" and backend.topology != "vms":
        out.append("fabric.leaf_spine_cable applies to the vms topology only; ignored here")
    if platform is not None and platform.rack_scale:
        if platform.scaleout_nic_gbps != fab.nic_gbps:
            out.append(
                f"fabric.nic_gbps is {fab.nic_gbps} but {platform.name} trays carry {platform.scaleout_nic_gbps}G "
                "scale-out NICs; the back end is sized and priced at fabric.nic_gbps"
            )
    elif fab.nics_per_node == 4:
        out.append("4 back-end NICs per server halve back-end bandwidth; most customers want 8×400G")
    if backend.topology == "spectrum_x" and fab.subnet_manager == "ufm":
        out.append("Spectrum-X is Ethernet (RoCE): no InfiniBand subnet manager, so no UFM licences are bought")
    return out


def _oob(
    scenario: Scenario,
    unit: ScaleOut,
    backend: BackendDesign,
    frontend: FrontendDesign,
    oob_extra_ports: int,
    pdus: int | None,
    site_racks: int | None,
    cat: Mapping[str, NetworkItem],
) -> OobDesign:
    if oob_extra_ports < 0:
        raise FabricError(f"oob extra ports must be ≥ 0, got {oob_extra_ports}")
    if pdus is None:
        other_racks = unit.racks if site_racks is None else site_racks
        pdus = PDUS_PER_RACK * (other_racks + backend.network_racks + frontend.network_racks)
    managed = (
        backend.leaf_switches
        + backend.spine_switches
        + backend.core_switches
        + OOB_MANAGEMENT_PORTS_PER_CHASSIS * backend.chassis
        + frontend.switches
    )
    bmcs = unit.racks * unit.bmcs_per_rack if unit.rack_scale else unit.units
    return size_oob(
        bmcs=bmcs + oob_extra_ports,
        managed_switches=managed,
        pdus=pdus,
        switch_class=scenario.fabric.oob.switch_class,
        compute_racks=unit.racks,
        ports_per_compute_rack=unit.bmcs_per_rack + PDUS_PER_RACK,
        racks_per_switch=scenario.fabric.oob.racks_per_switch,
        catalogue=cat,
    )


def design_fabric(
    scenario: Scenario,
    book: PriceBook,
    *,
    frontend_extra_ports: int = 0,
    oob_extra_ports: int = 0,
    pdus: int | None = None,
    site_racks: int | None = None,
    storage_ports: int = 0,
    storage_port_gbps: float = 0,
    catalogue: Mapping[str, NetworkItem] | None = None,
    backend: BackendDesign | None = None,
    installed: int | None = None,
) -> FabricDesign:
    """Size and price the three networks of ``scenario``.

    Parameters
    ----------
    scenario : the plan; reads ``fabric``, ``cluster``, ``facility`` and the GPU platform
    book : price book
    frontend_extra_ports : front-end ports of management nodes (and storage, if not given apart) [count]
    oob_extra_ports : out-of-band ports beyond compute BMCs, switches and PDUs,
        e.g. BMCs of storage and management nodes, firewalls, CDUs [count]
    pdus : monitored PDUs on the OOB network [count]; default 2 per rack of ``site_racks`` plus the back-end and
        front-end network racks
    site_racks : racks other than the network racks bought with monitored PDUs [count]; default the compute racks
    storage_ports : front-end ports of the storage servers [count], at ``storage_port_gbps`` [Gbit/s]
    backend : the back end of an earlier design of the same scenario and catalogue, reused as is (the ports
        above do not change it); sized here when None
    installed : compute servers bought, hot spares included [count]; default counted from ``scenario.cluster``

    Returns
    -------
    FabricDesign with counts, priced lines, power [kW] and warnings.
    """
    cat = catalogue or default_network_catalogue()
    fab = scenario.fabric
    unit = scale_out(scenario, platform_of(scenario), installed)
    backend = _backend_for(scenario, cat, unit) if backend is None else backend
    fe = fab.frontend
    frontend = size_frontend(
        unit.units,
        ports_per_node=fe.ports_per_node,
        port_gbps=fe.port_gbps,
        switch_class=fe.switch_class,
        extra_ports=frontend_extra_ports,
        gpus_per_node=unit.gpus_per_unit,
        oversubscription=fe.oversubscription,
        storage_ports=storage_ports,
        storage_port_gbps=storage_port_gbps if fe.match_storage_ports else fe.port_gbps,
        server_cable=fe.server_cable,
        servers_per_rack=unit.units_per_rack,
        catalogue=cat,
    )
    oob = _oob(scenario, unit, backend, frontend, oob_extra_ports, pdus, site_racks, cat)
    ufm = 0 if backend.topology == "spectrum_x" else backend.endpoints
    lines = (
        backend_lines(backend, book, cat)
        + frontend_lines(frontend, book, cat)
        + oob_lines(oob, book, cat)
        + subnet_manager_lines(ufm, fab.subnet_manager, book, scenario.opex.ufm_subscription)
    )
    power = {"backend": backend.power_kw, "frontend": frontend.power_kw, "oob": oob.power_kw}
    return FabricDesign(backend, frontend, oob, lines, power, fabric_warnings(scenario, backend), fab.subnet_manager)
