"""Compute-node bill of materials: one HGX server or one rack-scale NVL72 system, line by line.

Each line is a count from the node options times a unit price from the price book. The back-end NIC
count comes from ``fabric`` (one NIC per rail on HGX; the same NICs per GPU on each NVL72 compute tray)
and its speed from ``fabric.nic_gbps``; the front-end NIC model from the front-end port speed.

A rack-scale node (GB200/GB300 NVL72) is priced as one rack system (compute trays with Grace CPUs and
their LPDDR5X, NVLink switch trays, spine, power shelves, manifolds) plus what is fitted per compute tray:
back-end NICs, DPUs or front-end NICs, local NVMe and boot drives, integration and warranty. The node's
``cpu_tier``, ``cpu_sockets`` and ``ram_tb`` do not apply to it (the Grace CPUs and memory are in the rack).
"""

from __future__ import annotations

import math

from ..inputs.hardware import Fabric, Node
from ..inputs.pricebook import Platform, PriceBook
from .costs import CostLine, priced, total_usd

DIMM_GB = 64
NVME_DRIVE_TB = 7.68
BOOT_DRIVES = 2
CATEGORY = "compute"


def dimms(ram_tb: float) -> int:
    """64 GB DIMMs needed for ``ram_tb`` [TB] of memory (1 TB = 1,024 GB)."""
    return math.ceil(ram_tb * 1024 / DIMM_GB - 1e-9)


def nvme_drives(nvme_tb: float) -> int:
    """7.68 TB data drives needed for ``nvme_tb`` [TB] (the next whole drive up)."""
    return math.ceil(nvme_tb / NVME_DRIVE_TB - 1e-9)


def backend_nics_per_node(fabric: Fabric, platform: Platform) -> int:
    """Back-end (scale-out) NICs per node [count]: ``fabric.nics_per_node`` on HGX; on a rack-scale system those its
    compute trays carry (4 per GB200 NVL72 tray, 72 per rack): the tray fixes them, and the design refuses another
    ``fabric.nics_per_node`` (:func:`neoplan.inputs.platforms.tray_nics_problem`)."""
    if not platform.rack_scale:
        return fabric.nics_per_node
    return platform.scaleout_nics_per_node


def _hgx_candidates(node: Node, nics: int, platform: Platform, backend: str, frontend: str) -> list:
    return [
        (platform.baseboard_price_key, 1, f"{platform.name} baseboard"),
        (f"cpu_{node.cpu_tier}", node.cpu_sockets, None),
        ("ram_ddr5_64gb", dimms(node.ram_tb), f"DDR5 64 GB RDIMM ({node.ram_tb:g} TB)"),
        ("nvme_7_68tb", nvme_drives(node.nvme_tb), f"Local NVMe 7.68 TB ({node.nvme_tb:g} TB asked)"),
        ("nvme_boot_960gb", BOOT_DRIVES, None),
        (backend, nics, None),
        ("dpu_bluefield3", node.dpus, None),
        (frontend, node.frontend_nics, None),
        (platform.chassis_price_key, 1, None),
        ("node_integration", 1, None),
        ("node_warranty_year", node.warranty_years, f"OEM warranty, {node.warranty_years} years"),
    ]


def _rack_candidates(node: Node, nics: int, platform: Platform, backend: str, frontend: str) -> list:
    trays = platform.compute_trays
    each = f"per compute tray × {trays}"
    return [
        (
            platform.baseboard_price_key,
            1,
            f"{platform.name}: {trays} compute trays × {platform.gpus_per_tray} GPUs, "
            f"{platform.switch_trays} NVLink switch trays",
        ),
        ("nvme_7_68tb", nvme_drives(node.nvme_tb) * trays, f"Local NVMe 7.68 TB ({node.nvme_tb:g} TB {each})"),
        ("nvme_boot_960gb", BOOT_DRIVES * trays, f"M.2 boot drives ({BOOT_DRIVES} {each})"),
        (backend, nics, f"Back-end NIC ({nics // trays} {each})"),
        ("dpu_bluefield3", node.dpus * trays, f"BlueField-3 DPU ({node.dpus} {each})"),
        (frontend, node.frontend_nics * trays, f"Front-end NIC ({node.frontend_nics} {each})"),
        ("node_integration", trays, f"OEM integration and burn-in, {each}"),
        ("node_warranty_year", node.warranty_years * trays, f"OEM warranty, {node.warranty_years} years {each}"),
    ]


def fabric_nics(fabric: Fabric, platform: Platform) -> tuple[str, str, int]:
    """(back-end NIC price key, front-end NIC price key, back-end NICs per node [count]): all that a node's BoM
    takes from ``fabric``. The back-end NIC is the fabric's: a ConnectX for InfiniBand, a BlueField-3 SuperNIC for
    Spectrum-X Ethernet at 400G (at 800G the ConnectX-8 SuperNIC serves both)."""
    supernic = fabric.topology == "spectrum_x" and fabric.nic_gbps == 400
    return (
        "nic_backend_400g_supernic" if supernic else f"nic_backend_{fabric.nic_gbps}g",
        f"nic_frontend_2x{fabric.frontend.port_gbps}g",
        backend_nics_per_node(fabric, platform),
    )


def node_lines(node: Node, fabric: Fabric, platform: Platform, book: PriceBook) -> list[CostLine]:
    """BoM lines of one compute node [USD per node]: an HGX server or a whole NVL72 rack."""
    return nic_node_lines(node, fabric_nics(fabric, platform), platform, book)


def nic_node_lines(node: Node, nics: tuple[str, str, int], platform: Platform, book: PriceBook) -> list[CostLine]:
    """:func:`node_lines` given what the node takes from the fabric (:func:`fabric_nics`)."""
    backend_key, frontend_key, count = nics
    build = _rack_candidates if platform.rack_scale else _hgx_candidates
    candidates = build(node, count, platform, backend_key, frontend_key)
    return [priced(book, key, qty, CATEGORY, item) for key, qty, item in candidates if qty > 0]


def node_price_usd(node: Node, fabric: Fabric, platform: Platform, book: PriceBook) -> float:
    """Price of one compute node [USD]."""
    return total_usd(node_lines(node, fabric, platform, book))


def compute_servers(servers: int, hot_spare_share: float) -> tuple[int, int]:
    """(servers in service, hot-spare servers) bought; spares rounded up to whole servers."""
    spares = math.ceil(servers * hot_spare_share - 1e-9)
    return servers, spares
