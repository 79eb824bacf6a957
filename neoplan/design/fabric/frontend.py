"""The front end: Ethernet leaf-spine for storage, scheduler, images and internet traffic.

Two placements of the leaves:

* ``optics`` (default): leaves in network racks; every link is two transceivers and a fibre;
* ``dac``: a top-of-rack leaf in each compute rack (and in the racks of storage and management nodes), servers on
  passive DAC (< 3 m, no optics), uplinks to the spines on optics.

Ports run at the speed of the NIC they serve: the switch class is the fastest port speed asked for (the compute
servers' ``port_gbps`` or the storage servers' NICs), so a 2×200GbE storage server is not capped by a 100G port
(a 200G-class QSFP56 port takes a 100G QSFP28 optic). The front end can be oversubscribed (leaf downlinks per
uplink, N:1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...inputs.pricebook import PriceBook
from ..costs import CostLine, priced
from .catalogue import FabricError, NetworkItem, catalogue_item, default_network_catalogue
from .links import FatTree, ceil_div, fat_tree, leaf_uplinks_needed, network_racks, single_switch

FRONTEND_GBPS = (100, 200, 400)
SERVER_CABLES = ("optics", "dac")


@dataclass(frozen=True)
class FrontendDesign:
    """Counts of the front-end Ethernet network.

    ``transceivers`` and ``cables`` are all front-end optics and cables (fibres plus DACs) [count];
    ``switch_gbps`` the port speed of the switches [Gbit/s]; ``storage_port_gbps`` the speed the storage
    servers' ports run at (0 without storage on the front end) [Gbit/s].
    """

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
    oversubscription: float = 1.0
    server_cable: str = "optics"
    switch_gbps: int = 0
    storage_ports: int = 0
    storage_port_gbps: int = 0
    dac_cables: int = 0
    transceivers_by_speed: Mapping[int, int] | None = None

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


def frontend_switch_gbps(port_gbps: int, storage_port_gbps: float = 0) -> int:
    """Port speed of the front-end switches [Gbit/s]: the fastest NIC they serve, at most 400."""
    need = max(port_gbps, int(storage_port_gbps))
    return next((g for g in FRONTEND_GBPS if g >= need), FRONTEND_GBPS[-1])


def _leaf_downlinks(radix: int, oversubscription: float) -> int:
    down = max(1, int(radix * oversubscription / (oversubscription + 1)))
    while down > 1 and down + leaf_uplinks_needed(down, oversubscription) > radix:
        down -= 1
    return down


def _tree(endpoints: int, per_leaf: int, leaves: int, oversubscription: float, radix: int, key: str) -> FatTree:
    if leaves == 1:
        return single_switch(endpoints)
    try:
        return fat_tree(leaves, per_leaf, oversubscription, radix)
    except FabricError as exc:
        raise FabricError(
            f"fabric.frontend: {endpoints:,} front-end ports are too many for {key} switches ({exc}); "
            "lower fabric.frontend.ports_per_node, raise fabric.frontend.oversubscription or choose another switch "
            "class"
        ) from None


def _optics_by_speed(edge_ports: Mapping[int, int], switch_gbps: int, up_links: int) -> dict[int, int]:
    """Transceivers by speed [count]: two per optical server/storage link at its NIC speed, two per uplink."""
    out: dict[int, int] = {}
    for gbps, n in edge_ports.items():
        if gbps and n:
            out[gbps] = out.get(gbps, 0) + 2 * n
    if up_links:
        out[switch_gbps] = out.get(switch_gbps, 0) + 2 * up_links
    return out


def _media_items(
    cat: Mapping[str, NetworkItem], switch_class: str, by_speed: Mapping[int, int], dac_speeds: set[int]
) -> tuple[dict[str, str], float]:
    """Catalogue keys of the optics (``optic_<gbps>``) and DACs (``dac_<gbps>``) used, and the optics power [W]."""
    items: dict[str, str] = {}
    watts = 0.0
    for gbps, n in by_speed.items():
        optic = catalogue_item(cat, role="optic", family=f"eth{gbps}", vendor_class=switch_class)
        items[f"optic_{gbps}"] = optic.key
        watts += n * optic.power_w
    for gbps in dac_speeds:
        items[f"dac_{gbps}"] = catalogue_item(cat, role="dac", family=f"eth{gbps}", vendor_class=switch_class).key
    return items, watts


def _leaves(
    endpoints: int, server_ports: int, server_cable: str, servers_per_rack: int, ports_per_node: int, room: int
) -> tuple[int, int]:
    """(leaves, reserved downlinks per leaf): packed into network racks, or one per compute rack for DAC."""
    if server_cable == "dac":
        per_leaf = min(room, servers_per_rack * ports_per_node)
        compute = ceil_div(server_ports, per_leaf) if server_ports else 0
        return compute + ceil_div(endpoints - server_ports, per_leaf), per_leaf
    return ceil_div(endpoints, room), room


def size_frontend(
    servers: int,
    *,
    ports_per_node: int = 2,
    port_gbps: int = 100,
    switch_class: str = "generic",
    extra_ports: int = 0,
    gpus_per_node: int = 8,
    oversubscription: float = 1.0,
    storage_ports: int = 0,
    storage_port_gbps: float = 0,
    server_cable: str = "optics",
    servers_per_rack: int = 4,
    catalogue: Mapping[str, NetworkItem] | None = None,
) -> FrontendDesign:
    """Size the front-end Ethernet leaf-spine for ``servers`` plus storage and ``extra_ports``.

    Parameters
    ----------
    servers : servers (or compute trays) wired to the front end, hot spares included [count]
    ports_per_node : front-end ports per server [count]
    port_gbps : speed of each server port [Gbit/s]
    switch_class : ``generic`` or ``spectrum``
    extra_ports : ports of management nodes and other non-storage devices [count]
    gpus_per_node : GPUs per server (tray) [count]
    oversubscription : leaf downlinks per uplink, N:1 [ratio]
    storage_ports : storage-server ports [count], at ``storage_port_gbps`` [Gbit/s]
    server_cable : ``optics`` (leaves in network racks) or ``dac`` (top-of-rack leaves, copper to servers)
    servers_per_rack : servers per compute rack, for top-of-rack leaves [count]
    """
    cat = catalogue or default_network_catalogue()
    if extra_ports < 0 or storage_ports < 0:
        raise FabricError(f"frontend extra ports must be ≥ 0, got {min(extra_ports, storage_ports)}")
    if server_cable not in SERVER_CABLES:
        raise FabricError(f"fabric.frontend.server_cable must be optics or dac, got {server_cable!r}")
    if port_gbps not in FRONTEND_GBPS:
        raise FabricError(f"fabric.frontend.port_gbps must be one of {FRONTEND_GBPS}, got {port_gbps}")
    leaf_uplinks_needed(1, oversubscription)  # validates oversubscription
    speed = frontend_switch_gbps(port_gbps, storage_port_gbps if storage_ports else 0)
    switch = catalogue_item(cat, role="switch", family=f"eth{speed}", vendor_class=switch_class)
    fibre = catalogue_item(cat, role="fibre", family="eth")
    server_ports = servers * ports_per_node
    endpoints = server_ports + storage_ports + extra_ports
    room = switch.radix if endpoints <= switch.radix else _leaf_downlinks(switch.radix, oversubscription)
    leaves, per_leaf = _leaves(endpoints, server_ports, server_cable, servers_per_rack, ports_per_node, room)
    tree = _tree(endpoints, per_leaf, max(1, leaves), oversubscription, switch.radix, switch.key)
    storage_gbps = frontend_switch_gbps(int(storage_port_gbps)) if storage_ports else 0
    dacs = endpoints if server_cable == "dac" else 0
    up_links = tree.links_leaf_spine + tree.links_spine_core
    edge = {port_gbps: server_ports + extra_ports}
    edge[storage_gbps] = edge.get(storage_gbps, 0) + storage_ports  # the same speed adds up
    by_speed = _optics_by_speed(edge if not dacs else {}, speed, up_links)
    items, optics_w = _media_items(cat, switch_class, by_speed, {port_gbps, storage_gbps} - {0} if dacs else set())
    items |= {"switch": switch.key, "fibre": fibre.key}
    switches = tree.leaves + tree.spines + tree.cores
    placed = tree.spines + tree.cores + (0 if server_cable == "dac" else tree.leaves)
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
        transceivers=sum(by_speed.values()),
        cables=(0 if dacs else endpoints) + up_links + dacs,
        network_racks=network_racks(placed, switch.rack_units),
        switch_power_kw=switches * switch.power_w / 1000,
        optics_power_kw=optics_w / 1000,
        items=items,
        tree=tree,
        oversubscription=float(oversubscription),
        server_cable=server_cable,
        switch_gbps=speed,
        storage_ports=storage_ports,
        storage_port_gbps=storage_gbps,
        dac_cables=dacs,
        transceivers_by_speed=by_speed,
    )


def frontend_lines(
    design: FrontendDesign, book: PriceBook, catalogue: Mapping[str, NetworkItem] | None = None
) -> list[CostLine]:
    """Priced lines of the front end, category ``frontend_network`` [USD]."""
    cat = catalogue or default_network_catalogue()
    sw, fib = cat[design.items["switch"]], cat[design.items["fibre"]]
    rows = [
        (sw, design.leaf_switches, "Front-end leaf switches"),
        (sw, design.spine_switches, "Front-end spine switches"),
        (sw, design.core_switches, "Front-end core switches"),
    ]
    for gbps, n in sorted((design.transceivers_by_speed or {}).items()):
        rows.append((cat[design.items[f"optic_{gbps}"]], n, f"Front-end transceivers ({gbps}G)"))
    rows.append((fib, design.cables - design.dac_cables, "Front-end fibres"))
    if design.dac_cables:
        server_dacs = design.endpoints - design.storage_ports
        rows.append((cat[design.items[f"dac_{design.port_gbps}"]], server_dacs, "Front-end DAC server→ToR"))
        if design.storage_ports:
            rows.append(
                (
                    cat[design.items[f"dac_{design.storage_port_gbps}"]],
                    design.storage_ports,
                    "Front-end DAC storage→ToR",
                )
            )
    return [priced(book, it.price_key, q, "frontend_network", f"{label} — {it.name}") for it, q, label in rows if q > 0]
