"""Compute-node bill of materials: one HGX server, line by line.

Each line is a count from the node options times a unit price from the price
book. The back-end NIC count and speed come from ``fabric`` (one NIC per rail),
the front-end NIC model from the front-end port speed.
"""

from __future__ import annotations

import math

from .costs import CostLine, priced, total_usd
from .pricebook import Platform, PriceBook
from .scenario import Fabric, Node

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


def node_lines(node: Node, fabric: Fabric, platform: Platform, book: PriceBook) -> list[CostLine]:
    """BoM lines of one compute server [USD per server]."""
    backend_key = f"nic_backend_{fabric.nic_gbps}g"
    frontend_key = f"nic_frontend_2x{fabric.frontend.port_gbps}g"
    candidates = [
        (platform.baseboard_price_key, 1, f"{platform.name} baseboard"),
        (f"cpu_{node.cpu_tier}", node.cpu_sockets, None),
        ("ram_ddr5_64gb", dimms(node.ram_tb), f"DDR5 64 GB RDIMM ({node.ram_tb:g} TB)"),
        ("nvme_7_68tb", nvme_drives(node.nvme_tb), f"Local NVMe 7.68 TB ({node.nvme_tb:g} TB asked)"),
        ("nvme_boot_960gb", BOOT_DRIVES, None),
        (backend_key, fabric.nics_per_node, None),
        ("dpu_bluefield3", node.dpus, None),
        (frontend_key, node.frontend_nics, None),
        ("node_chassis", 1, None),
        ("node_integration", 1, None),
        ("node_warranty_year", node.warranty_years, f"OEM warranty, {node.warranty_years} years"),
    ]
    return [priced(book, key, qty, CATEGORY, item) for key, qty, item in candidates if qty > 0]


def node_price_usd(node: Node, fabric: Fabric, platform: Platform, book: PriceBook) -> float:
    """Price of one compute server [USD]."""
    return total_usd(node_lines(node, fabric, platform, book))


def compute_servers(servers: int, hot_spare_share: float) -> tuple[int, int]:
    """(servers in service, hot-spare servers) bought; spares rounded up to whole servers."""
    spares = math.ceil(servers * hot_spare_share - 1e-9)
    return servers, spares
