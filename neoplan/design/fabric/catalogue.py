"""The network catalogue: physical facts of switches, optics and cables (``data/network_catalogue.csv``).

Prices are not here: each row names the price-book key of one unit (``price_key``). The file is read through the
row model :class:`NetworkItem` (:mod:`neoplan.inputs.datafile`); a broken file raises
:class:`~neoplan.errors.DataError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from pydantic import Field, model_validator

from ...inputs.datafile import DataDate, DataRow, column_error, keyed, read_numbered
from ...inputs.pricebook import DATA_DIR, Cooling

CATALOGUE_FILE = DATA_DIR / "network_catalogue.csv"
IB_FAMILIES = ("ndr", "xdr")
"""InfiniBand back-end families (Quantum-2 NDR 400G, Quantum-X800 XDR 800G)."""
SPECTRUM_X_FAMILIES = ("spx400", "spx800")
"""Spectrum-X Ethernet back-end families (SN5600 ports at 2×400G or 800G)."""


class FabricError(ValueError):
    """An impossible fabric; the message names the scenario field to change."""


# --- catalogue ----------------------------------------------------------------------------------


SWITCH_KINDS = ("switch", "chassis", "line_card")
"""Kinds of row that have ports (a radix); the others (``transceiver``, ``cable``) serve links."""


class NetworkItem(DataRow):
    """A switch, chassis, line card, optic or cable of ``data/network_catalogue.csv``.

    ``radix`` is ports per switch (blank = 0 where not a switch), ``port_gbps`` the port
    speed [Gbit/s], ``links_per_unit`` how many links one optic or cable serves (blank = 0
    for a switch), ``power_w`` the typical power without optics [W], ``price_key`` the
    price-book key of one unit.
    """

    key: str
    kind: Literal["switch", "chassis", "line_card", "transceiver", "cable"]
    role: str
    family: str
    vendor_class: str
    name: str
    radix: int = Field(0, ge=0)
    port_gbps: float = Field(ge=0)
    uplink_ports: int = Field(ge=0)
    uplink_gbps: float = Field(ge=0)
    links_per_unit: int = Field(0, ge=0)
    rack_units: int = Field(ge=0)
    power_w: float = Field(ge=0)
    cooling: Cooling
    max_line_cards: int = Field(0, ge=0)
    """Line-card slots of a chassis; blank (0) for every other kind."""
    price_key: str
    date: DataDate
    source: str

    @property
    def model(self) -> str:
        """The model for a card: ``SN5600``, ``QM9700`` (the name's model code with the most digits; its first word,
        ``Generic``, when it has none)."""
        codes = re.findall(r"\b([A-Z]{1,4}\d{3,5}[A-Z]{0,2})\b", self.name)
        return max(codes, key=lambda c: sum(ch.isdigit() for ch in c)) if codes else self.name.split()[0]

    @property
    def short_name(self) -> str:
        """The model and its ports: ``SN5600 · 128×400G``, ``QM9700 · 64×400G``."""
        return f"{self.model} · {self.radix}×{self.port_gbps:g}G" if self.radix else self.model

    @model_validator(mode="after")
    def _counts_of_its_kind(self) -> NetworkItem:
        if self.kind in SWITCH_KINDS and self.radix < 1:
            raise column_error("radix", f"a {self.kind} needs its port count (≥ 1)", self.radix)
        if self.kind not in SWITCH_KINDS and self.links_per_unit < 1:
            raise column_error("links_per_unit", f"a {self.kind} needs the links it serves (≥ 1)", self.links_per_unit)
        if self.kind == "chassis" and self.max_line_cards < 1:
            raise column_error("max_line_cards", "a chassis needs its line-card slots (≥ 1)", self.max_line_cards)
        return self


def read_network_catalogue(path: Path = CATALOGUE_FILE) -> dict[str, NetworkItem]:
    """Read the network catalogue, keyed by item key (e.g. ``qm9700``)."""
    return keyed(read_numbered(path, NetworkItem), path.name)


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
