"""What the GPU servers of a quote hold: their parts (own lines and parts read from server lines), per server.

:func:`node_parts` gathers the lines the findings read: classified lines that are parts of the GPU servers (not of a
management or storage server) plus the components read from server lines' descriptions; :func:`per_server_aggregates`
divides them by the servers (RAM, back-end NICs, DPUs, CPUs and their vendor and tier, GPUs).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..inputs.pricebook import PriceBook
from .classify import Rule
from .lines import QuoteLine, system_parts


def priced_as_nodes(line: QuoteLine, node_usd: float, trays_per_node: int = 1) -> QuoteLine:
    """A server line with the book price of its servers: the model's whole node × nodes per unit [USD]; a rack-scale
    node is a rack of ``trays_per_node`` compute trays (an NVL72 line of 18 trays is one rack)."""
    per_unit = (line.system.servers_per_unit if line.system is not None else 1) / trays_per_node
    return replace(line, book_unit_price_usd=node_usd * per_unit, book_quantity=line.cluster_quantity * per_unit)


def whole_server_price(line: QuoteLine, children: Sequence[QuoteLine]) -> bool:
    """True when a server line's price is the whole server's: its description lists the configuration, or its
    configuration is unpriced sub-items under it (Dell style); not an HPE-style base line priced alone."""
    if line.system is not None and line.system.gpu_model is not None:
        return True
    return bool(children) and not any(c.priced and (c.total_usd or 0) > 0 for c in children)


def node_parts(
    lines: Sequence[QuoteLine], children: Mapping[int, list[QuoteLine]], rules: Sequence[Rule], book: PriceBook
) -> list[QuoteLine]:
    """Classified lines (no server lines, no spares pool) plus the components read from server lines'
    descriptions."""
    by_id = {ln.id: ln for ln in lines}
    out = [
        ln
        for ln in lines
        if ln.status == "classified" and ln.component != "system" and ln.pool != "spares" and _in_gpu_server(ln, by_id)
    ]
    for ln in lines:
        if ln.component == "system" and ln.status == "classified" and ln.pool != "spares":
            covered = {c.component for c in children.get(ln.id, ()) if c.component}
            out += system_parts(ln, {c for c in covered if c is not None}, rules, book)
    return out


def _in_gpu_server(line: QuoteLine, by_id: Mapping[int, QuoteLine]) -> bool:
    """False for a configuration item of a server line identified as something else than a GPU server (the CPU
    and DIMMs of a management or storage server are not the GPU servers' parts)."""
    parent = by_id.get(line.parent_id) if line.parent_id is not None else None
    return parent is None or parent.component in ("system", None) or parent.status != "classified"


def per_server_aggregates(parts: Sequence[QuoteLine], servers: int | None, gpus: int | None) -> dict[str, Any]:
    """RAM [GB], back-end NICs, DPUs, CPUs (count, vendor, tier) and GPUs per server; None when unknown."""
    if not servers:
        return {
            "ram_gb": None,
            "backend_nics": None,
            "dpus": None,
            "cpus": None,
            "cpu_vendor": None,
            "cpu_tier": None,
            "gpus": None,
        }
    ram = sum(ln.ram_gb for ln in parts if ln.component == "ram")
    nics = sum(ln.cluster_quantity for ln in parts if ln.component == "backend_nic")
    if nics >= servers:
        nics = servers * math.floor(nics / servers + 1e-9)  # a stray NIC of a management node does not count
    dpus = sum(ln.cluster_quantity for ln in parts if "dpu_bluefield" in ln.rule_findings)
    cpus_lines = [ln for ln in parts if ln.component == "cpu"]
    cpus = sum(ln.cluster_quantity for ln in cpus_lines)
    by_vendor: dict[str, float] = defaultdict(float)
    for ln in cpus_lines:
        vendor = _vendor(ln)
        if vendor is not None:
            by_vendor[vendor] += ln.cluster_quantity
    tiers = {ln.price_key for ln in cpus_lines if ln.price_key}
    return {
        "ram_gb": round(ram / servers, 1) if ram else None,
        "backend_nics": round(nics / servers, 2),
        "dpus": round(dpus / servers, 2),
        "cpus": round(cpus / servers, 2) if cpus else None,
        "cpu_vendor": max(by_vendor, key=lambda v: by_vendor[v]) if by_vendor else None,  # the most CPUs
        "cpu_tier": {"cpu_top": "top", "cpu_mid": "mid", "cpu_entry": "entry"}.get(max(tiers, default=""))
        if tiers
        else None,
        "gpus": round(gpus / servers, 2) if gpus else None,
    }


def _vendor(line: QuoteLine) -> str | None:
    if line.cpu_vendor:
        return line.cpu_vendor
    text = line.text.lower()
    if "epyc" in text or "amd" in text:
        return "amd"
    if "xeon" in text or "intel" in text:
        return "intel"
    return None
