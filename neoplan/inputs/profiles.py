"""Platform profiles: a scenario moved to another GPU platform with the inputs that depend on the platform.

:func:`with_platform` changes exactly these (nothing when the platform is the scenario's own), and leaves every
other input as the scenario has it:

* ``cluster.gpu_model`` and ``cluster.gpus_per_node`` (8 for HGX, 72 for an NVL72 rack), and ``cluster.gpus``
  rounded to whole nodes (nearest; at least one);
* ``prices_as_of``: kept if its book prices the platform and its market rents it, else the nearest date whose book
  and market both do (a plan is of one vintage: its hardware, rents and price curve of one date);
* ``facility.rack_power_kw`` and ``facility.servers_per_rack``: the platform's defaults in
  ``data/platform_defaults.csv`` (:func:`neoplan.inputs.platforms.platform_defaults`, the one table of a platform's
  defaults; e.g. 4 H100 servers per 41 kW rack, 2 B200 per 30 kW, one NVL72 rack per rack);
* ``fabric.nics_per_node``: one per GPU (8) on a rack-scale system, whose compute trays carry them;
* ``fabric.nic_gbps``: the platform's scale-out NIC (ConnectX-7 400G for H100/H200/B200/GB200, ConnectX-8 800G for
  B300/GB300; ``data/gpu_platforms.csv``);
* ``pricing.usd_per_gpu_hour``: the platform's reference rental price (its on-demand row in the market of the new
  ``prices_as_of``), and a pinned reserved price is unpinned, as is any contract's own price in ``pricing.contracts``
  (they were prices of the old platform: the contracts keep their kinds, shares, terms and credit, and price from the
  new platform's table);
* the site's power and colocation prices, PUE and tax rate where they hold the region's values
  (:func:`neoplan.inputs.regions.site_changes`): moved to the region's values at the new book date and rack density.

:func:`vintage_changes` moves a plan to another book date the same way (its site and its reference rent with it).

Cooling follows the platform itself (air for HGX, direct liquid for NVL72: ``data/gpu_platforms.csv``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TypeVar

from pydantic import BaseModel

from ..errors import ScenarioError
from .platforms import FULL_NICS, platform_defaults
from .pricebook import BOOK_DATES, default_platforms, default_rentals, months_apart, price_book, rental_contracts
from .regions import FIELDS as SITE_FIELDS
from .regions import density_of, site_changes, site_density
from .scenario import Scenario

Model = TypeVar("Model", bound=BaseModel)
CHANGED_FIELDS = (
    "cluster.gpu_model",
    "cluster.gpus_per_node",
    "cluster.gpus",
    "prices_as_of",
    "facility.rack_power_kw",
    "facility.servers_per_rack",
    "fabric.nic_gbps",
    "fabric.nics_per_node",
    "pricing.usd_per_gpu_hour",
    "pricing.reserved_usd_per_gpu_hour",
    "pricing.contracts",
    *SITE_FIELDS,
)
"""The inputs :func:`with_platform` may change; every other input stays as it was."""


def book_for(platform_key: str, as_of: str) -> str:
    """``as_of`` if its book prices the platform and its market rents it; else the nearest date (the earlier on a tie)
    whose book and market both do; else the earliest book that prices it (its rent then comes from another date's
    market, and the result warns)."""
    key = default_platforms()[platform_key].baseboard_price_key
    priced = [d for d in BOOK_DATES if key in price_book(d)]
    if not priced:
        raise ScenarioError(f"cluster.gpu_model: no price book prices {platform_key}")
    whole = [d for d in priced if (platform_key, "on_demand") in rental_contracts(d)]
    if as_of in whole:
        return as_of
    if whole:
        return min(whole, key=lambda d: (months_apart(d, as_of), d))
    return as_of if as_of in priced else priced[0]


def platform_changes(scenario: Scenario, platform_key: str) -> dict[str, object]:
    """The inputs of ``scenario`` that move with the platform, by dotted field path (see the module docstring)."""
    platforms = default_platforms()
    if platform_key not in platforms:
        raise ScenarioError(f"cluster.gpu_model must be one of {', '.join(platforms)}, got {platform_key!r}")
    if platform_key == scenario.cluster.gpu_model:
        return {}  # the scenario's own platform keeps the scenario's inputs
    p, defaults = platforms[platform_key], platform_defaults(platform_key)
    per_node = p.gpus_per_node
    book = book_for(platform_key, scenario.prices_as_of)
    rental = default_rentals(book)[platform_key]
    rack_kw = defaults["facility.rack_power_kw"].value
    density = density_of(rack_kw, scenario.facility.air_cooled_rack_limit_kw)
    tray = {"fabric.nics_per_node": FULL_NICS} if p.rack_scale else {}  # a rack-scale tray fixes its NICs
    return {
        **tray,
        "cluster.gpu_model": platform_key,
        "cluster.gpus_per_node": per_node,
        "cluster.gpus": max(round(scenario.cluster.gpus / per_node), 1) * per_node,
        "prices_as_of": book,
        "facility.rack_power_kw": rack_kw,
        "facility.servers_per_rack": defaults["facility.servers_per_rack"].value,
        "fabric.nic_gbps": p.scaleout_nic_gbps,
        "pricing.usd_per_gpu_hour": rental.usd_per_gpu_hour,
        "pricing.reserved_usd_per_gpu_hour": None,
        "pricing.contracts": None
        if scenario.pricing.contracts is None
        else [c.model_copy(update={"usd_per_gpu_hour": None}) for c in scenario.pricing.contracts],
        **site_changes(scenario.model_dump(mode="json"), book, density),
    }


def vintage_changes(scenario: Scenario, as_of: str) -> dict[str, object]:
    """The inputs that move when ``scenario`` is priced as of another book date, by dotted path: ``prices_as_of``;
    the site fields that hold the region's values (now the region's as of ``as_of``); and the headline rent when it
    is the platform's reference rent of the old date's market (now the new market's). A value the user set stays."""
    data = scenario.model_dump(mode="json")
    out: dict[str, object] = {"prices_as_of": as_of, **site_changes(data, as_of, site_density(data))}
    key = scenario.cluster.gpu_model
    old, new = default_rentals(scenario.prices_as_of).get(key), default_rentals(as_of).get(key)
    price = scenario.pricing.usd_per_gpu_hour
    if old is not None and new is not None and math.isclose(price, old.usd_per_gpu_hour, rel_tol=1e-9):
        out["pricing.usd_per_gpu_hour"] = new.usd_per_gpu_hour
    return out


def apply(scenario: Model, changes: Mapping[str, object]) -> Model:
    """``scenario`` (or a section of it) with dotted-path ``changes`` applied, *not* re-validated (fast: a search
    builds hundreds); :func:`validated` checks the outcome. The sizing and design refuse what the schema would."""
    by_section: dict[str, dict[str, object]] = {}
    top: dict[str, object] = {}
    for path, value in changes.items():
        head, _, rest = path.partition(".")
        if rest:
            by_section.setdefault(head, {})[rest] = value
        else:
            top[head] = value
    return scenario.model_copy(update={**top, **{k: apply(getattr(scenario, k), v) for k, v in by_section.items()}})


def validated(scenario: Scenario) -> Scenario:
    """``scenario`` validated as a file would be (raises :class:`ScenarioError` with the schema's one-line message)."""
    from .loading import scenario_from_dict

    data = scenario.model_dump(mode="json")
    base = data.pop("base", None)  # the dump is complete: no preset to merge under it
    return scenario_from_dict(data).model_copy(update={"base": base})


def with_platform(scenario: Scenario, platform_key: str) -> Scenario:
    """``scenario`` on ``platform_key`` with the platform's profile (validated; see the module docstring)."""
    return validated(apply(scenario, platform_changes(scenario, platform_key)))
