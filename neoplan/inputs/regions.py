"""Regions: where the site is, and what it costs there as of a date (``data/regions.csv``).

``facility.region`` names a row set of ``data/regions.csv`` (``us-virginia``, ``us-texas``, ``nordics``, …). A
region gives the site's defaults for the scenario's book date (``prices_as_of``: the site is of the same vintage as
the hardware and the market): the electricity price, the colocation price per kW-month by rack density, the PUE of a
new hall and the corporate tax rate. Each is a row::

    region, name, as_of, field, density, value, low, high, date, source, basis

``field`` is the scenario field the row is the default of (:data:`FIELDS`); ``as_of`` is a book date, or blank for
every date; ``density`` is blank, or for the colocation price ``standard`` (racks up to the air-cooled limit,
``facility.air_cooled_rack_limit_kw``) or ``high`` (denser racks: liquid-cooled NVL72, 60 kW B300 racks), the price
of a hall that can feed them. ``low`` and ``high`` bound the value where the sources span a range.

**A site's own numbers win.** :func:`fill_site` fills only the fields a scenario (a preset merged with a file) does
not set itself, so ``facility: {region: nordics, pue: 1.1}`` takes the Nordic power, colocation and tax rate and its
own PUE. In the app, choosing a region sets the four fields to the region's values (:func:`region_values`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from ..errors import DataError
from .datafile import DATA_DIR, DataDate, SourcedRow, column_error, read_numbered
from .pricebook import BASE_BOOK_DATE, BOOK_DATES, assumed

REGIONS_FILE = DATA_DIR / "regions.csv"
DEFAULT_REGION = "us-average"
"""The region of a scenario that names none: the average of CBRE's primary US markets, EIA's US industrial power."""
FIELDS = (
    "facility.electricity_usd_per_kwh",
    "facility.colo_usd_per_kw_month",
    "facility.pue",
    "financing.tax_rate",
)
"""The scenario fields a region has defaults for (every region has a row for each, at every book date)."""
Density = Literal["", "standard", "high"]


class RegionRow(SourcedRow):
    """One default of one region (see the module docstring); ``low ≤ value ≤ high`` when given."""

    region: str = Field(pattern=r"^[a-z][a-z0-9-]{1,31}$")
    name: str = Field(min_length=3)
    as_of: DataDate | None = None
    field: str
    density: Density = ""
    value: float = Field(ge=0)
    low: float | None = Field(None, ge=0)
    high: float | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _consistent(self) -> RegionRow:
        if self.field not in FIELDS:
            raise column_error("field", f"must be one of {', '.join(FIELDS)}", self.field)
        if (self.field == "facility.colo_usd_per_kw_month") != bool(self.density):
            raise column_error("density", "is standard or high for the colocation price and blank otherwise", "")
        if self.as_of is not None and self.as_of not in BOOK_DATES:
            raise column_error("as_of", f"must be blank or a book date ({', '.join(BOOK_DATES)})", self.as_of)
        if (self.low is not None and self.low > self.value) or (self.high is not None and self.high < self.value):
            raise column_error("low", "must be ≤ value ≤ high", self.low)
        return self


@dataclass(frozen=True)
class RegionValue:
    """A region's default for one field at one date: the value, its range (None: not given) and where from."""

    field: str
    value: float
    low: float | None
    high: float | None
    date: str
    source: str
    basis: str


@dataclass(frozen=True)
class Region:
    """A region: its name and its rows by (field, density, book date or None for every date)."""

    key: str
    name: str
    rows: Mapping[tuple[str, str, str | None], RegionRow]

    @property
    def short_name(self) -> str:
        """The name without its parenthesis (``US, Texas``): what a narrow field shows whole."""
        return self.name.split(" (")[0]

    def value(self, field: str, as_of: str, density: str = "") -> RegionValue:
        """The default of ``field`` as of ``as_of`` (its own row of that date, else the undated row)."""
        density = density if field == "facility.colo_usd_per_kw_month" else ""
        row = self.rows.get((field, density, as_of)) or self.rows[(field, density, None)]
        return RegionValue(field, row.value, row.low, row.high, row.date, row.source, row.basis)


def read_regions(path: Path = REGIONS_FILE) -> dict[str, Region]:
    """The regions of ``data/regions.csv`` (or ``path``) by key; every region has every field at every book date
    (colocation at both densities), and a (region, field, density, date) on two rows is an error."""
    name = path.name
    by_region: dict[str, dict[tuple[str, str, str | None], RegionRow]] = {}
    names: dict[str, str] = {}
    last: dict[str, int] = {}
    for line, row in read_numbered(path, RegionRow):
        key = (row.field, row.density, row.as_of)
        rows = by_region.setdefault(row.region, {})
        if key in rows:
            raise DataError(name, f"{row.region} {row.field} {row.density} {row.as_of} appears twice", row=line)
        if names.setdefault(row.region, row.name) != row.name:
            raise DataError(name, f"{row.region} has two names", row=line, column="name")
        rows[key], last[row.region] = row, line
    out = {}
    for region, rows in by_region.items():
        out[region] = Region(region, names[region], rows)
        for field in FIELDS:
            for density in ("standard", "high") if field == "facility.colo_usd_per_kw_month" else ("",):
                for as_of in BOOK_DATES:
                    if (field, density, as_of) not in rows and (field, density, None) not in rows:
                        problem = f"{region} has no {field} {density} row for {as_of}".replace("  ", " ")
                        raise DataError(name, problem, row=last[region])
    return out


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/regions.csv
def regions() -> dict[str, Region]:
    """The shipped regions (cached; treat as read-only)."""
    return read_regions()


def density_of(rack_power_kw: float, air_cooled_rack_limit_kw: float) -> str:
    """``high`` for racks above the air-cooled limit (the hall must feed and cool them), else ``standard``."""
    return "high" if rack_power_kw > air_cooled_rack_limit_kw + 1e-9 else "standard"


def region_values(region: str, as_of: str, density: str) -> dict[str, RegionValue]:
    """The region's defaults by scenario field path as of book date ``as_of`` for racks of ``density``."""
    r = regions()[region]
    return {field: r.value(field, as_of, density) for field in FIELDS}


def _section(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    section = data.get(name)
    return section if isinstance(section, Mapping) else {}


def _number(value: Any, default: float) -> float:
    """``value`` as a finite float, ``default`` for anything else (text, a bool, a huge or non-finite number)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return default
    try:
        number = float(value)
    except OverflowError:
        return default
    return number if math.isfinite(number) else default


def site_density(data: Mapping[str, Any]) -> str:
    """The rack density of a scenario mapping (its rack power against its air-cooled limit, defaults where unset)."""
    facility = _section(data, "facility")
    rack_kw = _number(facility.get("rack_power_kw"), 41.0)
    limit = _number(facility.get("air_cooled_rack_limit_kw"), assumed("facility.air_cooled_rack_limit_kw"))
    return density_of(rack_kw, limit)


def _known(region: Any, as_of: Any) -> bool:
    """Whether ``region`` and ``as_of`` (raw values of a mapping: any type) name a region and a book date."""
    return isinstance(region, str) and region in regions() and isinstance(as_of, str) and as_of in BOOK_DATES


def fill_site(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` (a scenario mapping) with its region's defaults in every site field it does not set itself.

    An unknown region, or a mapping that is not a scenario's, is returned unchanged (validation then names the
    problem)."""
    facility = data.get("facility", {})
    if not isinstance(facility, Mapping):
        return data
    region = facility.get("region", DEFAULT_REGION)
    as_of = data.get("prices_as_of", BASE_BOOK_DATE)
    if not _known(region, as_of):
        return data
    values = region_values(str(region), str(as_of), site_density(data))
    out = dict(data)
    for path, value in values.items():
        section, name = path.split(".")
        own = dict(_section(out, section))
        if name not in own:
            own[name] = value.value
            out[section] = own
    return out


def site_changes(data: Mapping[str, Any], as_of: str, density: str) -> dict[str, float]:
    """The site fields of ``data`` (a whole scenario as a mapping) that hold its region's defaults at its own book
    date and density, moved to the region's defaults at ``as_of`` and ``density`` (a field set apart from the
    region stays); by dotted path. What a platform switch to another book date or rack density moves."""
    facility = _section(data, "facility")
    region = facility.get("region", DEFAULT_REGION)
    old_as_of = data.get("prices_as_of", BASE_BOOK_DATE)
    if not _known(region, old_as_of):
        return {}
    old = region_values(str(region), str(old_as_of), site_density(data))
    new = region_values(str(region), as_of, density)
    out = {}
    for path, was in old.items():
        section, name = path.split(".")
        current = _number(_section(data, section).get(name), math.nan)
        held = abs(current - was.value) <= 1e-9 * max(1.0, abs(was.value))  # False for nan
        if held and new[path].value != was.value:
            out[path] = new[path].value
    return out
