"""Cluster networks from first principles: back end, front end and out-of-band.

Three networks serve a GPU cluster (SemiAnalysis, "AI Neocloud Playbook and
Anatomy", 2024-10-03; BRIEF.md §2.2-2.3):

* the **back end** (InfiniBand NDR/XDR class) carries GPU-to-GPU collectives.
  It is a folded-Clos fat tree of fixed switches (``reference``, ``tor``,
  ``vms``) or a modular chassis (``modular``);
* the **front end** (Ethernet) carries storage, scheduler and internet traffic;
* the **out-of-band** network (1 GbE) reaches every BMC, PDU and switch.

Everything here is counts times unit prices: the physical facts of each switch,
optic and cable come from ``data/network_catalogue.csv``; their prices come
from the price book by the catalogue's ``price_key``. No price lives in code.

Sizing rules of the back end
----------------------------
* **Rail-optimized** designs (``reference``, ``vms``, ``modular``): one leaf per
  rail (NIC index) per scalable unit (SU); a leaf's downlinks are the servers of
  its SU. **Partial last SU**: the last SU holds the remaining servers but gets
  a full set of leaves whose uplinks are sized for a full SU, so every leaf is
  identical above (the tree stays balanced) and the SU can be filled later.
  A cluster smaller than one SU is one SU of that size.
* ``tor``: one leaf per compute rack (``servers_per_rack × nics_per_node``
  downlinks); not rail-optimized. The last rack may be partly filled.
* Leaf uplinks = ``ceil(downlinks / oversubscription)``, rounded up so that every
  leaf has the same number of links ``m`` to every spine (buildable). Two tiers
  while every leaf can reach every spine (leaves ≤ spine radix); beyond that a
  third (core) tier: pods of ``radix/2`` leaves (whole SUs), each pod with its
  own spines; spine *j* of every pod links to core group *j*, again with the
  same number of links to every core of the group.
* A 3-tier tree of ``k``-port switches connects at most ``k³/4`` endpoints
  non-blocking (65,536 for 64 ports). Beyond that the spine→core layer is
  **tapered** just enough to fit (bigger pods, fewer core uplinks, as Meta's
  7:1 between pods) and a warning says so; core and spine counts then fall as
  the taper grows, so "more GPUs never lowers a count" holds up to ``k³/4``.
* ``modular``: one CS9500-class chassis (up to 2,048 ports) takes every NIC
  directly; above that, rail-optimized leaves feed chassis acting as spines.

Media by design: ``reference`` optics everywhere; ``tor`` DAC splitters
server→leaf and optics above; ``vms`` optics server→leaf and passive DAC (or
ACC) leaf→spine; ``modular`` optics server→chassis. Switch-side optics are
twin-port (one per two switch ports); server-side optics are single-port;
one fibre per optical link; a twin-port copper cable carries two links.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .costs import CostLine, priced, total_usd
from .pricebook import DATA_DIR, PriceBook
from .scenario import Scenario

CATALOGUE_FILE = DATA_DIR / "network_catalogue.csv"

TOPOLOGIES = ("reference", "tor", "vms", "modular")
RAIL_OPTIMIZED = ("reference", "vms", "modular")
UFM_REQUIRED_ABOVE_GPUS = 2048
"""Above this many GPUs UFM is a hard requirement (SemiAnalysis 2024-10-03); the quote package imports it."""
NETWORK_RACK_USABLE_U = 32  # of 42U: the rest holds patch panels, cable managers and PDUs
CABLE_MANAGER_U = 1  # one 1U cable manager above every fixed switch in a network rack
OOB_MANAGEMENT_PORTS_PER_CHASSIS = 2  # two management modules per modular chassis
FAMILY_BY_NIC_GBPS = {400: "ndr", 800: "xdr"}


class FabricError(ValueError):
    """An impossible fabric; the message names the scenario field to change."""


# --- catalogue ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NetworkItem:
    """A switch, chassis, line card, optic or cable of ``data/network_catalogue.csv``.

    ``radix`` is ports per switch (0 where not a switch), ``port_gbps`` the port
    speed [Gbit/s], ``links_per_unit`` how many links one optic or cable serves,
    ``power_w`` the typical power without optics [W], ``price_key`` the
    price-book key of one unit.
    """

    key: str
    kind: str
    role: str
    family: str
    vendor_class: str
    name: str
    radix: int
    port_gbps: float
    uplink_ports: int
    uplink_gbps: float
    links_per_unit: int
    rack_units: int
    power_w: float
    cooling: str
    max_line_cards: int
    price_key: str
    date: str
    source: str


def _int(raw: str) -> int:
    return int(raw) if raw.strip() else 0


def _float(raw: str) -> float:
    return float(raw) if raw.strip() else 0.0


def read_network_catalogue(path: Path = CATALOGUE_FILE) -> dict[str, NetworkItem]:
    """Read the network catalogue, keyed by item key (e.g. ``qm9700``)."""
    out: dict[str, NetworkItem] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        for line, raw in enumerate(csv.DictReader(fh), start=2):
            try:
                item = NetworkItem(
                    key=raw["key"].strip(),
                    kind=raw["kind"].strip(),
                    role=raw["role"].strip(),
                    family=raw["family"].strip(),
                    vendor_class=raw["vendor_class"].strip(),
                    name=raw["name"].strip(),
                    radix=_int(raw["radix"]),
                    port_gbps=_float(raw["port_gbps"]),
                    uplink_ports=_int(raw["uplink_ports"]),
                    uplink_gbps=_float(raw["uplink_gbps"]),
                    links_per_unit=_int(raw["links_per_unit"]),
                    rack_units=_int(raw["rack_units"]),
                    power_w=_float(raw["power_w"]),
                    cooling=raw["cooling"].strip(),
                    max_line_cards=_int(raw["max_line_cards"]),
                    price_key=raw["price_key"].strip(),
                    date=raw["date"].strip(),
                    source=raw["source"].strip(),
                )
            except (KeyError, ValueError) as exc:
                raise FabricError(f"{path.name} line {line}: {exc}") from None
            if item.key in out:
                raise FabricError(f"{path.name} line {line}: duplicate key {item.key!r}")
            out[item.key] = item
    return out


@lru_cache(maxsize=1)
def default_network_catalogue() -> dict[str, NetworkItem]:
    """The shipped network catalogue (cached; treat as read-only)."""
    return read_network_catalogue()


def catalogue_item(
    catalogue: Mapping[str, NetworkItem], *, role: str, family: str, vendor_class: str = "any"
) -> NetworkItem:
    """The catalogue row for ``role`` and ``family``; a row of ``vendor_class`` wins over ``any``.

    Among several matching switches the one with the highest radix is taken.
    """
    rows = [r for r in catalogue.values() if r.role == role and r.family == family]
    exact = [r for r in rows if r.vendor_class == vendor_class]
    rows = exact or [r for r in rows if r.vendor_class == "any"]
    if not rows:
        raise FabricError(f"network catalogue has no {role} for {family} ({vendor_class})")
    return max(rows, key=lambda r: (r.radix, r.key))


def _switch(catalogue: Mapping[str, NetworkItem], key: str) -> NetworkItem:
    if key not in catalogue or catalogue[key].role != "switch":
        names = ", ".join(sorted(k for k, r in catalogue.items() if r.role == "switch" and r.family in ("ndr", "xdr")))
        raise FabricError(
            f"fabric.switch_model {key!r} is not a back-end switch in data/network_catalogue.csv; choose one of {names}"
        )
    return catalogue[key]


# --- balanced fat trees -------------------------------------------------------------------------


@dataclass(frozen=True)
class FatTree:
    """A buildable folded-Clos tree above a set of leaves.

    Every leaf has ``leaf_spine_links`` links to each spine of its pod and every
    spine has ``spine_core_links`` links to each core of its group, so link
    counts follow from the structure, never from a bare ceiling of ports ÷ radix.
    """

    tiers: int
    leaves: int
    leaf_downlinks: int
    leaf_uplinks: int
    spines: int
    leaf_spine_links: int
    pods: int
    leaves_per_pod: int
    spines_per_pod: int
    spine_uplinks: int
    cores: int
    cores_per_group: int
    spine_core_links: int
    spine_taper: float

    @property
    def links_leaf_spine(self) -> int:
        """Leaf-to-spine links [count]."""
        return self.leaves * self.leaf_uplinks

    @property
    def links_spine_core(self) -> int:
        """Spine-to-core links [count]."""
        return self.spines * self.spine_uplinks

    def spine_downlinks(self) -> list[int]:
        """Used downward ports of each spine [count], pod by pod (the last pod may be partial)."""
        if self.spines == 0:
            return []
        if self.tiers == 2:
            return [self.leaves * self.leaf_spine_links] * self.spines
        out = []
        for pod in range(self.pods):
            in_pod = min(self.leaves_per_pod, self.leaves - pod * self.leaves_per_pod)
            out += [in_pod * self.leaf_spine_links] * self.spines_per_pod
        return out

    @property
    def core_ports_used(self) -> int:
        """Used ports of each core switch [count]."""
        return self.pods * self.spine_core_links if self.cores else 0


def _ceil_div(a: float, b: float) -> int:
    """``ceil(a / b)`` robust to float noise (``32 / 2.0`` stays 16)."""
    return math.ceil(a / b - 1e-9)


def leaf_uplinks_needed(downlinks: int, oversubscription: float) -> int:
    """Uplinks a leaf needs for ``downlinks`` at N:1 ``oversubscription`` [count], before balancing."""
    if not oversubscription >= 1:
        raise FabricError(f"fabric.oversubscription must be ≥ 1, got {oversubscription}")
    return max(1, _ceil_div(downlinks, oversubscription))


def fat_tree(
    leaves: int,
    leaf_downlinks: int,
    oversubscription: float,
    radix: int,
    *,
    spine_radix: int | None = None,
    leaf_group: int = 1,
    allow_core: bool = True,
) -> FatTree:
    """Balanced 1-, 2- or 3-tier tree above ``leaves`` leaves of ``radix`` ports.

    Parameters
    ----------
    leaves : leaf switches [count]
    leaf_downlinks : ports reserved for endpoints on each leaf [count]
    oversubscription : leaf downlinks per uplink, N:1 [ratio]
    radix : ports per leaf (and per core) switch [count]
    spine_radix : ports per spine [count]; a modular chassis as spine has 2,048
    leaf_group : leaves that must share a pod (rails of one SU) [count]
    allow_core : whether a third tier may be added

    Returns
    -------
    FatTree whose spine and core counts make every leaf-spine and spine-core
    pair carry the same number of links.
    """
    spine_radix = spine_radix or radix
    if leaves < 1:
        raise FabricError("cluster.gpus: the fabric needs at least one leaf")
    if leaves == 1 and leaf_group == 1:
        return FatTree(1, 1, leaf_downlinks, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1.0)
    need = leaf_uplinks_needed(leaf_downlinks, oversubscription)
    if leaf_downlinks + need > radix:
        raise FabricError(
            f"a leaf needs {leaf_downlinks} downlinks + {need} uplinks = {leaf_downlinks + need} ports "
            f"but has {radix}"
        )
    if leaves <= spine_radix:
        best: tuple[int, int, int] | None = None
        for m in range(1, spine_radix // leaves + 1):
            spines = _ceil_div(need, m)
            uplinks = spines * m
            if leaf_downlinks + uplinks <= radix and (best is None or (spines, uplinks) < best[:2]):
                best = (spines, uplinks, m)
        assert best is not None  # m = 1 always fits
        spines, uplinks, m = best
        return FatTree(2, leaves, leaf_downlinks, uplinks, spines, m, 1, leaves, spines, 0, 0, 0, 0, 1.0)
    if not allow_core or spine_radix != radix:
        raise FabricError(
            f"{leaves} leaves exceed what one tier of {spine_radix}-port spines can reach (max {spine_radix})"
        )
    half = radix // 2
    if leaf_group > half:
        raise FabricError(f"{leaf_group} leaves per pod exceed half the radix ({half})")
    per_pod = half // leaf_group * leaf_group
    spine_up = per_pod
    if _ceil_div(leaves, per_pod) > radix:  # taper the spine layer to fit under one core tier
        per_pod = _ceil_div(_ceil_div(leaves, radix), leaf_group) * leaf_group
        spine_up = radix - per_pod
        if spine_up < 1:
            raise FabricError(f"{leaves} leaves exceed three tiers of {radix}-port switches")
    pods = _ceil_div(leaves, per_pod)
    best_core: tuple[int, int, int] | None = None
    for c in range(1, radix // pods + 1):
        group = _ceil_div(spine_up, c)
        up = group * c
        if per_pod + up <= radix and (best_core is None or (group, up) < best_core[:2]):
            best_core = (group, up, c)
    if best_core is None:
        raise FabricError(f"{leaves} leaves exceed three tiers of {radix}-port switches")
    group, up, c = best_core
    spines_per_pod = need
    return FatTree(
        tiers=3,
        leaves=leaves,
        leaf_downlinks=leaf_downlinks,
        leaf_uplinks=need,
        spines=pods * spines_per_pod,
        leaf_spine_links=1,
        pods=pods,
        leaves_per_pod=per_pod,
        spines_per_pod=spines_per_pod,
        spine_uplinks=up,
        cores=spines_per_pod * group,
        cores_per_group=group,
        spine_core_links=c,
        spine_taper=per_pod / up,
    )


def network_racks(switches: int, rack_units: int) -> int:
    """Network racks for ``switches`` of ``rack_units`` U each, with a cable manager per switch [count]."""
    if switches <= 0:
        return 0
    per_rack = max(1, NETWORK_RACK_USABLE_U // (rack_units + CABLE_MANAGER_U))
    return _ceil_div(switches, per_rack)


def twin_port_units(ports_per_switch: list[int] | int, switches: int = 1) -> int:
    """Twin-port optics or cables for switches using the given ports [count] (two ports per unit)."""
    if isinstance(ports_per_switch, int):
        return switches * _ceil_div(ports_per_switch, 2)
    return sum(_ceil_div(p, 2) for p in ports_per_switch)


def cabled_servers(servers: int, hot_spare_share: float = 0.0) -> int:
    """Servers wired into every network: in service plus hot spares [count] (spares rounded up)."""
    return servers + _ceil_div(servers * hot_spare_share, 1) if hot_spare_share > 0 else servers


# --- back end -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BackendDesign:
    """Counts of a back-end fabric. Links, optics and cables are whole units [count]."""

    topology: str
    oversubscription: float
    nics_per_node: int
    nic_gbps: int
    gpus_per_node: int
    servers: int
    endpoints: int
    tiers: int
    scalable_units: int
    leaf_switches: int
    spine_switches: int
    core_switches: int
    chassis: int
    line_cards: int
    leaf_downlinks: int
    leaf_uplinks: int
    leaf_spine_links_per_pair: int
    spine_core_links_per_pair: int
    pods: int
    spine_taper: float
    links_server_leaf: int
    links_leaf_spine: int
    links_spine_core: int
    server_links_by_medium: Mapping[str, int]
    transceivers_by_type: Mapping[str, int]
    cables_by_medium: Mapping[str, int]
    switch_ports_available: int
    switch_ports_used: int
    network_racks: int
    switch_power_kw: float
    optics_power_kw: float
    liquid_cooled: bool
    items: Mapping[str, str]
    tree: FatTree | None = None

    @property
    def transceivers(self) -> int:
        """All back-end transceivers, server and switch side [count]."""
        return sum(self.transceivers_by_type.values())

    @property
    def cables(self) -> int:
        """All back-end cables: fibres, DACs, DAC splitters, ACCs [count]."""
        return sum(self.cables_by_medium.values())

    @property
    def power_kw(self) -> float:
        """Switches plus optics [kW]."""
        return self.switch_power_kw + self.optics_power_kw

    @property
    def injection_gbps_per_gpu(self) -> float:
        """Back-end bandwidth each GPU can inject [Gbit/s]."""
        return self.nics_per_node * self.nic_gbps / self.gpus_per_node

    @property
    def spine_gbps_per_gpu(self) -> float:
        """Bandwidth per GPU through the spine layer when every GPU sends across pods [Gbit/s]."""
        if self.tree is None or self.tree.tiers == 1:
            return self.injection_gbps_per_gpu
        ratio = min(1.0, self.tree.leaf_uplinks / self.tree.leaf_downlinks) / self.tree.spine_taper
        return self.injection_gbps_per_gpu * ratio


def _leaf_layout(topology: str, servers: int, nics: int, servers_per_su: int, servers_per_rack: int):
    """Leaves, reserved downlinks per leaf, downlinks in use per leaf, leaf group and SU count."""
    if topology == "tor":
        racks = _ceil_div(servers, servers_per_rack)
        last = servers - (racks - 1) * servers_per_rack
        used = [servers_per_rack * nics] * (racks - 1) + [last * nics]
        return racks, servers_per_rack * nics, used, 1, racks
    su = min(servers_per_su, servers)
    sus = _ceil_div(servers, su)
    last = servers - (sus - 1) * su
    used = [su] * ((sus - 1) * nics) + [last] * nics
    return sus * nics, su, used, nics, sus


def _check_leaf_fits(topology: str, downlinks: int, oversubscription: float, switch: NetworkItem, nics: int) -> None:
    need = leaf_uplinks_needed(downlinks, oversubscription)
    if downlinks + need <= switch.radix:
        return
    what = (
        f"facility.servers_per_rack × fabric.nics_per_node = {downlinks} leaf downlinks"
        if topology == "tor"
        else f"fabric.servers_per_su = {downlinks} servers (one leaf port each per rail)"
    )
    raise FabricError(
        f"{what} plus {need} uplinks need {downlinks + need} ports but fabric.switch_model {switch.key!r} "
        f"has {switch.radix}; lower it or raise fabric.oversubscription"
    )


def size_backend(
    servers: int,
    *,
    topology: str = "reference",
    nics_per_node: int = 8,
    nic_gbps: int = 400,
    oversubscription: float = 1.0,
    servers_per_su: int = 32,
    servers_per_rack: int = 4,
    leaf_spine_cable: str = "dac",
    gpus_per_node: int = 8,
    switch_model: str = "qm9700",
    catalogue: Mapping[str, NetworkItem] | None = None,
) -> BackendDesign:
    """Size the back-end fabric for ``servers`` cabled servers.

    Parameters
    ----------
    servers : servers wired to the back end, hot spares included [count]
    topology : reference, tor, vms or modular
    nics_per_node : back-end NICs per server = rails [count]
    nic_gbps : NIC port speed [Gbit/s]; must match the switch port speed
    oversubscription : leaf downlinks per uplink, N:1 [ratio]
    servers_per_su : servers per scalable unit (rail-optimized designs) [count]
    servers_per_rack : servers per compute rack (``tor`` leaf size) [count]
    leaf_spine_cable : ``dac`` or ``acc``, copper for leaf→spine in ``vms``
    gpus_per_node : GPUs per server [count], for bandwidth per GPU
    switch_model : catalogue key of the fixed switch

    Returns
    -------
    BackendDesign with switch, link, optic and cable counts, racks and power.
    """
    cat = catalogue or default_network_catalogue()
    if topology not in TOPOLOGIES:
        raise FabricError(f"fabric.topology must be one of {', '.join(TOPOLOGIES)}, got {topology!r}")
    if servers < 1:
        raise FabricError(f"cluster.gpus must give at least one server, got {servers} servers")
    if nics_per_node < 1:
        raise FabricError(f"fabric.nics_per_node must be ≥ 1, got {nics_per_node}")
    if leaf_spine_cable not in ("dac", "acc"):
        raise FabricError(f"fabric.leaf_spine_cable must be dac or acc, got {leaf_spine_cable!r}")
    leaf_uplinks_needed(1, oversubscription)  # validates oversubscription
    switch = _switch(cat, switch_model)
    if switch.port_gbps != nic_gbps:
        raise FabricError(
            f"fabric.nic_gbps is {nic_gbps} but fabric.switch_model {switch.key!r} has {switch.port_gbps:g} Gbit/s "
            f"ports; choose a {nic_gbps}G switch"
            + (" such as 'q3400'" if nic_gbps == 800 else " such as 'qm9700'")
        )
    family = switch.family
    item = {
        "switch": switch,
        "server_optic": catalogue_item(cat, role="server_optic", family=family),
        "switch_optic": catalogue_item(cat, role="switch_optic", family=family),
        "fibre": catalogue_item(cat, role="fibre", family=family),
        "dac": catalogue_item(cat, role="dac", family=family),
        "acc": catalogue_item(cat, role="acc", family=family),
        "dac_splitter": catalogue_item(cat, role="dac_splitter", family=family),
    }
    endpoints = servers * nics_per_node
    chassis_item: NetworkItem | None = None
    card_item: NetworkItem | None = None
    if topology == "modular":
        chassis_rows = [r for r in cat.values() if r.role == "chassis" and r.family == family]
        if not chassis_rows:
            raise FabricError(f"fabric.topology 'modular' has no chassis for {nic_gbps} Gbit/s in the catalogue")
        chassis_item = max(chassis_rows, key=lambda r: r.radix)
        card_item = catalogue_item(cat, role="line_card", family=family, vendor_class=chassis_item.vendor_class)
        item["chassis"] = chassis_item
        item["line_card"] = card_item

    # --- logical structure
    tree: FatTree | None = None
    chassis = line_cards = 0
    if topology == "modular" and chassis_item is not None and card_item is not None and endpoints <= chassis_item.radix:
        sus = _ceil_div(servers, min(servers_per_su, servers))
        leaves, used_down, spines, cores = 0, [], 0, 0
        chassis, line_cards = 1, _ceil_div(endpoints, card_item.radix)
        chassis_ports = [endpoints]
        leaf_up = 0
        tiers = 1
    else:
        leaves, reserved, used_down, group, sus = _leaf_layout(
            topology, servers, nics_per_node, servers_per_su, servers_per_rack
        )
        _check_leaf_fits(topology, reserved, oversubscription, switch, nics_per_node)
        if topology == "modular" and chassis_item is not None and card_item is not None:
            if leaves > chassis_item.radix:
                raise FabricError(
                    f"fabric.topology 'modular' reaches at most {chassis_item.radix:,} leaves "
                    f"({chassis_item.radix * reserved:,} NIC endpoints); choose vms or reference for "
                    f"cluster.gpus = {servers * gpus_per_node:,}"
                )
            tree = fat_tree(leaves, reserved, oversubscription, switch.radix, spine_radix=chassis_item.radix,
                            leaf_group=group, allow_core=False)
            chassis = tree.spines
            chassis_ports = tree.spine_downlinks()
            line_cards = sum(_ceil_div(p, card_item.radix) for p in chassis_ports)
            spines, cores = 0, 0
        else:
            try:
                tree = fat_tree(leaves, reserved, oversubscription, switch.radix, leaf_group=group)
            except FabricError as exc:
                raise FabricError(
                    f"cluster.gpus: {servers * gpus_per_node:,} GPUs with {nics_per_node} NICs each need {leaves:,} "
                    f"leaves, too many for fabric.switch_model {switch.key!r} ({exc}); choose a higher-radix switch"
                ) from None
            spines, cores = tree.spines, tree.cores
            chassis_ports = []
        leaf_up = tree.leaf_uplinks
        tiers = tree.tiers

    links_ll = sum(used_down) if leaves else 0
    links_ls = tree.links_leaf_spine if tree else 0
    links_sc = tree.links_spine_core if tree else 0

    # --- media by placement
    server_medium = "dac_splitter" if topology == "tor" else "fibre"
    upper_copper = topology == "vms"
    copper = "acc" if leaf_spine_cable == "acc" else "dac"
    server_links = {server_medium: endpoints}

    server_optics = endpoints if server_medium == "fibre" else 0
    twin = 0
    fibres = 0
    dac = acc = splitters = 0
    if server_medium == "fibre":
        if leaves:
            twin += twin_port_units(used_down)
        else:
            twin += twin_port_units(chassis_ports)  # servers straight into the chassis
        fibres += endpoints
    else:
        splitters += twin_port_units(used_down)
    if tree is not None and tree.tiers >= 2:
        if upper_copper:
            n = twin_port_units(leaf_up, leaves)
            if copper == "acc":
                acc += n
            else:
                dac += n
        else:
            twin += twin_port_units(leaf_up, leaves)
            twin += twin_port_units(chassis_ports if chassis else tree.spine_downlinks())
            fibres += links_ls
    if tree is not None and tree.tiers == 3:
        twin += twin_port_units(tree.spine_uplinks, tree.spines)
        twin += twin_port_units(tree.core_ports_used, tree.cores)
        fibres += links_sc

    transceivers = {"server_optic": server_optics, "switch_optic": twin}
    cables = {"fibre": fibres, "dac": dac, "dac_splitter": splitters, "acc": acc}

    # --- ports, racks, power
    fixed = leaves + spines + cores
    card_radix = card_item.radix if card_item else 0
    available = fixed * switch.radix + line_cards * card_radix
    used = links_ll + links_ls * 2 + links_sc * 2 if leaves else endpoints
    rack_leaves = 0 if topology == "tor" else leaves
    racks = network_racks(rack_leaves, switch.rack_units) + network_racks(spines + cores, switch.rack_units) + chassis
    switch_w = fixed * switch.power_w
    if chassis_item is not None and card_item is not None:
        switch_w += chassis * chassis_item.power_w + line_cards * card_item.power_w
    optics_w = (
        server_optics * item["server_optic"].power_w
        + twin * item["switch_optic"].power_w
        + dac * item["dac"].power_w
        + acc * item["acc"].power_w
        + splitters * item["dac_splitter"].power_w
    )
    return BackendDesign(
        topology=topology,
        oversubscription=float(oversubscription),
        nics_per_node=nics_per_node,
        nic_gbps=nic_gbps,
        gpus_per_node=gpus_per_node,
        servers=servers,
        endpoints=endpoints,
        tiers=tiers,
        scalable_units=sus,
        leaf_switches=leaves,
        spine_switches=spines,
        core_switches=cores,
        chassis=chassis,
        line_cards=line_cards,
        leaf_downlinks=tree.leaf_downlinks if tree else 0,
        leaf_uplinks=leaf_up,
        leaf_spine_links_per_pair=tree.leaf_spine_links if tree else 0,
        spine_core_links_per_pair=tree.spine_core_links if tree else 0,
        pods=tree.pods if tree else 1,
        spine_taper=tree.spine_taper if tree else 1.0,
        links_server_leaf=endpoints,
        links_leaf_spine=links_ls,
        links_spine_core=links_sc,
        server_links_by_medium=server_links,
        transceivers_by_type=transceivers,
        cables_by_medium=cables,
        switch_ports_available=available,
        switch_ports_used=used,
        network_racks=racks,
        switch_power_kw=switch_w / 1000,
        optics_power_kw=optics_w / 1000,
        liquid_cooled=any(it.cooling == "liquid" for it in item.values()),
        items={role: it.key for role, it in item.items()},
        tree=tree,
    )


def backend_lines(
    design: BackendDesign, book: PriceBook, catalogue: Mapping[str, NetworkItem] | None = None
) -> list[CostLine]:
    """Priced lines of a back-end design, category ``backend_network`` [USD]."""
    cat = catalogue or default_network_catalogue()

    def line(role: str, qty: int, label: str) -> CostLine | None:
        if qty <= 0:
            return None
        it = cat[design.items[role]]
        return priced(book, it.price_key, qty, "backend_network", f"{label} — {it.name}")

    candidates = [
        line("switch", design.leaf_switches, "Leaf switches"),
        line("switch", design.spine_switches, "Spine switches"),
        line("switch", design.core_switches, "Core switches"),
        line("chassis", design.chassis, "Modular chassis"),
        line("line_card", design.line_cards, "Chassis line cards"),
        line("server_optic", design.transceivers_by_type["server_optic"], "Server-side transceivers"),
        line("switch_optic", design.transceivers_by_type["switch_optic"], "Switch-side twin-port transceivers"),
        line("fibre", design.cables_by_medium["fibre"], "Fibres"),
        line("dac", design.cables_by_medium["dac"], "Passive DAC"),
        line("dac_splitter", design.cables_by_medium["dac_splitter"], "DAC splitters"),
        line("acc", design.cables_by_medium["acc"], "Active copper cables"),
    ]
    return [c for c in candidates if c is not None]


def subnet_manager_lines(endpoints: int, subnet_manager: str, book: PriceBook,
                         subscription: bool = False) -> list[CostLine]:
    """Up-front UFM licences, one per NIC endpoint, category ``management`` [USD].

    None for OpenSM, and none when UFM is paid as a yearly subscription (an opex line instead).
    """
    if subnet_manager == "ufm" and endpoints > 0 and not subscription:
        return [priced(book, "ufm_licence_per_endpoint", endpoints, "management", "UFM licences (per NIC endpoint)")]
    return []


# --- front end ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FrontendDesign:
    """Counts of the front-end Ethernet network."""

    switch_class: str
    port_gbps: int
    ports_per_node: int
    gpus_per_node: int
    endpoints: int
    tiers: int
    leaf_switches: int
    spine_switches: int
    core_switches: int
    links_server_leaf: int
    links_leaf_spine: int
    links_spine_core: int
    transceivers: int
    cables: int
    network_racks: int
    switch_power_kw: float
    optics_power_kw: float
    items: Mapping[str, str]
    tree: FatTree | None = None

    @property
    def switches(self) -> int:
        """All front-end switches [count]."""
        return self.leaf_switches + self.spine_switches + self.core_switches

    @property
    def power_kw(self) -> float:
        """Switches plus optics [kW]."""
        return self.switch_power_kw + self.optics_power_kw

    @property
    def gbps_per_server(self) -> float:
        """Front-end bandwidth per compute server [Gbit/s]."""
        return self.ports_per_node * self.port_gbps

    @property
    def gbps_per_gpu(self) -> float:
        """Front-end bandwidth per GPU [Gbit/s] (the article: 25-50 is plenty)."""
        return self.gbps_per_server / self.gpus_per_node


def size_frontend(
    servers: int,
    *,
    ports_per_node: int = 2,
    port_gbps: int = 100,
    switch_class: str = "generic",
    extra_ports: int = 0,
    gpus_per_node: int = 8,
    oversubscription: float = 1.0,
    catalogue: Mapping[str, NetworkItem] | None = None,
) -> FrontendDesign:
    """Size the front-end Ethernet leaf-spine for ``servers`` plus ``extra_ports``.

    Parameters
    ----------
    servers : servers wired to the front end, hot spares included [count]
    ports_per_node : front-end ports per server [count]
    port_gbps : speed of each port [Gbit/s]
    switch_class : ``generic`` or ``spectrum``
    extra_ports : ports of storage and management nodes [count]
    oversubscription : leaf downlinks per uplink, N:1 [ratio]

    Leaves sit in network racks, so every link is two transceivers and a fibre.
    """
    cat = catalogue or default_network_catalogue()
    if extra_ports < 0:
        raise FabricError(f"frontend extra ports must be ≥ 0, got {extra_ports}")
    family = f"eth{port_gbps}"
    switch = catalogue_item(cat, role="switch", family=family, vendor_class=switch_class)
    optic = catalogue_item(cat, role="optic", family=family, vendor_class=switch_class)
    fibre = catalogue_item(cat, role="fibre", family="eth")
    endpoints = servers * ports_per_node + extra_ports
    k = switch.radix
    if endpoints <= k:
        tree = FatTree(1, 1, endpoints, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1.0)
    else:
        down = max(1, math.floor(k * oversubscription / (oversubscription + 1)))
        need = leaf_uplinks_needed(down, oversubscription)
        while down + need > k:
            down -= 1
            need = leaf_uplinks_needed(down, oversubscription)
        try:
            tree = fat_tree(_ceil_div(endpoints, down), down, oversubscription, k)
        except FabricError as exc:
            raise FabricError(
                f"fabric.frontend: {endpoints:,} front-end ports are too many for {switch.key} switches ({exc}); "
                "lower fabric.frontend.ports_per_node or choose another switch class"
            ) from None
    links = endpoints + tree.links_leaf_spine + tree.links_spine_core
    switches = tree.leaves + tree.spines + tree.cores
    return FrontendDesign(
        switch_class=switch_class,
        port_gbps=port_gbps,
        ports_per_node=ports_per_node,
        gpus_per_node=gpus_per_node,
        endpoints=endpoints,
        tiers=tree.tiers,
        leaf_switches=tree.leaves,
        spine_switches=tree.spines,
        core_switches=tree.cores,
        links_server_leaf=endpoints,
        links_leaf_spine=tree.links_leaf_spine,
        links_spine_core=tree.links_spine_core,
        transceivers=2 * links,
        cables=links,
        network_racks=network_racks(switches, switch.rack_units),
        switch_power_kw=switches * switch.power_w / 1000,
        optics_power_kw=2 * links * optic.power_w / 1000,
        items={"switch": switch.key, "optic": optic.key, "fibre": fibre.key},
        tree=tree,
    )


def frontend_lines(
    design: FrontendDesign, book: PriceBook, catalogue: Mapping[str, NetworkItem] | None = None
) -> list[CostLine]:
    """Priced lines of the front end, category ``frontend_network`` [USD]."""
    cat = catalogue or default_network_catalogue()
    sw, opt, fib = (cat[design.items[r]] for r in ("switch", "optic", "fibre"))
    rows = [
        (sw, design.leaf_switches, "Front-end leaf switches"),
        (sw, design.spine_switches, "Front-end spine switches"),
        (sw, design.core_switches, "Front-end core switches"),
        (opt, design.transceivers, "Front-end transceivers"),
        (fib, design.cables, "Front-end fibres"),
    ]
    return [priced(book, it.price_key, q, "frontend_network", f"{label} — {it.name}") for it, q, label in rows if q > 0]


# --- out-of-band ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class OobDesign:
    """Counts of the 1 GbE out-of-band management network."""

    switch_class: str
    bmc_ports: int
    switch_ports: int
    pdu_ports: int
    access_switches: int
    aggregation_switches: int
    uplink_cables: int
    patch_cords: int
    power_kw: float
    items: Mapping[str, str]

    @property
    def ports(self) -> int:
        """1 GbE ports in use [count]."""
        return self.bmc_ports + self.switch_ports + self.pdu_ports

    @property
    def switches(self) -> int:
        """Access plus aggregation switches [count]."""
        return self.access_switches + self.aggregation_switches


def size_oob(
    *,
    bmcs: int,
    managed_switches: int,
    pdus: int,
    switch_class: str = "generic",
    catalogue: Mapping[str, NetworkItem] | None = None,
) -> OobDesign:
    """Size the out-of-band network: one 1 GbE port per BMC, switch and PDU.

    Access switches (48×1G) sit in the racks; with more than one, each sends
    two uplinks to a redundant pair of aggregation switches.
    """
    cat = catalogue or default_network_catalogue()
    for name, v in (("bmcs", bmcs), ("managed_switches", managed_switches), ("pdus", pdus)):
        if v < 0:
            raise FabricError(f"out-of-band {name} must be ≥ 0, got {v}")
    access_item = catalogue_item(cat, role="switch", family="eth1g", vendor_class=switch_class)
    agg_item = catalogue_item(cat, role="oob_aggregation", family="eth1g", vendor_class=switch_class)
    uplink_item = catalogue_item(cat, role="uplink_cable", family="eth1g", vendor_class=switch_class)
    patch_item = catalogue_item(cat, role="patch", family="eth1g")
    ports = bmcs + managed_switches + pdus
    access = _ceil_div(ports, access_item.radix) if ports else 0
    aggregation = 2 * _ceil_div(access, agg_item.radix) if access > 1 else 0
    uplinks = 2 * access if aggregation else 0
    power_w = access * access_item.power_w + aggregation * agg_item.power_w
    return OobDesign(
        switch_class=switch_class,
        bmc_ports=bmcs,
        switch_ports=managed_switches,
        pdu_ports=pdus,
        access_switches=access,
        aggregation_switches=aggregation,
        uplink_cables=uplinks,
        patch_cords=ports,
        power_kw=power_w / 1000,
        items={
            "access": access_item.key,
            "aggregation": agg_item.key,
            "uplink": uplink_item.key,
            "patch": patch_item.key,
        },
    )


def oob_lines(design: OobDesign, book: PriceBook, catalogue: Mapping[str, NetworkItem] | None = None) -> list[CostLine]:
    """Priced lines of the out-of-band network, category ``oob_network`` [USD]."""
    cat = catalogue or default_network_catalogue()
    rows = [
        ("access", design.access_switches, "OOB access switches"),
        ("aggregation", design.aggregation_switches, "OOB aggregation switches"),
        ("uplink", design.uplink_cables, "OOB uplink cables"),
        ("patch", design.patch_cords, "OOB patch cords"),
    ]
    out = []
    for role, q, label in rows:
        if q > 0:
            it = cat[design.items[role]]
            out.append(priced(book, it.price_key, q, "oob_network", f"{label} — {it.name}"))
    return out


# --- the whole fabric ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FabricDesign:
    """Back end, front end and out-of-band of one scenario, with priced lines.

    ``lines`` carry categories ``backend_network``, ``frontend_network``,
    ``oob_network`` and ``management`` (UFM licences: fabric-management
    software, kept out of the back-end hardware). ``power_kw`` holds
    ``backend``, ``frontend``, ``oob`` [kW].
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
        """UFM licences bought [count]."""
        return self.backend.endpoints if self.subnet_manager == "ufm" else 0

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
            },
            "oob": {
                "switch_class": o.switch_class,
                "ports": o.ports,
                "access_switches": o.access_switches,
                "aggregation_switches": o.aggregation_switches,
                "capex_usd": self.capex_usd("oob_network"),
            },
            "ufm_licences": self.ufm_licences,
            "power_kw": dict(self.power_kw),
            "warnings": list(self.warnings),
        }


def _backend_for(scenario: Scenario, catalogue: Mapping[str, NetworkItem], **override: Any) -> BackendDesign:
    fab, cl = scenario.fabric, scenario.cluster
    args: dict[str, Any] = {
        "topology": fab.topology,
        "nics_per_node": fab.nics_per_node,
        "nic_gbps": fab.nic_gbps,
        "oversubscription": fab.oversubscription,
        "servers_per_su": fab.servers_per_su,
        "servers_per_rack": scenario.facility.servers_per_rack,
        "leaf_spine_cable": fab.leaf_spine_cable,
        "gpus_per_node": cl.gpus_per_node,
        "switch_model": fab.switch_model,
    }
    args.update(override)
    return size_backend(cabled_servers(cl.servers, cl.hot_spare_share), catalogue=catalogue, **args)


def fabric_warnings(scenario: Scenario, backend: BackendDesign) -> list[str]:
    """Plain-language warnings about the chosen fabric."""
    fab, gpus = scenario.fabric, scenario.cluster.gpus
    out = []
    if fab.subnet_manager == "opensm" and gpus > UFM_REQUIRED_ABOVE_GPUS:
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
            f"{backend.endpoints:,} NIC endpoints exceed a non-blocking 3-tier tree of {fab.switch_model} switches; "
            f"the spine→core layer is tapered {backend.spine_taper:.1f}:1 to fit (Meta runs 7:1 between pods)"
        )
    if fab.leaf_spine_cable == "acc" and backend.topology == "vms":
        out.append("ACC leaf→spine cables: NVIDIA LinkX NDR ACC has been reported with poor error rates")
    if fab.leaf_spine_cable == "acc" and backend.topology != "vms":
        out.append("fabric.leaf_spine_cable applies to the vms topology only; ignored here")
    if fab.nics_per_node == 4:
        out.append("4 back-end NICs per server halve back-end bandwidth; most customers want 8×400G")
    return out


def design_fabric(
    scenario: Scenario,
    book: PriceBook,
    *,
    frontend_extra_ports: int = 0,
    oob_extra_ports: int = 0,
    pdus: int | None = None,
    catalogue: Mapping[str, NetworkItem] | None = None,
) -> FabricDesign:
    """Size and price the three networks of ``scenario``.

    Parameters
    ----------
    scenario : the plan; reads ``fabric``, ``cluster`` and ``facility.servers_per_rack``
    book : price book
    frontend_extra_ports : front-end ports of storage and management nodes [count]
    oob_extra_ports : out-of-band ports beyond compute BMCs, switches and PDUs,
        e.g. BMCs of storage and management nodes, firewalls, CDUs [count]
    pdus : monitored PDUs on the OOB network [count]; default 2 per rack
        (compute racks plus back-end and front-end network racks)

    Returns
    -------
    FabricDesign with counts, priced lines, power [kW] and warnings.
    """
    cat = catalogue or default_network_catalogue()
    cl, fab = scenario.cluster, scenario.fabric
    if oob_extra_ports < 0:
        raise FabricError(f"oob extra ports must be ≥ 0, got {oob_extra_ports}")
    servers = cabled_servers(cl.servers, cl.hot_spare_share)
    backend = _backend_for(scenario, cat)
    fe = fab.frontend
    frontend = size_frontend(
        servers,
        ports_per_node=fe.ports_per_node,
        port_gbps=fe.port_gbps,
        switch_class=fe.switch_class,
        extra_ports=frontend_extra_ports,
        gpus_per_node=cl.gpus_per_node,
        catalogue=cat,
    )
    compute_racks = _ceil_div(servers, scenario.facility.servers_per_rack)
    if pdus is None:
        pdus = 2 * (compute_racks + backend.network_racks + frontend.network_racks)
    managed = (
        backend.leaf_switches
        + backend.spine_switches
        + backend.core_switches
        + OOB_MANAGEMENT_PORTS_PER_CHASSIS * backend.chassis
        + frontend.switches
    )
    oob = size_oob(bmcs=servers + oob_extra_ports, managed_switches=managed, pdus=pdus,
                   switch_class=fab.oob.switch_class, catalogue=cat)
    lines = (
        backend_lines(backend, book, cat)
        + frontend_lines(frontend, book, cat)
        + oob_lines(oob, book, cat)
        + subnet_manager_lines(backend.endpoints, fab.subnet_manager, book, scenario.opex.ufm_subscription)
    )
    power = {"backend": backend.power_kw, "frontend": frontend.power_kw, "oob": oob.power_kw}
    return FabricDesign(backend, frontend, oob, lines, power, fabric_warnings(scenario, backend), fab.subnet_manager)


# --- trade-offs and pictures --------------------------------------------------------------------

DESIGN_CHOICES: tuple[tuple[str, str, str, float], ...] = (
    ("reference", "Reference (NVIDIA RA, optics everywhere)", "reference", 1.0),
    ("tor", "Top-of-rack, non-blocking", "tor", 1.0),
    ("vms", "Virtual modular switch, non-blocking", "vms", 1.0),
    ("vms_2to1", "Virtual modular switch, 2:1", "vms", 2.0),
    ("modular", "Modular chassis (CS9500 class)", "modular", 1.0),
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


def design_options(
    scenario: Scenario, book: PriceBook, *, catalogue: Mapping[str, NetworkItem] | None = None
) -> list[DesignOption]:
    """Every back-end design (reference, tor, vms 1:1, vms 2:1, modular) at the scenario's GPU count.

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
            built = _backend_for(scenario, cat, topology=topology, oversubscription=os_ratio)
            raw.append((name, label, topology, os_ratio, built, ""))
        except FabricError as exc:
            raw.append((name, label, topology, os_ratio, None, str(exc)))
    costs = {name: total_usd(backend_lines(b, book, cat)) for name, _, _, _, b, _ in raw if b is not None}
    ref = costs.get("reference")
    out = []
    for name, label, topology, os_ratio, option, err in raw:
        caveats = CAVEATS[name] + ((FOUR_NIC_CAVEAT,) if scenario.fabric.nics_per_node == 4 else ())
        if option is None:
            out.append(DesignOption(name, label, topology, os_ratio, False, err, math.nan, math.nan, math.nan, None,
                                    0, 0, 0, 0, 0, 0, 0, math.nan, math.nan, math.nan, topology == "modular", caveats))
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
_TOPOLOGY_SHORT = {"reference": "Reference", "tor": "Top-of-rack", "vms": "VMS", "modular": "Modular"}


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
    yours = priced_option(YOUR_DESIGN, label, fab.topology, fab.oversubscription, backend,
                          total_usd(backend_lines(backend, book)), scenario.cluster.gpus, ref, template.caveats)
    return [*options, yours], YOUR_DESIGN


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
    """
    t = design.tree
    totals = {
        "server": design.servers,
        "leaf": design.leaf_switches,
        "spine": design.spine_switches,
        "chassis": design.chassis,
        "core": design.core_switches,
    }
    shown = {k: min(v, max_per_tier) for k, v in totals.items()}
    shown["server"] = min(design.servers, servers_shown)
    levels = {"server": 0, "leaf": 1, "spine": 2, "chassis": 2, "core": 3}
    nodes: list[dict[str, Any]] = []
    for tier, n in shown.items():
        for i, x in enumerate(_spread(n) if n else []):
            nodes.append({"id": f"{tier}{i}", "tier": tier, "x": x, "y": levels[tier], "label": f"{tier} {i + 1}"})
    edges: list[dict[str, Any]] = []
    rails = design.nics_per_node
    su = max(1, design.leaf_downlinks) if design.topology != "tor" else 0
    for s in range(shown["server"]):
        if design.leaf_switches == 0:  # servers straight into the chassis
            edges.append({"source": f"server{s}", "target": "chassis0", "links": rails})
        elif design.topology == "tor":
            per_rack = max(1, design.leaf_downlinks // rails)
            leaf = s // per_rack
            if leaf < shown["leaf"]:
                edges.append({"source": f"server{s}", "target": f"leaf{leaf}", "links": rails})
        else:
            first_leaf = (s // su) * rails
            for r in range(rails):
                if first_leaf + r < shown["leaf"]:
                    edges.append({"source": f"server{s}", "target": f"leaf{first_leaf + r}", "links": 1})
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
    return {"nodes": nodes, "edges": edges, "totals": totals, "shown": shown}
