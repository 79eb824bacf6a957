"""Shared counting of the networks: balanced fat trees, links, port-units (optics, cables) and network racks.

A *port-unit* is one optic or cable that serves ``links_per_unit`` switch ports (2 for a twin-port OSFP module or
a twin-port DAC, 1 for a single-port module). One fibre per optical link.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .catalogue import FabricError

NETWORK_RACK_USABLE_U = 32  # of 42U: the rest holds patch panels, cable managers and PDUs
CABLE_MANAGER_U = 1  # one 1U cable manager above every fixed switch in a network rack


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


def ceil_div(a: float, b: float) -> int:
    """``ceil(a / b)`` robust to float noise (``32 / 2.0`` stays 16)."""
    return math.ceil(a / b - 1e-9)


def leaf_uplinks_needed(downlinks: int, oversubscription: float) -> int:
    """Uplinks a leaf needs for ``downlinks`` at N:1 ``oversubscription`` [count], before balancing."""
    if not oversubscription >= 1:
        raise FabricError(f"fabric.oversubscription must be ≥ 1, got {oversubscription}")
    return max(1, ceil_div(downlinks, oversubscription))


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
        return single_switch(leaf_downlinks)
    need = leaf_uplinks_needed(leaf_downlinks, oversubscription)
    if leaf_downlinks + need > radix:
        raise FabricError(
            f"a leaf needs {leaf_downlinks} downlinks + {need} uplinks = {leaf_downlinks + need} ports but has {radix}"
        )
    if leaves <= spine_radix:
        best: tuple[int, int, int] | None = None
        for m in range(1, spine_radix // leaves + 1):
            spines = ceil_div(need, m)
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
    return _three_tier(leaves, leaf_downlinks, need, radix, leaf_group)


def _three_tier(leaves: int, leaf_downlinks: int, need: int, radix: int, leaf_group: int) -> FatTree:
    """Pods of whole leaf groups with their own spines, under core groups; tapered above k³/4 endpoints."""
    half = radix // 2
    if leaf_group > half:
        raise FabricError(f"{leaf_group} leaves per pod exceed half the radix ({half})")
    per_pod = half // leaf_group * leaf_group
    spine_up = per_pod
    if ceil_div(leaves, per_pod) > radix:  # taper the spine layer to fit under one core tier
        per_pod = ceil_div(ceil_div(leaves, radix), leaf_group) * leaf_group
        spine_up = radix - per_pod
        if spine_up < 1:
            raise FabricError(f"{leaves} leaves exceed three tiers of {radix}-port switches")
    pods = ceil_div(leaves, per_pod)
    best_core: tuple[int, int, int] | None = None
    for c in range(1, radix // pods + 1):
        group = ceil_div(spine_up, c)
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
    return ceil_div(switches, per_rack)


def port_units(ports_per_switch: list[int] | int, switches: int = 1, links_per_unit: int = 2) -> int:
    """Optics or cables for switches using the given ports [count], ``links_per_unit`` ports per unit."""
    if isinstance(ports_per_switch, int):
        return switches * ceil_div(ports_per_switch, links_per_unit)
    # the switches of a tier use one or two port counts (a partial last SU or pod): count each distinct one once
    return sum(ports_per_switch.count(p) * ceil_div(p, links_per_unit) for p in set(ports_per_switch))


def twin_port_units(ports_per_switch: list[int] | int, switches: int = 1) -> int:
    """Twin-port optics or cables for switches using the given ports [count] (two ports per unit)."""
    return port_units(ports_per_switch, switches, 2)


def single_switch(endpoints: int) -> FatTree:
    """A one-switch "tree": every endpoint on one leaf, no uplinks."""
    return FatTree(1, 1, endpoints, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1.0)


def cabled_servers(servers: int, hot_spare_share: float = 0.0) -> int:
    """Servers wired into every network: in service plus hot spares [count] (spares rounded up)."""
    return servers + ceil_div(servers * hot_spare_share, 1) if hot_spare_share > 0 else servers
