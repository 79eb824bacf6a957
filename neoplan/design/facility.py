"""Management, racks, installation and power: the site around the compute servers.

What it sizes (the article: "a small share of capex"):

- **In-band management**: at least 3 CPU management nodes; 2 of them carry a back-end ConnectX NIC
  to run the subnet manager (UFM or OpenSM) in high availability. One physical firewall HA pair.
- **Racks**: servers per rack follow from the rack power: ``min(facility.servers_per_rack,
  ⌊rack_power_kw ÷ node max power⌋)`` (4 × 10.2 kW HGX H100 fit 41 kW, only 2 × 14.3 kW HGX B200 do), with a
  warning when the asked number does not fit; a rack-scale NVL72 system *is* one rack (its rack, power shelves
  and manifolds are in the system price) and needs ``rack_power_kw`` ≥ its power. Compute racks = ⌈servers incl.
  hot spares ÷ servers per rack⌉; network racks come from the fabric and storage racks from
  :mod:`neoplan.design.storage`; one management rack holds the management nodes and the firewalls. Two monitored PDUs
  per bought rack (A/B feeds).
- **Cooling**: air-cooled platforms are cooled by the hall (in the PUE); a compute rack above
  ``facility.air_cooled_rack_limit_kw`` of air-cooled servers gets a warning (air stops at 30–40 kW a rack).
  Liquid-cooled platforms need a cooling plant: with ``facility.cooling_plant = tenant`` the plan buys a coolant
  distribution unit per kW of liquid heat (peak compute power × the platform's liquid heat share) and a
  secondary-loop hook-up per compute rack, as capex, and the CDU pumps (``facility.cdu_power_share`` of the liquid
  heat) are IT load; with ``colocation`` the colocation supplies CDUs and facility water and charges
  ``facility.liquid_colo_premium`` more per kW of the liquid-cooled racks (billed as extra kW at the colocation
  price), so the plant is paid once.
- **Installation and burn-in**: site installation per server and per rack; the OEM's cluster-level
  burn-in per server-week (``timeline.integration_burn_in_weeks``; per-server integration is in the
  node price) and the on-site burn-in per server-day (``timeline.onsite_burn_in_days``).
- **Power**: IT load = compute servers + network + storage + management. Peak uses the platform's
  max node power; average power of a server is ``max × (idle + (busy − idle) × utilization)``.
  Facility power = IT × PUE. Colocation is paid per contracted kW-month on *peak IT* kW; energy per
  kWh *consumed* (average IT × PUE × hours), zero when the colocation price includes electricity.

Power in kW, energy in kWh, money in USD; hours per year from :mod:`neoplan.timebase`. Power and colocation
are priced here (:func:`energy_kwh_per_year`, :func:`power_usd_per_year`, :func:`colo_usd_per_year`), the same
functions :mod:`neoplan.economics.opex` prices the monthly bills with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import ScenarioError, check
from ..inputs.hardware import Facility
from ..inputs.pricebook import Platform, PriceBook, default_platforms
from ..inputs.scenario import Scenario
from ..timebase import HOURS_PER_YEAR as HOURS_PER_YEAR  # re-exported: the hours energy is drawn over
from ..timebase import MONTHS_PER_YEAR
from .costs import CostLine, priced, total_usd
from .node import compute_servers

MIN_MANAGEMENT_NODES = 3
SUBNET_MANAGER_NODES = 2
"""Management nodes with a back-end ConnectX NIC, for a high-availability UFM/OpenSM pair."""
PDUS_PER_RACK = 2
RACK_UNITS_FOR_EQUIPMENT = 38
"""Rack units of a 42U rack left for equipment; 4U go to patch panels and cable management."""
MANAGEMENT_NODE_RU = 1
MANAGEMENT_NODE_POWER_KW = 0.6
"""Estimate: a loaded 1U dual-socket server draws 0.4-0.8 kW."""
FIREWALLS_PER_PAIR = 2
FIREWALL_RU = 2
FIREWALL_POWER_KW = 0.35
"""Estimate: datasheet typical power of 100G-class firewall appliances (FortiGate 1800F ~0.35 kW)."""
MANAGEMENT_NODE_FRONTEND_PORTS = 2
FIREWALL_FRONTEND_PORTS = 2
IDLE_POWER_SHARE = 0.2
"""Estimate: an idle HGX H100 server draws ~2 kW of its 10.2 kW maximum."""
BUSY_POWER_SHARE = 0.8
"""Estimate: an HGX server busy with LLM training averages ~80% of its maximum power."""

KEY_MANAGEMENT_NODE = "mgmt_node_cpu"
KEY_FIREWALL_PAIR = "firewall_pair"
KEY_RACK = "rack_42u"
KEY_PDU = "pdu_monitored"
KEY_INSTALL_SERVER = "install_server"
KEY_INSTALL_RACK = "install_rack"
KEY_CLUSTER_BURN_IN = "cluster_burn_in_server_week"
KEY_SITE_BURN_IN = "site_burn_in_server_day"
KEY_CDU = "cdu_per_kw"
KEY_LIQUID_LOOP = "liquid_loop_per_rack"


@dataclass(frozen=True)
class FacilityDesign:
    """Management, racks, install and power of one cluster. kW, kWh per year, USD."""

    servers: int
    spare_servers: int
    servers_per_rack: int
    compute_racks: int
    network_racks: int
    storage_racks: int
    management_racks: int
    pdus: int
    management_nodes: int
    subnet_manager_nodes: int
    firewall_pairs: int
    node_max_power_kw: float
    compute_rack_kw: float
    rack_power_kw: float
    utilization: float
    pue: float
    compute_peak_kw: float
    compute_avg_kw: float
    network_kw: float
    storage_kw: float
    management_kw: float
    it_energy_kwh_per_year: float
    facility_energy_kwh_per_year: float
    colo_usd_per_year: float
    energy_usd_per_year: float
    frontend_ports: int
    backend_ports: int
    oob_ports: int
    lines: tuple[CostLine, ...]
    warnings: tuple[str, ...]
    liquid_heat_kw: float = 0.0
    """Peak compute heat taken by direct liquid cooling [kW]; 0 for air-cooled platforms."""
    cooling_kw: float = 0.0
    """Pump power of the coolant distribution units [kW], part of the IT load."""
    cooling: str = "air"
    rack_scale: bool = False
    asked_servers_per_rack: int = 0
    """``facility.servers_per_rack`` as asked; :attr:`servers_per_rack` is what the rack power allows."""
    colo_premium_kw: float = 0.0
    """The liquid-cooling premium of a colocation-supplied cooling plant, as extra billed kW [kW]."""

    @property
    def colo_kw(self) -> float:
        """kW the colocation bills: peak IT load plus the liquid-cooling premium's kW [kW]."""
        return self.it_peak_kw + self.colo_premium_kw

    @property
    def racks(self) -> int:
        """All racks: compute, network, storage and management [count]."""
        return self.compute_racks + self.network_racks + self.storage_racks + self.management_racks

    @property
    def rack_fits(self) -> bool:
        """Whether the asked servers per rack all fit the rack power (else fewer are placed per rack)."""
        return self.rack_scale or self.servers_per_rack >= self.asked_servers_per_rack

    @property
    def it_peak_kw(self) -> float:
        """Peak IT load: servers at max power plus network, storage, management and CDU pumps [kW]."""
        return self.compute_peak_kw + self.network_kw + self.storage_kw + self.management_kw + self.cooling_kw

    @property
    def it_avg_kw(self) -> float:
        """Average IT load at the given utilization [kW]; CDU pumps run at constant flow."""
        return self.compute_avg_kw + self.network_kw + self.storage_kw + self.management_kw + self.cooling_kw

    @property
    def facility_peak_kw(self) -> float:
        """Peak facility load, IT × PUE [kW]."""
        return self.it_peak_kw * self.pue

    @property
    def it_peak_mw(self) -> float:
        """Peak IT load [MW]: the critical power to contract."""
        return self.it_peak_kw / 1000.0

    @property
    def facility_peak_mw(self) -> float:
        """Peak facility load including cooling [MW]."""
        return self.facility_peak_kw / 1000.0

    @property
    def kw_per_rack(self) -> float:
        """Peak IT load spread over all racks [kW per rack]."""
        return self.it_peak_kw / self.racks if self.racks else 0.0

    @property
    def capex_usd(self) -> float:
        """Management, racks, PDUs, installation and burn-in [USD]."""
        return total_usd(list(self.lines))

    def capex_per_server_usd(self) -> float:
        """:attr:`capex_usd` per compute server in service [USD per server]."""
        return self.capex_usd / self.servers if self.servers else 0.0


# --- counts -------------------------------------------------------------------------------------


def compute_racks(servers: int, servers_per_rack: int) -> int:
    """Compute racks for ``servers`` servers (hot spares included) [count]."""
    return math.ceil(servers / servers_per_rack) if servers > 0 else 0


def compute_rack_kw(servers_per_rack: int, node_max_power_kw: float) -> float:
    """Max power of a full compute rack [kW]."""
    return servers_per_rack * node_max_power_kw


def max_servers_per_rack(rack_power_kw: float, node_max_power_kw: float) -> int:
    """Most servers a rack's power allows [count]."""
    return math.floor(rack_power_kw / node_max_power_kw + 1e-9)


def rack_power_warning(servers_per_rack: int, node_max_power_kw: float, rack_power_kw: float) -> str | None:
    """A warning when ``servers_per_rack`` servers exceed the rack power (fewer are placed), else ``None``."""
    need_kw = compute_rack_kw(servers_per_rack, node_max_power_kw)
    if need_kw <= rack_power_kw + 1e-9:
        return None
    fit = max_servers_per_rack(rack_power_kw, node_max_power_kw)
    return (
        f"facility.servers_per_rack: {servers_per_rack} × {node_max_power_kw:g} kW = {need_kw:.1f} kW exceeds "
        f"facility.rack_power_kw {rack_power_kw:g} kW; at most {fit} servers fit per rack, so {fit} are placed "
        "per rack and the racks and colocation follow"
    )


def air_cooling_warning(platform: Platform, rack_kw: float, limit_kw: float) -> str | None:
    """A warning when a rack of air-cooled servers draws more than air cooling handles, else ``None``."""
    if platform.liquid_cooled or rack_kw <= limit_kw + 1e-9:
        return None
    return (
        f"facility: air-cooled compute racks of {rack_kw:.1f} kW exceed the {limit_kw:g} kW air cooling handles "
        "(facility.air_cooled_rack_limit_kw; air stops at 30–40 kW a rack in most halls, denser air racks need a hall "
        "built for them): put fewer servers in a rack (facility.servers_per_rack or facility.rack_power_kw) or "
        "choose a liquid-cooled platform"
    )


def effective_servers_per_rack(facility: Facility, platform: Platform) -> int:
    """Compute nodes per rack the rack power allows [count]: 1 for a rack-scale system, else
    ``min(facility.servers_per_rack, ⌊rack_power_kw ÷ node max power⌋)``.

    Raises :class:`~neoplan.errors.ScenarioError` when the rack power cannot feed a single node.
    """
    node_kw = platform.node_max_power_kw
    if facility.rack_power_kw + 1e-9 < node_kw:
        what = "one rack of" if platform.rack_scale else "one server of"
        raise ScenarioError(
            f"facility.rack_power_kw must be ≥ {node_kw:g} kW ({what} {platform.name}), got {facility.rack_power_kw:g}"
        )
    if platform.rack_scale:
        return 1
    return min(facility.servers_per_rack, max_servers_per_rack(facility.rack_power_kw, node_kw))


def liquid_heat_kw(compute_peak_kw: float, platform: Platform) -> float:
    """Peak compute heat removed by direct liquid cooling [kW]."""
    return compute_peak_kw * platform.liquid_heat_share


def cooling_lines(book: PriceBook, liquid_kw: float, liquid_racks: int) -> list[CostLine]:
    """CDU capacity and secondary-loop hook-ups of liquid-cooled racks (category ``other``)."""
    items = [(KEY_CDU, liquid_kw), (KEY_LIQUID_LOOP, liquid_racks)]
    return [priced(book, key, qty, "other") for key, qty in items if qty > 0]


def management_racks(management_nodes: int, firewall_pairs: int) -> int:
    """Racks for the management nodes and firewalls [count]."""
    units = management_nodes * MANAGEMENT_NODE_RU + firewall_pairs * FIREWALLS_PER_PAIR * FIREWALL_RU
    return math.ceil(units / RACK_UNITS_FOR_EQUIPMENT) if units else 0


def management_ports(management_nodes: int, subnet_manager_nodes: int, firewall_pairs: int) -> tuple[int, int, int]:
    """(front-end, back-end, out-of-band) ports of management nodes and firewalls [count]; PDUs excluded."""
    firewalls = firewall_pairs * FIREWALLS_PER_PAIR
    frontend = management_nodes * MANAGEMENT_NODE_FRONTEND_PORTS + firewalls * FIREWALL_FRONTEND_PORTS
    return frontend, subnet_manager_nodes, management_nodes + firewalls


def _racks(
    facility: Facility,
    platform: Platform,
    installed: int,
    network_racks: int,
    storage_racks: int,
    management_nodes: int,
    firewall_pairs: int,
) -> tuple[int, int, int, int]:
    """(servers per rack, compute racks, management racks, racks bought with PDUs) [count]; a rack-scale system
    comes in its own rack with power shelves, so only the other racks are bought."""
    per_rack = effective_servers_per_rack(facility, platform)
    c_racks = compute_racks(installed, per_rack)
    m_racks = management_racks(management_nodes, firewall_pairs)
    racks = c_racks + network_racks + storage_racks + m_racks
    return per_rack, c_racks, m_racks, racks - c_racks if platform.rack_scale else racks


def _counts(scenario: Scenario, server_counts: tuple[int, int] | None) -> tuple[int, int]:
    """(servers in service, hot spares): ``server_counts`` if given, else
    :func:`~neoplan.design.node.compute_servers`."""
    cluster = scenario.cluster
    return compute_servers(cluster.servers, cluster.hot_spare_share) if server_counts is None else server_counts


def site_asks(
    scenario: Scenario,
    *,
    storage_racks: int = 0,
    management_nodes: int = MIN_MANAGEMENT_NODES,
    firewall_pairs: int = 1,
    platforms: dict[str, Platform] | None = None,
    server_counts: tuple[int, int] | None = None,
) -> tuple[int, int, int]:
    """What the site of :func:`design_facility` asks of the networks, known before they are sized [count]:
    (front-end ports, out-of-band ports of the management nodes and firewalls, racks other than network racks
    bought with PDUs).

    The site around ``network_racks`` network racks has :attr:`~FacilityDesign.frontend_ports` the first,
    :attr:`~FacilityDesign.pdus` ``PDUS_PER_RACK × (racks + network_racks)`` and
    :attr:`~FacilityDesign.oob_ports` the second plus its PDUs: only the PDUs depend on the networks.
    ``server_counts``: (servers in service, hot spares) as the design counted them (default: counted here).
    """
    platform = (platforms if platforms is not None else default_platforms())[scenario.cluster.gpu_model]
    installed = sum(_counts(scenario, server_counts))
    _, _, _, racks = _racks(scenario.facility, platform, installed, 0, storage_racks, management_nodes, firewall_pairs)
    frontend, _, oob = management_ports(management_nodes, min(SUBNET_MANAGER_NODES, management_nodes), firewall_pairs)
    return frontend, oob, racks


# --- power and energy ---------------------------------------------------------------------------


def node_average_kw(
    node_max_power_kw: float,
    utilization: float,
    idle_power_share: float = IDLE_POWER_SHARE,
    busy_power_share: float = BUSY_POWER_SHARE,
) -> float:
    """Average draw of one compute server at ``utilization`` [kW]."""
    share = idle_power_share + (busy_power_share - idle_power_share) * utilization
    return node_max_power_kw * share


def compute_average_kw(
    servers: int,
    spare_servers: int,
    node_max_power_kw: float,
    utilization: float,
    idle_power_share: float = IDLE_POWER_SHARE,
    busy_power_share: float = BUSY_POWER_SHARE,
) -> float:
    """Average draw of the compute servers [kW]: those in service at ``utilization``, hot spares idle."""
    avg = servers * node_average_kw(node_max_power_kw, utilization, idle_power_share, busy_power_share)
    return avg + spare_servers * node_max_power_kw * idle_power_share


def it_average_kw_at(
    site: FacilityDesign,
    utilization: float,
    idle_power_share: float = IDLE_POWER_SHARE,
    busy_power_share: float = BUSY_POWER_SHARE,
) -> float:
    """:attr:`FacilityDesign.it_avg_kw` of ``site`` had it been designed at ``utilization`` [kW]
    (only the compute servers' average draw depends on it)."""
    compute = compute_average_kw(
        site.servers, site.spare_servers, site.node_max_power_kw, utilization, idle_power_share, busy_power_share
    )
    return compute + site.network_kw + site.storage_kw + site.management_kw + site.cooling_kw


def management_kw(management_nodes: int, firewall_pairs: int) -> float:
    """Power of management nodes and firewalls [kW]."""
    return management_nodes * MANAGEMENT_NODE_POWER_KW + firewall_pairs * FIREWALLS_PER_PAIR * FIREWALL_POWER_KW


# --- cost lines ---------------------------------------------------------------------------------


def management_lines(
    book: PriceBook, management_nodes: int, subnet_manager_nodes: int, firewall_pairs: int, nic_key: str
) -> list[CostLine]:
    """Management nodes, their back-end NICs and the firewall pair (category ``management``)."""
    items = [
        (KEY_MANAGEMENT_NODE, management_nodes, None),
        (nic_key, subnet_manager_nodes, "Back-end ConnectX NIC for the HA subnet-manager (UFM) nodes"),
        (KEY_FIREWALL_PAIR, firewall_pairs, None),
    ]
    return [priced(book, key, qty, "management", item) for key, qty, item in items if qty > 0]


def site_lines(
    book: PriceBook,
    *,
    racks: int,
    installed_servers: int,
    bought_racks: int | None = None,
    burn_in_servers: int,
    integration_burn_in_weeks: float,
    onsite_burn_in_days: float,
) -> list[CostLine]:
    """Racks, PDUs, installation and burn-in (category ``other``).

    ``bought_racks`` (default ``racks``) are the racks bought with PDUs; rack-scale systems come in their own rack
    with power shelves, but every rack is installed.
    """
    bought = racks if bought_racks is None else bought_racks
    items = [
        (KEY_RACK, bought),
        (KEY_PDU, bought * PDUS_PER_RACK),
        (KEY_INSTALL_SERVER, installed_servers),
        (KEY_INSTALL_RACK, racks),
        (KEY_CLUSTER_BURN_IN, burn_in_servers * integration_burn_in_weeks),
        (KEY_SITE_BURN_IN, burn_in_servers * onsite_burn_in_days),
    ]
    return [priced(book, key, qty, "other") for key, qty in items if qty > 0]


# --- design -------------------------------------------------------------------------------------


def _check_inputs(
    facility: Facility,
    utilization: float,
    counts: dict[str, float],
    idle_power_share: float,
    busy_power_share: float,
    management_nodes: int,
) -> None:
    """Scenario fields raise :class:`~neoplan.errors.ScenarioError`; the other arguments (sized by the model or
    checked by the scenario already) raise ``ValueError``: reaching one from :func:`neoplan.evaluate` is a bug."""
    arg = ValueError
    check("utilization", utilization, 0 <= utilization <= 1, "between 0 and 1", error=arg)
    for name, value in counts.items():
        check(name, value, value >= 0, "≥ 0", error=arg)
    check("facility.pue", facility.pue, facility.pue >= 1, "≥ 1")
    check("facility.rack_power_kw", facility.rack_power_kw, facility.rack_power_kw > 0, "> 0")
    check("facility.servers_per_rack", facility.servers_per_rack, facility.servers_per_rack >= 1, "≥ 1")
    check("facility.colo_usd_per_kw_month", facility.colo_usd_per_kw_month, facility.colo_usd_per_kw_month >= 0, "≥ 0")
    check(
        "facility.electricity_usd_per_kwh",
        facility.electricity_usd_per_kwh,
        facility.electricity_usd_per_kwh >= 0,
        "≥ 0",
    )
    check("idle_power_share", idle_power_share, 0 <= idle_power_share <= 1, "between 0 and 1", error=arg)
    busy_ok = idle_power_share <= busy_power_share <= 1
    check("busy_power_share", busy_power_share, busy_ok, "between idle_power_share and 1", error=arg)
    check(
        "management_nodes",
        management_nodes,
        management_nodes >= MIN_MANAGEMENT_NODES,
        f"≥ {MIN_MANAGEMENT_NODES}",
        error=arg,
    )


def design_facility(
    scenario: Scenario,
    book: PriceBook,
    *,
    utilization: float | None = None,
    network_power_kw: float = 0.0,
    network_racks: int = 0,
    storage_power_kw: float = 0.0,
    storage_racks: int = 0,
    storage_servers: int = 0,
    management_nodes: int = MIN_MANAGEMENT_NODES,
    firewall_pairs: int = 1,
    platforms: dict[str, Platform] | None = None,
    idle_power_share: float = IDLE_POWER_SHARE,
    busy_power_share: float = BUSY_POWER_SHARE,
    server_counts: tuple[int, int] | None = None,
) -> FacilityDesign:
    """Management, racks, installation and power of ``scenario``'s cluster.

    ``utilization`` [fraction] sets average server power (default the use of the contract book,
    ``pricing.steady_utilization``). ``server_counts``:
    (servers in service, hot spares) as :func:`neoplan.design.sizing.design` counted them (default: counted here).
    ``network_power_kw``, ``network_racks`` come from the fabric sizing; ``storage_power_kw``,
    ``storage_racks`` and ``storage_servers`` from :func:`neoplan.design.storage.design_storage`.
    """
    util = scenario.pricing.steady_utilization if utilization is None else utilization
    facility = scenario.facility
    counts = {
        "network_power_kw": network_power_kw,
        "network_racks": network_racks,
        "storage_power_kw": storage_power_kw,
        "storage_racks": storage_racks,
        "storage_servers": storage_servers,
        "firewall_pairs": firewall_pairs,
    }
    _check_inputs(facility, util, counts, idle_power_share, busy_power_share, management_nodes)
    catalogue = platforms if platforms is not None else default_platforms()
    if scenario.cluster.gpu_model not in catalogue:
        raise ScenarioError(f"cluster.gpu_model must be one of {', '.join(sorted(catalogue))}")
    platform = catalogue[scenario.cluster.gpu_model]
    node_kw = platform.node_max_power_kw
    servers, spares = _counts(scenario, server_counts)
    installed = servers + spares

    per_rack, c_racks, m_racks, bought_racks = _racks(
        facility, platform, installed, network_racks, storage_racks, management_nodes, firewall_pairs
    )
    racks = c_racks + network_racks + storage_racks + m_racks
    warning = (
        None if platform.rack_scale else rack_power_warning(facility.servers_per_rack, node_kw, facility.rack_power_kw)
    )

    air_warning = air_cooling_warning(platform, compute_rack_kw(per_rack, node_kw), facility.air_cooled_rack_limit_kw)
    compute_peak = installed * node_kw
    compute_avg = compute_average_kw(servers, spares, node_kw, util, idle_power_share, busy_power_share)
    mgmt_kw = management_kw(management_nodes, firewall_pairs)
    liquid_kw = liquid_heat_kw(compute_peak, platform)
    colo_plant = platform.liquid_cooled and facility.cooling_plant == "colocation"
    pumps_kw = 0.0 if colo_plant else liquid_kw * facility.cdu_power_share
    premium_kw = facility.liquid_colo_premium * compute_peak if colo_plant else 0.0
    it_avg = compute_avg + network_power_kw + storage_power_kw + mgmt_kw + pumps_kw
    it_peak = compute_peak + network_power_kw + storage_power_kw + mgmt_kw + pumps_kw
    sm_nodes = min(SUBNET_MANAGER_NODES, management_nodes)
    frontend, backend, oob = management_ports(management_nodes, sm_nodes, firewall_pairs)

    timeline = scenario.timeline
    lines = management_lines(
        book, management_nodes, sm_nodes, firewall_pairs, f"nic_backend_{scenario.fabric.nic_gbps}g"
    )
    if not colo_plant:
        lines += cooling_lines(book, liquid_kw, c_racks if platform.liquid_cooled else 0)
    lines += site_lines(
        book,
        racks=racks,
        bought_racks=bought_racks,
        installed_servers=installed + storage_servers + management_nodes,
        burn_in_servers=installed,
        integration_burn_in_weeks=timeline.integration_burn_in_weeks,
        onsite_burn_in_days=timeline.onsite_burn_in_days,
    )
    return FacilityDesign(
        servers=servers,
        spare_servers=spares,
        servers_per_rack=per_rack,
        compute_racks=c_racks,
        network_racks=network_racks,
        storage_racks=storage_racks,
        management_racks=m_racks,
        pdus=bought_racks * PDUS_PER_RACK,
        management_nodes=management_nodes,
        subnet_manager_nodes=sm_nodes,
        firewall_pairs=firewall_pairs,
        node_max_power_kw=node_kw,
        compute_rack_kw=compute_rack_kw(per_rack, node_kw),
        rack_power_kw=facility.rack_power_kw,
        utilization=util,
        pue=facility.pue,
        compute_peak_kw=compute_peak,
        compute_avg_kw=compute_avg,
        network_kw=network_power_kw,
        storage_kw=storage_power_kw,
        management_kw=mgmt_kw,
        it_energy_kwh_per_year=energy_kwh_per_year(it_avg),
        facility_energy_kwh_per_year=energy_kwh_per_year(it_avg, facility.pue),
        colo_usd_per_year=colo_usd_per_year(it_peak + premium_kw, facility.colo_usd_per_kw_month),
        energy_usd_per_year=power_usd_per_year(
            it_avg, facility.pue, facility.electricity_usd_per_kwh, in_colo=facility.electricity_in_colo
        ),
        frontend_ports=frontend,
        backend_ports=backend,
        oob_ports=oob + bought_racks * PDUS_PER_RACK,
        lines=tuple(lines),
        warnings=tuple(w for w in (warning, air_warning) if w),
        liquid_heat_kw=liquid_kw,
        cooling_kw=pumps_kw,
        cooling=platform.cooling,
        rack_scale=platform.rack_scale,
        asked_servers_per_rack=facility.servers_per_rack,
        colo_premium_kw=premium_kw,
    )


def energy_kwh_per_year(avg_kw: Any, pue: Any = 1.0) -> Any:
    """Energy drawn in a year by an average load of ``avg_kw`` [kW] times ``pue`` [kWh/year] (arrays too)."""
    return avg_kw * pue * HOURS_PER_YEAR


def power_usd_per_year(avg_it_kw: Any, pue: Any, usd_per_kwh: Any, *, in_colo: bool = False) -> Any:
    """Electricity bill for an average IT load [USD/year]; 0 when the colocation price includes it (arrays too)."""
    return energy_kwh_per_year(avg_it_kw, pue) * (0.0 if in_colo else usd_per_kwh)


def colo_usd_per_year(it_peak_kw: Any, colo_usd_per_kw_month: Any) -> Any:
    """Colocation rent on contracted (peak IT) power [USD/year] (arrays too)."""
    return it_peak_kw * colo_usd_per_kw_month * MONTHS_PER_YEAR
