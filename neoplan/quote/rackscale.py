"""Rack-scale systems (GB200 / GB300 NVL72): services and cooling priced per rack, racks counted as racks.

An NVL72 quote prices its services per rack: rack-level integration and validation (L11), installation, the CDU and
the facility-water hook-up, a warranty of N years per rack. The book prices them per compute tray (integration,
warranty per tray-year), per installed node and rack (installation), per kW of liquid heat (CDU) and per liquid-cooled
rack (the secondary loop), as the model's NVL72 design does. :func:`per_rack_services` sets each such line's book
price per rack from those, so a line is checked like for like (never "could not price" for being per rack) and one
padded is found.

A line is per rack when its words say so (``per rack``, ``rack-level``, ``/rack``) or its quantity is the racks'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..inputs.pricebook import Platform, PriceBook, default_platforms
from .lines import QuoteLine, with_price_check

_PER_RACK = re.compile(r"\bper[- ]rack\b|/\s*rack\b|\brack[- ]level\b|\beach\s+rack\b|\bper\s+NVL72\b", re.I)
_CAPACITY = re.compile(r"(\d+(?:[.,]\d+)?)\s*(kW|MW)\b", re.I)
_CDU = re.compile(r"\bCDUs?\b|coolant\s+distribution", re.I)
_SERVICES = ("integration", "warranty", "installation", "installation_rack", "liquid_cooling")


def rack_platform(gpu_model: str | None) -> Platform | None:
    """The rack-scale platform of a GPU model id (GB200 / GB300 NVL72), else None."""
    platform = default_platforms().get(gpu_model or "")
    return platform if platform is not None and platform.rack_scale else None


def _per_rack(line: QuoteLine, racks: float) -> bool:
    return bool(_PER_RACK.search(line.text)) or (racks > 0 and abs(line.cluster_quantity - racks) < 1e-9)


def _book_per_rack(line: QuoteLine, platform: Platform, book: PriceBook) -> tuple[float | None, str]:
    """(book price per rack [USD], how it is made) of a per-rack service or cooling line, None when the book has
    none."""
    trays = platform.compute_trays
    if line.component in ("integration", "warranty") and line.book_unit_price_usd:
        return line.book_unit_price_usd * trays, f"{trays} compute trays × {line.book_unit_price_usd:,.0f}"
    if line.component in ("installation", "installation_rack") and {"install_rack", "install_server"} <= set(book.rows):
        usd = book.price("install_rack") + book.price("install_server")
        return usd, "one rack and one node installed"
    if line.component != "liquid_cooling":
        return None, ""
    if _CDU.search(line.text) and "cdu_per_kw" in book:
        m = _CAPACITY.search(line.text)
        kw = float(m.group(1).replace(",", ".")) * (1000 if m.group(2).lower() == "mw" else 1) if m else None
        kw = kw or platform.node_max_power_kw * platform.liquid_heat_share
        return book.price("cdu_per_kw") * kw, f"{kw:,.0f} kW of CDU"
    if "liquid_loop_per_rack" in book:
        return book.price("liquid_loop_per_rack"), "one rack's liquid loop"
    return None, ""


def per_rack_services(
    lines: Sequence[QuoteLine], gpu_model: str | None, gpus: int | None, book: PriceBook, tolerance: float
) -> list[QuoteLine]:
    """The lines with the services and cooling of an NVL72 quote that are priced per rack checked against the book's
    price per rack (see the module docstring); other quotes' lines unchanged."""
    platform = rack_platform(gpu_model)
    if platform is None or not gpus:
        return list(lines)
    racks = gpus / platform.gpus_per_node
    out = []
    for ln in lines:
        if ln.component in _SERVICES and ln.classified and not ln.derived and _per_rack(ln, racks):
            usd, how = _book_per_rack(ln, platform, book)
            if usd:
                units = platform.compute_trays if ln.component in ("integration", "warranty") else 1
                ln = replace(
                    ln, book_unit_price_usd=usd, book_quantity=ln.book_quantity * units, note=f"per rack: {how}"
                )
                ln = with_price_check(ln, tolerance)
        out.append(ln)
    return out
