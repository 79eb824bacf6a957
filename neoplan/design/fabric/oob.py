"""The out-of-band network: 1 GbE to every BMC, PDU and switch management port.

Access switches (48×1G) are placed by rack: the ports of each compute rack (its BMCs and PDUs) go to a switch in
that rack, or in one of ``racks_per_switch`` adjacent racks sharing a switch (default: as many racks as fit on one
switch, so a 48-port switch serves 8 racks of 4 HGX servers + 2 PDUs, and each NVL72 rack gets its own). The rest
(network and storage racks, management nodes, switch management ports) is pooled by port count. With more than
one access switch, each sends two uplinks to a redundant pair of aggregation switches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...inputs.pricebook import PriceBook
from ..costs import CostLine, priced
from .catalogue import FabricError, NetworkItem, catalogue_item, default_network_catalogue
from .links import ceil_div


@dataclass(frozen=True)
class OobDesign:
    """Counts of the 1 GbE out-of-band management network.

    ``rack_access_switches`` of ``access_switches`` sit in compute racks, serving ``racks_per_switch`` racks each.
    """

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
    rack_access_switches: int = 0
    racks_per_switch: int = 0

    @property
    def ports(self) -> int:
        """1 GbE ports in use [count]."""
        return self.bmc_ports + self.switch_ports + self.pdu_ports

    @property
    def switches(self) -> int:
        """Access plus aggregation switches [count]."""
        return self.access_switches + self.aggregation_switches


def racks_sharing_a_switch(ports_per_rack: int, radix: int, racks_per_switch: int | None) -> int:
    """Compute racks served by one access switch [count]; ``None`` = as many as fit.

    Raises FabricError naming ``fabric.oob.racks_per_switch`` when the asked racks' ports exceed the switch.
    """
    if ports_per_rack <= 0:
        return 1
    fit = max(1, radix // ports_per_rack)
    if racks_per_switch is None:
        return fit
    if racks_per_switch > 1 and racks_per_switch * ports_per_rack > radix:
        raise FabricError(
            f"fabric.oob.racks_per_switch {racks_per_switch} × {ports_per_rack} ports per rack exceed a "
            f"{radix}-port out-of-band switch; choose at most {fit}"
        )
    return max(1, racks_per_switch)


def size_oob(
    *,
    bmcs: int,
    managed_switches: int,
    pdus: int,
    switch_class: str = "generic",
    compute_racks: int = 0,
    ports_per_compute_rack: int = 0,
    racks_per_switch: int | None = None,
    catalogue: Mapping[str, NetworkItem] | None = None,
) -> OobDesign:
    """Size the out-of-band network: one 1 GbE port per BMC, switch and PDU.

    ``compute_racks`` racks of ``ports_per_compute_rack`` ports each (included in ``bmcs`` and ``pdus``) are
    served per rack group; the remaining ports are pooled by count.
    """
    cat = catalogue or default_network_catalogue()
    for name, v in (
        ("bmcs", bmcs),
        ("managed_switches", managed_switches),
        ("pdus", pdus),
        ("compute_racks", compute_racks),
        ("ports_per_compute_rack", ports_per_compute_rack),
    ):
        if v < 0:
            raise FabricError(f"out-of-band {name} must be ≥ 0, got {v}")
    access_item = catalogue_item(cat, role="switch", family="eth1g", vendor_class=switch_class)
    agg_item = catalogue_item(cat, role="oob_aggregation", family="eth1g", vendor_class=switch_class)
    uplink_item = catalogue_item(cat, role="uplink_cable", family="eth1g", vendor_class=switch_class)
    patch_item = catalogue_item(cat, role="patch", family="eth1g")
    ports = bmcs + managed_switches + pdus
    in_racks = min(ports, compute_racks * ports_per_compute_rack)
    share = racks_sharing_a_switch(ports_per_compute_rack, access_item.radix, racks_per_switch)
    per_switch_racks = ceil_div(compute_racks, share) * ceil_div(ports_per_compute_rack * share, access_item.radix)
    rack_access = per_switch_racks if in_racks else 0
    access = rack_access + (ceil_div(ports - in_racks, access_item.radix) if ports > in_racks else 0)
    aggregation = 2 * ceil_div(access, agg_item.radix) if access > 1 else 0
    uplinks = 2 * access if aggregation else 0
    return OobDesign(
        switch_class=switch_class,
        bmc_ports=bmcs,
        switch_ports=managed_switches,
        pdu_ports=pdus,
        access_switches=access,
        aggregation_switches=aggregation,
        uplink_cables=uplinks,
        patch_cords=ports,
        power_kw=(access * access_item.power_w + aggregation * agg_item.power_w) / 1000,
        items={
            "access": access_item.key,
            "aggregation": agg_item.key,
            "uplink": uplink_item.key,
            "patch": patch_item.key,
        },
        rack_access_switches=rack_access,
        racks_per_switch=share if in_racks else 0,
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
