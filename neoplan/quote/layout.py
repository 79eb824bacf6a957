"""Configured systems: what the lines under a server line count, decided by arithmetic.

A configurator prints a server as a priced base line and its modules under it. Two layouts read wrongly as they
stand:

* **the vendor's own base row** — a module that names the server again (Dell's ``Base`` module: "PowerEdge XE9680
  Server, NVIDIA HGX H100 8-GPU", one per system) is the base of the priced line above it, not a second server: it
  keeps the GPU it names and counts as that server's chassis (:func:`base_modules`);
* **child quantities that are totals** — modules at 0.00 under a server line with a quantity of 16 may give their
  quantity per server (2 CPUs, 32 DIMMs) or for all 16 servers (32 CPUs, 512 DIMMs). Both readings are tried against
  what one server holds (``data/quote_bands.csv``: CPUs, RAM, NICs, drives, one GPU board): the group is read as
  totals when only that reading fits and every quantity divides by the servers; a sentence says which was taken
  (:func:`child_bases`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..design.node import DIMM_GB
from .bands import count_band
from .classify import Identity
from .raw import RawLine
from .system import SystemConfig
from .units import normalise, ram_gb

_FIGURE = {
    "cpu": "cpus_per_server",
    "ram": "ram_gb_per_server",
    "backend_nic": "nics_per_server",
    "frontend_nic": "nics_per_server",
    "nic": "nics_per_server",
    "local_nvme": "drives_per_server",
    "boot_drive": "drives_per_server",
}


def _where(raw: RawLine) -> str:
    return f"{raw.sheet}!{raw.row}" if raw.sheet else f"row {raw.row}"


def rows_text(raws: Sequence[Any]) -> str:
    """``row 12`` / ``rows 12, 14, 15`` / ``Compute!12, Compute!14`` of lines as the file shows them (at most 4)."""
    seen = list(dict.fromkeys((raw.sheet, raw.row) for raw in raws))
    if not seen:
        return "the lines"
    if all(not sheet for sheet, _ in seen):
        text = ("row " if len(seen) == 1 else "rows ") + ", ".join(str(row) for _, row in seen[:4])
    else:
        text = ", ".join(f"{sheet}!{row}" if sheet else f"row {row}" for sheet, row in seen[:4])
    return text + (f" and {len(seen) - 4} more" if len(seen) > 4 else "")


def base_modules(
    raws: Sequence[RawLine], idents: list[tuple[Identity, SystemConfig | None]], parent_of: Sequence[int | None]
) -> list[str]:
    """Read a server's own base row under its priced server line as that server's chassis (it keeps the GPU model
    it names); ``idents`` is updated in place. Notes say which rows were read so."""
    rows = []
    for k, (ident, config) in enumerate(idents):
        parent = parent_of[k]
        if parent is None or ident.component != "system" or idents[parent][0].component != "system":
            continue
        if raws[k].quantity != 1:
            continue  # several servers under one line: the line above is a rack or a lot, not this server
        model = (config.gpu_model if config is not None else None) or ident.gpu_model
        vendor = (config.cpu_vendor if config is not None else None) or ident.cpu_vendor
        base = Identity("chassis", "compute", None, (), None, "", 1.0, ident.confidence, "layout", model, vendor)
        idents[k] = (base, None)
        rows.append(_where(raws[k]))
    if not rows:
        return []
    return [
        f"{', '.join(rows[:4])}: the server's own base row under its priced server line, read as that server's "
        "base (not another server)"
    ]


def _per_server(raw: RawLine, ident: Identity, count: float) -> tuple[str, float] | None:
    """(figure, per-server amount) a child line gives when ``count`` of it sit in one server; None for no figure."""
    if ident.component == "gpu_baseboard":
        return "gpu_boards", count
    figure = _FIGURE.get(ident.component or "")
    if figure is None:
        return None
    if figure == "ram_gb_per_server":
        return figure, count * (ram_gb(normalise(raw.description)) or float(DIMM_GB))
    return figure, count


def _fits(raws: Sequence[RawLine], idents: Sequence[tuple[Identity, Any]], group: Sequence[int], per: float) -> bool:
    """True when every node part of the group, ``per`` servers' worth of its quantity each, fits one server."""
    sums: dict[str, float] = defaultdict(float)
    for k in group:
        got = _per_server(raws[k], idents[k][0], raws[k].quantity / per)
        if got is not None:
            sums[got[0]] += got[1]
    for figure, value in sums.items():
        if figure == "gpu_boards":
            if abs(value - 1) > 1e-9:
                return False
            continue
        band = count_band(figure)
        if band is not None and not band.holds(value):
            return False
    return bool(sums)


def child_bases(
    raws: list[RawLine],
    idents: Sequence[tuple[Identity, SystemConfig | None]],
    parent_of: Sequence[int | None],
    included: set[int],
) -> list[str]:
    """Read the sub-items of a server line as totals for its servers when only that reading fits one server and
    every quantity divides by them; ``raws`` and ``included`` are updated in place. Notes say which was taken."""
    groups: dict[int, list[int]] = defaultdict(list)
    for k, parent in enumerate(parent_of):
        basis = getattr(raws[k], "quantity_basis", "total")
        if parent is not None and (basis == "per_parent" or k in included) and idents[parent][0].component == "system":
            groups[parent].append(k)
    notes = []
    for parent, group in groups.items():
        config = idents[parent][1]
        servers = raws[parent].quantity * (config.servers_per_unit if config is not None else 1)
        if servers <= 1 or not float(servers).is_integer():
            continue
        divisible = all(float(raws[k].quantity / servers).is_integer() for k in group if raws[k].quantity > 0)
        if not divisible or _fits(raws, idents, group, 1.0) or not _fits(raws, idents, group, servers):
            continue
        for k in group:
            raws[k] = replace(raws[k], quantity_basis="total")
            included.discard(k)
        rows = sorted(group, key=lambda k: raws[k].row)
        first, last = raws[rows[0]], raws[rows[-1]]
        span = (
            _where(first)
            if len(rows) == 1
            else f"{first.sheet + '!' if first.sheet else 'rows '}{first.row}–{last.row}"
        )
        notes.append(
            f"{span} under {_where(raws[parent])} ({servers:,.0f} servers): their quantities are totals for the "
            f"{servers:,.0f} servers (per server they would not fit one), read as totals; tick 'Per server' on them "
            "if not"
        )
    return notes


def spares(raws: list[RawLine], idents: Sequence[tuple[Identity, SystemConfig | None]]) -> list[str]:
    """Mark the parts of a spares pool (its section says so, or a part's own words: "Spare: 8x 64GB RDIMM"; a server
    line's words never, "(5+1 spare PSU)"); ``raws`` is updated in place. A note lists them."""
    from .sections import is_spares

    for k, raw in enumerate(raws):
        if raw.pool != "spares" and idents[k][0].component not in ("system", None) and is_spares(raw.description):
            raws[k] = replace(raw, pool="spares")
    pool = [raw for raw in raws if raw.pool == "spares"]
    if not pool:
        return []
    return [
        f"{rows_text(pool)}: a spares pool (kept on the shelf, not in the servers): counted in the quote total, kept "
        "out of the cluster's size, the per-server figures and the comparison with the design"
    ]
