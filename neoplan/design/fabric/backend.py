"""The back end: GPU-to-GPU fabric as a fat tree of fixed switches, a modular chassis, or Spectrum-X.

Sizing rules
------------
* **Rail-optimized** designs (``reference``, ``vms``, ``modular``, ``spectrum_x``): one leaf per rail group (NIC
  index) per scalable unit (SU); a leaf's downlinks are the servers of its SU. InfiniBand leaves take one rail each;
  a Spectrum-X SN5600 leaf splits its 800G cages 2×400G and takes as many whole rails as fit (2 rails of a 32-server
  SU at 1:1: 64 downlinks + 32×800G uplinks, NVIDIA's Spectrum-X reference architecture).
* **Spectrum-X multi-plane** (800G SuperNICs): each 800G SuperNIC port splits 2×400G into two independent planes,
  each plane a 400G fabric of the same SN5600 run as 128×400G; counts are one plane's times the planes. Same
  switches as one 64×800G plane up to 2,048 GPUs, but two tiers up to 8,192 GPUs instead of three (NVIDIA DGX
  SuperPOD B300 Spectrum-4 Ethernet RA, "Larger DGX SuperPOD component counts": 16 leaves + 8 spines per 512 GPUs).
  **Partial last SU**: the last SU holds the remaining servers but gets a full set of leaves whose uplinks are
  sized for a full SU, so every leaf is identical above (the tree stays balanced) and the SU can be filled later.
  A cluster smaller than one SU is one SU of that size; one whose NIC endpoints all fit on one switch is one switch.
* ``tor``: one leaf per compute rack (``servers_per_rack × nics_per_node`` downlinks); not rail-optimized.
* The tree above the leaves is :func:`~neoplan.design.fabric.links.fat_tree` (2 tiers, then a third, tapered beyond
  k³/4).
* ``modular``: one CS9500-class chassis (up to 2,048 ports) takes every NIC directly; above that, rail-optimized
  leaves feed chassis acting as spines.

Media by design: ``reference`` and ``spectrum_x`` optics everywhere; ``tor`` DAC splitters server→leaf and optics
above; ``vms`` optics server→leaf and copper (DAC or ACC) leaf→spine; ``modular`` optics server→chassis. A
switch-side optic serves ``links_per_unit`` ports (twin-port modules 2); server-side optics are single-port; one
fibre per optical link; a twin-port copper cable carries two links.

Rack-scale systems (NVL72) are sized per compute tray: the caller passes trays as ``servers``, the tray's
scale-out NICs as ``nics_per_node`` (rails = GPU index within the tray) and the tray's GPUs as ``gpus_per_node``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ...inputs.pricebook import PriceBook
from ..costs import CostLine, priced
from .catalogue import (
    AUTO_SWITCH,
    SPECTRUM_X_FAMILIES,
    FabricError,
    NetworkItem,
    backend_switch,
    catalogue_item,
    default_network_catalogue,
)
from .links import FatTree, ceil_div, fat_tree, leaf_uplinks_needed, network_racks, port_units, single_switch

TOPOLOGIES = ("reference", "tor", "vms", "modular", "spectrum_x")
RAIL_OPTIMIZED = ("reference", "vms", "modular", "spectrum_x")
UFM_REQUIRED_ABOVE_GPUS = 2048
"""Above this many GPUs UFM is a hard requirement (SemiAnalysis 2024-10-03); the quote package imports it."""
FAMILY_BY_NIC_GBPS = {400: "ndr", 800: "xdr"}


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
    rails_per_leaf: int = 1
    planes: int = 1
    """Independent fabric planes, each NIC port split across them; ``tree`` and per-leaf counts are one plane's."""

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


@dataclass(frozen=True)
class _Layout:
    """The logical structure: leaves, their used downlinks, the tree above, chassis and line cards."""

    leaves: int
    used_down: list[int]
    sus: int
    rails_per_leaf: int
    tree: FatTree | None
    chassis: int = 0
    line_cards: int = 0
    chassis_ports: tuple[int, ...] = ()

    @property
    def spines(self) -> int:
        return 0 if self.tree is None or self.chassis else self.tree.spines

    @property
    def cores(self) -> int:
        return 0 if self.tree is None or self.chassis else self.tree.cores


# --- checks and catalogue rows -------------------------------------------------------------------


def _validate(topology: str, servers: int, nics_per_node: int, leaf_spine_cable: str, oversubscription: float) -> None:
    if topology not in TOPOLOGIES:
        raise FabricError(f"fabric.topology must be one of {', '.join(TOPOLOGIES)}, got {topology!r}")
    if servers < 1:
        raise FabricError(f"cluster.gpus must give at least one server, got {servers} servers")
    if nics_per_node < 1:
        raise FabricError(f"fabric.nics_per_node must be ≥ 1, got {nics_per_node}")
    if leaf_spine_cable not in ("dac", "acc"):
        raise FabricError(f"fabric.leaf_spine_cable must be dac or acc, got {leaf_spine_cable!r}")
    leaf_uplinks_needed(1, oversubscription)  # validates oversubscription


def _pick_switch(cat: Mapping[str, NetworkItem], topology: str, switch_model: str, nic_gbps: int) -> NetworkItem:
    """The back-end switch, checked against the NIC speed (the generation)."""
    spectrum_x = topology == "spectrum_x"
    switch = backend_switch(cat, switch_model, spectrum_x=spectrum_x, nic_gbps=nic_gbps)
    if switch.port_gbps != nic_gbps:
        hint = backend_switch(cat, AUTO_SWITCH, spectrum_x=spectrum_x, nic_gbps=nic_gbps).key
        raise FabricError(
            f"fabric.nic_gbps is {nic_gbps} but fabric.switch_model {switch.key!r} has {switch.port_gbps:g} Gbit/s "
            f"ports; choose a {nic_gbps}G switch such as {hint!r} (or auto)"
        )
    return switch


def _family(spectrum_x: bool, nic_gbps: int) -> str:
    if spectrum_x:
        return f"spx{nic_gbps}"
    if nic_gbps not in FAMILY_BY_NIC_GBPS:
        raise FabricError(f"fabric.nic_gbps must be one of {sorted(FAMILY_BY_NIC_GBPS)}, got {nic_gbps}")
    return FAMILY_BY_NIC_GBPS[nic_gbps]


def _items(cat: Mapping[str, NetworkItem], topology: str, switch: NetworkItem) -> dict[str, NetworkItem]:
    """Catalogue rows by role for this design: switch, optics and the cables its media use."""
    family = switch.family
    roles = ["server_optic", "switch_optic", "fibre"]
    roles += {"tor": ["dac_splitter"], "vms": ["dac", "acc"]}.get(topology, [])
    item = {"switch": switch} | {role: catalogue_item(cat, role=role, family=family) for role in roles}
    if topology == "modular":
        chassis_rows = [r for r in cat.values() if r.role == "chassis" and r.family == family]
        if not chassis_rows:
            raise FabricError(
                f"fabric.topology 'modular' has no chassis for {switch.port_gbps:g} Gbit/s in the catalogue; "
                "choose fabric.nic_gbps 400"
            )
        item["chassis"] = max(chassis_rows, key=lambda r: r.radix)
        item["line_card"] = catalogue_item(
            cat, role="line_card", family=family, vendor_class=item["chassis"].vendor_class
        )
    return item


# --- logical structure ---------------------------------------------------------------------------


def leaf_capacity(radix: int, oversubscription: float) -> int:
    """Most downlinks a leaf of ``radix`` ports can take at N:1 ``oversubscription`` [count]."""
    down = max(1, int(radix * oversubscription / (oversubscription + 1)))
    while down > 1 and down + leaf_uplinks_needed(down, oversubscription) > radix:
        down -= 1
    return down


def rails_per_leaf(nics: int, su: int, radix: int, oversubscription: float, pack: bool) -> int:
    """Whole rails one leaf takes [count]: 1 unless ``pack``, else the largest divisor of ``nics`` that fits."""
    if not pack:
        return 1
    room = leaf_capacity(radix, oversubscription)
    return max((r for r in range(1, nics + 1) if nics % r == 0 and r * su <= room), default=1)


def _leaf_layout(
    topology: str, servers: int, nics: int, servers_per_su: int, servers_per_rack: int, rails: int
) -> tuple[int, int, list[int], int, int]:
    """Leaves, reserved downlinks per leaf, downlinks in use per leaf, leaves per pod group and SU count."""
    if topology == "tor":
        racks = ceil_div(servers, servers_per_rack)
        last = servers - (racks - 1) * servers_per_rack
        used = [servers_per_rack * nics] * (racks - 1) + [last * nics]
        return racks, servers_per_rack * nics, used, 1, racks
    su = min(servers_per_su, servers)
    sus = ceil_div(servers, su)
    last = servers - (sus - 1) * su
    per_su = nics // rails
    used = [su * rails] * ((sus - 1) * per_su) + [last * rails] * per_su
    return sus * per_su, su * rails, used, per_su, sus


def _check_leaf_fits(
    topology: str, downlinks: int, oversubscription: float, switch: NetworkItem, per_rack: int, nics: int
) -> None:
    """Refuse a leaf whose downlinks and uplinks exceed the switch's ports, naming what to change.

    Top-of-rack: a rack's ``per_rack`` units × ``nics`` back-end NICs each (servers × NICs per server; on NVL72 its
    compute trays × NICs per tray); rail-optimized: one port per server of a scalable unit per rail.
    """
    need = leaf_uplinks_needed(downlinks, oversubscription)
    if downlinks + need <= switch.radix:
        return
    if topology == "tor":
        what = (
            f"fabric.topology 'tor' puts a rack's {per_rack} × {nics} back-end NICs = {downlinks} downlinks on one leaf"
        )
        fix = (
            "choose a rail-optimized topology or a bigger fabric.switch_model (HGX: or fewer facility.servers_per_rack)"
        )
    else:
        what = f"fabric.servers_per_su = {downlinks} servers (one leaf port each per rail)"
        fix = "lower it"
    raise FabricError(
        f"{what}; with {need} uplinks that needs {downlinks + need} ports but fabric.switch_model {switch.key!r} "
        f"has {switch.radix}: {fix}, or raise fabric.oversubscription"
    )


def _single_chassis(item: Mapping[str, NetworkItem], servers: int, nics: int, servers_per_su: int) -> _Layout:
    endpoints = servers * nics
    cards = ceil_div(endpoints, item["line_card"].radix)
    return _Layout(0, [], ceil_div(servers, min(servers_per_su, servers)), 1, None, 1, cards, (endpoints,))


def _layout(
    topology: str,
    item: Mapping[str, NetworkItem],
    servers: int,
    nics: int,
    oversubscription: float,
    servers_per_su: int,
    servers_per_rack: int,
    gpus_per_node: int,
) -> _Layout:
    """Leaves and the tree (or chassis) above them."""
    switch, endpoints = item["switch"], servers * nics
    if topology == "modular" and endpoints <= item["chassis"].radix:
        return _single_chassis(item, servers, nics, servers_per_su)
    if topology != "tor" and endpoints <= switch.radix:  # every NIC fits on one switch: no rails, no spines
        return _Layout(1, [endpoints], 1, nics, single_switch(endpoints))
    su = min(servers_per_su, servers)
    rails = rails_per_leaf(nics, su, switch.radix, oversubscription, pack=topology == "spectrum_x")
    leaves, reserved, used, group, sus = _leaf_layout(topology, servers, nics, servers_per_su, servers_per_rack, rails)
    _check_leaf_fits(topology, reserved, oversubscription, switch, servers_per_rack, nics)
    if topology == "modular":
        return _chassis_spines(item, leaves, reserved, used, group, sus, oversubscription, servers * gpus_per_node)
    try:
        tree = fat_tree(leaves, reserved, oversubscription, switch.radix, leaf_group=group)
    except FabricError as exc:
        raise FabricError(
            f"cluster.gpus: {servers * gpus_per_node:,} GPUs with {nics} NICs each need {leaves:,} "
            f"leaves, too many for fabric.switch_model {switch.key!r} ({exc}); choose a higher-radix switch"
        ) from None
    return _Layout(leaves, used, sus, rails, tree)


def _chassis_spines(
    item: Mapping[str, NetworkItem],
    leaves: int,
    reserved: int,
    used: list[int],
    group: int,
    sus: int,
    oversubscription: float,
    gpus: int,
) -> _Layout:
    """Rail-optimized leaves under modular chassis acting as spines."""
    chassis, card = item["chassis"], item["line_card"]
    if leaves > chassis.radix:
        raise FabricError(
            f"fabric.topology 'modular' reaches at most {chassis.radix:,} leaves "
            f"({chassis.radix * reserved:,} NIC endpoints); choose vms or reference for cluster.gpus = {gpus:,}"
        )
    tree = fat_tree(
        leaves,
        reserved,
        oversubscription,
        item["switch"].radix,
        spine_radix=chassis.radix,
        leaf_group=group,
        allow_core=False,
    )
    ports = tuple(tree.spine_downlinks())
    return _Layout(leaves, used, sus, 1, tree, tree.spines, sum(ceil_div(p, card.radix) for p in ports), ports)


# --- media ---------------------------------------------------------------------------------------


def _media(
    topology: str, layout: _Layout, endpoints: int, item: Mapping[str, NetworkItem], leaf_spine_cable: str
) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Server links by medium, transceivers by type and cables by medium [count]."""
    tree, per_unit = layout.tree, item["switch_optic"].links_per_unit or 2
    server_medium = "dac_splitter" if topology == "tor" else "fibre"
    optics = {"server_optic": 0, "switch_optic": 0}
    cables = {"fibre": 0, "dac": 0, "dac_splitter": 0, "acc": 0}
    if server_medium == "fibre":
        optics["server_optic"] = endpoints
        below = list(layout.used_down) if layout.leaves else list(layout.chassis_ports)
        optics["switch_optic"] += port_units(below, links_per_unit=per_unit)
        cables["fibre"] += endpoints
    else:
        cables["dac_splitter"] += port_units(list(layout.used_down))
    if tree is not None and tree.tiers >= 2:
        up = tree.leaf_uplinks
        if topology == "vms":
            cables["acc" if leaf_spine_cable == "acc" else "dac"] += port_units(up, layout.leaves)
        else:
            above = list(layout.chassis_ports) if layout.chassis else tree.spine_downlinks()
            optics["switch_optic"] += port_units(up, layout.leaves, per_unit)
            optics["switch_optic"] += port_units(above, links_per_unit=per_unit)
            cables["fibre"] += tree.links_leaf_spine
    if tree is not None and tree.tiers == 3:
        optics["switch_optic"] += port_units(tree.spine_uplinks, tree.spines, per_unit)
        optics["switch_optic"] += port_units(tree.core_ports_used, tree.cores, per_unit)
        cables["fibre"] += tree.links_spine_core
    return {server_medium: endpoints}, optics, cables


def _power_w(
    layout: _Layout, item: Mapping[str, NetworkItem], optics: Mapping[str, int], cables: Mapping[str, int]
) -> tuple[float, float]:
    """Switch and optics power [W]."""
    switch_w = (layout.leaves + layout.spines + layout.cores) * item["switch"].power_w
    if "chassis" in item:
        switch_w += layout.chassis * item["chassis"].power_w + layout.line_cards * item["line_card"].power_w
    optics_w = sum(q * item[role].power_w for role, q in optics.items() if q)
    optics_w += sum(q * item[role].power_w for role, q in cables.items() if q and role != "fibre")
    return switch_w, optics_w


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
    switch_model: str = AUTO_SWITCH,
    catalogue: Mapping[str, NetworkItem] | None = None,
) -> BackendDesign:
    """Size the back-end fabric for ``servers`` cabled servers (or compute trays of a rack-scale system).

    Parameters
    ----------
    servers : servers (trays) wired to the back end, hot spares included [count]
    topology : reference, tor, vms, modular or spectrum_x
    nics_per_node : back-end NICs per server (tray) = rails [count]
    nic_gbps : NIC port speed [Gbit/s], the generation: 400 (NDR / 400GbE) or 800 (XDR / 800GbE)
    oversubscription : leaf downlinks per uplink, N:1 [ratio]
    servers_per_su : servers per scalable unit (rail-optimized designs) [count]
    servers_per_rack : servers per compute rack (``tor`` leaf size) [count]
    leaf_spine_cable : ``dac`` or ``acc``, copper for leaf→spine in ``vms``
    gpus_per_node : GPUs per server (tray) [count], for bandwidth per GPU
    switch_model : catalogue key of the fixed switch, or ``auto`` (picked by topology and nic_gbps)

    Returns
    -------
    BackendDesign with switch, link, optic and cable counts, racks and power.
    """
    cat = catalogue or default_network_catalogue()
    _validate(topology, servers, nics_per_node, leaf_spine_cable, oversubscription)
    switch = _pick_switch(cat, topology, switch_model, nic_gbps)
    planes, plane_switch = fabric_planes(cat, topology, switch)
    if planes > 1:
        plane = size_backend(
            servers,
            topology=topology,
            nics_per_node=nics_per_node,
            nic_gbps=int(plane_switch.port_gbps),
            oversubscription=oversubscription,
            servers_per_su=servers_per_su,
            servers_per_rack=servers_per_rack,
            leaf_spine_cable=leaf_spine_cable,
            gpus_per_node=gpus_per_node,
            switch_model=plane_switch.key,
            catalogue=cat,
        )
        return _multiplane(plane, planes, nic_gbps, catalogue_item(cat, role="server_optic", family=switch.family), cat)
    item = _items(cat, topology, switch)
    endpoints = servers * nics_per_node
    lay = _layout(
        topology, item, servers, nics_per_node, oversubscription, servers_per_su, servers_per_rack, gpus_per_node
    )
    server_links, optics, cables = _media(topology, lay, endpoints, item, leaf_spine_cable)
    tree = lay.tree
    links_ls = tree.links_leaf_spine if tree else 0
    links_sc = tree.links_spine_core if tree else 0
    card_radix = item["line_card"].radix if "line_card" in item else 0
    rack_leaves = 0 if topology == "tor" else lay.leaves
    switch_w, optics_w = _power_w(lay, item, optics, cables)
    return BackendDesign(
        topology=topology,
        oversubscription=float(oversubscription),
        nics_per_node=nics_per_node,
        nic_gbps=nic_gbps,
        gpus_per_node=gpus_per_node,
        servers=servers,
        endpoints=endpoints,
        tiers=tree.tiers if tree else 1,
        scalable_units=lay.sus,
        leaf_switches=lay.leaves,
        spine_switches=lay.spines,
        core_switches=lay.cores,
        chassis=lay.chassis,
        line_cards=lay.line_cards,
        leaf_downlinks=tree.leaf_downlinks if tree else 0,
        leaf_uplinks=tree.leaf_uplinks if tree else 0,
        leaf_spine_links_per_pair=tree.leaf_spine_links if tree else 0,
        spine_core_links_per_pair=tree.spine_core_links if tree else 0,
        pods=tree.pods if tree else 1,
        spine_taper=tree.spine_taper if tree else 1.0,
        links_server_leaf=endpoints,
        links_leaf_spine=links_ls,
        links_spine_core=links_sc,
        server_links_by_medium=server_links,
        transceivers_by_type=optics,
        cables_by_medium=cables,
        switch_ports_available=(lay.leaves + lay.spines + lay.cores) * switch.radix + lay.line_cards * card_radix,
        switch_ports_used=sum(lay.used_down) + 2 * (links_ls + links_sc) if lay.leaves else endpoints,
        network_racks=network_racks(rack_leaves, switch.rack_units)
        + network_racks(lay.spines + lay.cores, switch.rack_units)
        + lay.chassis,
        switch_power_kw=switch_w / 1000,
        optics_power_kw=optics_w / 1000,
        liquid_cooled=any(it.cooling == "liquid" for it in item.values()),
        items={role: it.key for role, it in item.items()},
        tree=tree,
        rails_per_leaf=lay.rails_per_leaf,
    )


def fabric_planes(cat: Mapping[str, NetworkItem], topology: str, switch: NetworkItem) -> tuple[int, NetworkItem]:
    """Planes of the back end and the switch of one plane [count, row].

    Spectrum-X with a switch whose ports the catalogue also lists split into slower ports (same box, same price
    key: SN5600 64×800G = 128×400G) runs one plane per split port, as NVIDIA's multi-plane Spectrum-X RA does;
    every other design is one plane of ``switch``.
    """
    if topology != "spectrum_x":
        return 1, switch
    split = [
        r
        for r in cat.values()
        if r.role == "switch"
        and r.family in SPECTRUM_X_FAMILIES
        and r.price_key == switch.price_key
        and 0 < r.port_gbps < switch.port_gbps
        and switch.port_gbps % r.port_gbps == 0
        and r.radix * r.port_gbps == switch.radix * switch.port_gbps
    ]
    if not split:
        return 1, switch
    plane = max(split, key=lambda r: (r.radix, r.key))
    return int(switch.port_gbps // plane.port_gbps), plane


def _multiplane(
    plane: BackendDesign, planes: int, nic_gbps: int, server_optic: NetworkItem, cat: Mapping[str, NetworkItem]
) -> BackendDesign:
    """``planes`` copies of one plane's fabric; one server optic per NIC port (it feeds every plane)."""
    switch = cat[plane.items["switch"]]
    optics = {"server_optic": plane.endpoints, "switch_optic": planes * plane.transceivers_by_type["switch_optic"]}
    items = dict(plane.items) | {"server_optic": server_optic.key}
    optics_w = sum(q * cat[items[role]].power_w for role, q in optics.items())
    optics_w += sum(
        planes * q * cat[items[role]].power_w for role, q in plane.cables_by_medium.items() if q and role != "fibre"
    )
    leaves, spines, cores = (planes * n for n in (plane.leaf_switches, plane.spine_switches, plane.core_switches))
    return replace(
        plane,
        nic_gbps=nic_gbps,
        leaf_switches=leaves,
        spine_switches=spines,
        core_switches=cores,
        links_server_leaf=planes * plane.links_server_leaf,
        links_leaf_spine=planes * plane.links_leaf_spine,
        links_spine_core=planes * plane.links_spine_core,
        server_links_by_medium={k: planes * v for k, v in plane.server_links_by_medium.items()},
        transceivers_by_type=optics,
        cables_by_medium={k: planes * v for k, v in plane.cables_by_medium.items()},
        switch_ports_available=planes * plane.switch_ports_available,
        switch_ports_used=planes * plane.switch_ports_used,
        network_racks=network_racks(leaves, switch.rack_units) + network_racks(spines + cores, switch.rack_units),
        switch_power_kw=planes * plane.switch_power_kw,
        optics_power_kw=optics_w / 1000,
        items=items,
        planes=planes,
    )


_LINE_LABELS = (
    ("switch", "leaf_switches", "Leaf switches"),
    ("switch", "spine_switches", "Spine switches"),
    ("switch", "core_switches", "Core switches"),
    ("chassis", "chassis", "Modular chassis"),
    ("line_card", "line_cards", "Chassis line cards"),
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

    switch_optic = "Switch-side twin-port transceivers"
    if design.items.get("switch_optic") and cat[design.items["switch_optic"]].links_per_unit == 1:
        switch_optic = "Switch-side transceivers"
    candidates = [line(role, getattr(design, attr), label) for role, attr, label in _LINE_LABELS] + [
        line("server_optic", design.transceivers_by_type["server_optic"], "Server-side transceivers"),
        line("switch_optic", design.transceivers_by_type["switch_optic"], switch_optic),
        line("fibre", design.cables_by_medium["fibre"], "Fibres"),
        line("dac", design.cables_by_medium["dac"], "Passive DAC"),
        line("dac_splitter", design.cables_by_medium["dac_splitter"], "DAC splitters"),
        line("acc", design.cables_by_medium["acc"], "Active copper cables"),
    ]
    return [c for c in candidates if c is not None]


def subnet_manager_lines(
    endpoints: int, subnet_manager: str, book: PriceBook, subscription: bool = False
) -> list[CostLine]:
    """Up-front UFM licences, one per NIC endpoint, category ``management`` [USD].

    None for OpenSM, and none when UFM is paid as a yearly subscription (an opex line instead).
    """
    if subnet_manager == "ufm" and endpoints > 0 and not subscription:
        return [priced(book, "ufm_licence_per_endpoint", endpoints, "management", "UFM licences (per NIC endpoint)")]
    return []
