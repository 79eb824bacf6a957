"""Cluster networks from first principles: back end, front end and out-of-band.

Three networks serve a GPU cluster (SemiAnalysis, "AI Neocloud Playbook and Anatomy", 2024-10-03; BRIEF.md
§2.2-2.3):

* the **back end** carries GPU-to-GPU collectives: an InfiniBand NDR/XDR fat tree of fixed switches (``reference``,
  ``tor``, ``vms``), a modular chassis (``modular``), or Spectrum-X Ethernet with SuperNICs (``spectrum_x``)
  (:mod:`.backend`);
* the **front end** (Ethernet) carries storage, scheduler and internet traffic (:mod:`.frontend`);
* the **out-of-band** network (1 GbE) reaches every BMC, PDU and switch (:mod:`.oob`).

Everything is counts times unit prices: the physical facts of each switch, optic and cable come from
``data/network_catalogue.csv`` (:mod:`.catalogue`); their prices come from the price book by the catalogue's
``price_key``. No price lives in code. Shared tree and link counting is in :mod:`.links`; the whole fabric of a
scenario in :mod:`.design`; the design trade-offs and the drawing in :mod:`.options`.
"""

from __future__ import annotations

from ..costs import total_usd as total_usd  # re-exported: pages and tests price designs with it
from .backend import (
    FAMILY_BY_NIC_GBPS,
    RAIL_OPTIMIZED,
    TOPOLOGIES,
    UFM_REQUIRED_ABOVE_GPUS,
    BackendDesign,
    backend_lines,
    leaf_capacity,
    rails_per_leaf,
    size_backend,
    subnet_manager_lines,
)
from .catalogue import (
    AUTO_SWITCH,
    CATALOGUE_FILE,
    IB_FAMILIES,
    SPECTRUM_X_FAMILIES,
    FabricError,
    NetworkItem,
    backend_switch,
    catalogue_item,
    default_network_catalogue,
    read_network_catalogue,
)
from .design import (
    OOB_MANAGEMENT_PORTS_PER_CHASSIS,
    FabricDesign,
    ScaleOut,
    design_fabric,
    fabric_warnings,
    platform_of,
    scale_out,
)
from .frontend import FRONTEND_GBPS, SERVER_CABLES, FrontendDesign, frontend_lines, frontend_switch_gbps, size_frontend
from .links import (
    CABLE_MANAGER_U,
    NETWORK_RACK_USABLE_U,
    FatTree,
    cabled_servers,
    ceil_div,
    fat_tree,
    leaf_uplinks_needed,
    network_racks,
    port_units,
    single_switch,
    twin_port_units,
)
from .oob import OobDesign, oob_lines, racks_sharing_a_switch, size_oob
from .options import (
    CAVEATS,
    DESIGN_CHOICES,
    FOUR_NIC_CAVEAT,
    YOUR_DESIGN,
    DesignOption,
    design_options,
    priced_option,
    topology_picture,
    with_scenario_design,
)

__all__ = [
    "AUTO_SWITCH",
    "CABLE_MANAGER_U",
    "CATALOGUE_FILE",
    "CAVEATS",
    "DESIGN_CHOICES",
    "FAMILY_BY_NIC_GBPS",
    "FOUR_NIC_CAVEAT",
    "FRONTEND_GBPS",
    "IB_FAMILIES",
    "NETWORK_RACK_USABLE_U",
    "OOB_MANAGEMENT_PORTS_PER_CHASSIS",
    "RAIL_OPTIMIZED",
    "SERVER_CABLES",
    "SPECTRUM_X_FAMILIES",
    "TOPOLOGIES",
    "UFM_REQUIRED_ABOVE_GPUS",
    "YOUR_DESIGN",
    "BackendDesign",
    "DesignOption",
    "FabricDesign",
    "FabricError",
    "FatTree",
    "FrontendDesign",
    "NetworkItem",
    "OobDesign",
    "ScaleOut",
    "backend_lines",
    "backend_switch",
    "cabled_servers",
    "catalogue_item",
    "ceil_div",
    "default_network_catalogue",
    "design_fabric",
    "design_options",
    "fabric_warnings",
    "fat_tree",
    "frontend_lines",
    "frontend_switch_gbps",
    "leaf_capacity",
    "leaf_uplinks_needed",
    "network_racks",
    "oob_lines",
    "platform_of",
    "port_units",
    "priced_option",
    "racks_sharing_a_switch",
    "rails_per_leaf",
    "read_network_catalogue",
    "scale_out",
    "single_switch",
    "size_backend",
    "size_frontend",
    "size_oob",
    "subnet_manager_lines",
    "topology_picture",
    "twin_port_units",
    "with_scenario_design",
]
