"""The network catalogue: physical facts of switches, optics and cables (``data/network_catalogue.csv``).

Prices are not here: each row names the price-book key of one unit (``price_key``).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from ..pricebook import DATA_DIR

CATALOGUE_FILE = DATA_DIR / "network_catalogue.csv"
IB_FAMILIES = ("ndr", "xdr")
"""InfiniBand back-end families (Quantum-2 NDR 400G, Quantum-X800 XDR 800G)."""
SPECTRUM_X_FAMILIES = ("spx400", "spx800")
"""Spectrum-X Ethernet back-end families (SN5600 ports at 2×400G or 800G)."""


class FabricError(ValueError):
    """An impossible fabric; the message names the scenario field to change."""


# --- catalogue ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NetworkItem:
    """A switch, chassis, line card, optic or cable of ``data/network_catalogue.csv``.

    ``radix`` is ports per switch (0 where not a switch), ``port_gbps`` the port
    speed [Gbit/s], ``links_per_unit`` how many links one optic or cable serves,
    ``power_w`` the typical power without optics [W], ``price_key`` the
    price-book key of one unit.
    """

    key: str
    kind: str
    role: str
    family: str
    vendor_class: str
    name: str
    radix: int
    port_gbps: float
    uplink_ports: int
    uplink_gbps: float
    links_per_unit: int
    rack_units: int
    power_w: float
    cooling: str
    max_line_cards: int
    price_key: str
    date: str
    source: str


def _int(raw: str) -> int:
    return int(raw) if raw.strip() else 0


def _float(raw: str) -> float:
    return float(raw) if raw.strip() else 0.0


def read_network_catalogue(path: Path = CATALOGUE_FILE) -> dict[str, NetworkItem]:
    """Read the network catalogue, keyed by item key (e.g. ``qm9700``)."""
    out: dict[str, NetworkItem] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        for line, raw in enumerate(csv.DictReader(fh), start=2):
            try:
                item = NetworkItem(
                    key=raw["key"].strip(),
                    kind=raw["kind"].strip(),
                    role=raw["role"].strip(),
                    family=raw["family"].strip(),
                    vendor_class=raw["vendor_class"].strip(),
                    name=raw["name"].strip(),
                    radix=_int(raw["radix"]),
                    port_gbps=_float(raw["port_gbps"]),
                    uplink_ports=_int(raw["uplink_ports"]),
                    uplink_gbps=_float(raw["uplink_gbps"]),
                    links_per_unit=_int(raw["links_per_unit"]),
                    rack_units=_int(raw["rack_units"]),
                    power_w=_float(raw["power_w"]),
                    cooling=raw["cooling"].strip(),
                    max_line_cards=_int(raw["max_line_cards"]),
                    price_key=raw["price_key"].strip(),
                    date=raw["date"].strip(),
                    source=raw["source"].strip(),
                )
            except (KeyError, ValueError) as exc:
                raise FabricError(f"{path.name} line {line}: {exc}") from None
            if item.key in out:
                raise FabricError(f"{path.name} line {line}: duplicate key {item.key!r}")
            out[item.key] = item
    return out


@lru_cache(maxsize=1)  # keyed on nothing: the shipped data/network_catalogue.csv (evaluate 1 → 5 ms without)
def default_network_catalogue() -> Mapping[str, NetworkItem]:
    """The shipped network catalogue (read-only)."""
    return MappingProxyType(read_network_catalogue())


def catalogue_item(
    catalogue: Mapping[str, NetworkItem], *, role: str, family: str, vendor_class: str = "any"
) -> NetworkItem:
    """The catalogue row for ``role`` and ``family``; a row of ``vendor_class`` wins over ``any``.

    Among several matching switches the one with the highest radix is taken.
    """
    rows = [r for r in catalogue.values() if r.role == role and r.family == family]
    exact = [r for r in rows if r.vendor_class == vendor_class]
    rows = exact or [r for r in rows if r.vendor_class == "any"]
    if not rows:
        raise FabricError(f"network catalogue has no {role} for {family} ({vendor_class})")
    return max(rows, key=lambda r: (r.radix, r.key))


BACKEND_FAMILIES = IB_FAMILIES + SPECTRUM_X_FAMILIES
AUTO_SWITCH = "auto"
"""``fabric.switch_model`` value that lets the generation (NIC speed) and topology pick the switch."""


def backend_family(spectrum_x: bool, nic_gbps: int) -> str:
    """Catalogue family of a back end: ``ndr``/``xdr`` for InfiniBand, ``spx400``/``spx800`` for Spectrum-X."""
    if spectrum_x:
        return f"spx{nic_gbps}"
    return {400: "ndr", 800: "xdr"}.get(nic_gbps, f"ib{nic_gbps}")


def backend_switch(
    catalogue: Mapping[str, NetworkItem], key: str, *, spectrum_x: bool = False, nic_gbps: int = 400
) -> NetworkItem:
    """The back-end switch row: ``key``, or for ``auto`` the highest-radix switch of the generation's family.

    Raises FabricError naming ``fabric.switch_model`` when the key is not a back-end switch of the right kind
    (InfiniBand for the fat-tree designs, Spectrum-X Ethernet for ``spectrum_x``).
    """
    families = SPECTRUM_X_FAMILIES if spectrum_x else IB_FAMILIES
    if key == AUTO_SWITCH:
        return _auto_switch(catalogue, spectrum_x, nic_gbps)
    if key not in catalogue or catalogue[key].role != "switch" or catalogue[key].family not in families:
        names = ", ".join(sorted(k for k, r in catalogue.items() if r.role == "switch" and r.family in families))
        kind = "a Spectrum-X" if spectrum_x else "an InfiniBand"
        raise FabricError(
            f"fabric.switch_model {key!r} is not {kind} back-end switch in data/network_catalogue.csv; "
            f"choose auto or one of {names}"
        )
    return catalogue[key]


def _auto_switch(catalogue: Mapping[str, NetworkItem], spectrum_x: bool, nic_gbps: int) -> NetworkItem:
    """The highest-radix back-end switch of the generation's family."""
    family = backend_family(spectrum_x, nic_gbps)
    rows = [r for r in catalogue.values() if r.role == "switch" and r.family == family]
    if not rows:
        raise FabricError(f"fabric.nic_gbps {nic_gbps}: the network catalogue has no {family} back-end switch")
    return max(rows, key=lambda r: (r.radix, r.key))
