"""Platform profiles: the inputs a GPU platform brings with it, and switching a plan from one platform to another.

A platform (``cluster.gpu_model``) fixes the node's shape (GPUs per node: 8 for HGX, 72 for an NVL72 rack) and
has *defaults* for the inputs that depend on it: the price book, the rental price, rack power and servers per rack,
the back-end NIC generation, storage per GPU and the RAM per server (at least the GPUs' HBM, as OEMs ship it).
They live in one table, ``data/platform_defaults.csv`` (one row per platform and field, each with why, source,
date and basis), the one place a platform's rack power is stated: the design search's moves
(:mod:`neoplan.inputs.profiles`) read it too. A value may name another table instead of a number:

- ``@rental_contracts:<contract>``: the price of a contract in the market of the platform's default book date
  (``data/rental_contracts.csv``, or ``data/markets/<date>/`` for an older one; ``on_demand`` is the platform's
  reference rental price; ``reserved_1y``, …), with that row's source, date and basis;
- ``@gpu_platforms:<column>``: a column of the platform's row in ``data/gpu_platforms.csv``;

and a value with ``per_gpus`` scales with the cluster (``2.0`` PB per 1,024 GPUs).

:func:`switch_platform` moves a scenario to another platform: GPUs per node, GPUs rounded to whole nodes, and each
default of the new platform, except where the user chose a value of their own (it differs both from the old
platform's default and from the scenario as it was opened). Hard requirements of the new platform (a book that
prices it, a rack that can feed one node) win even over the user's value, and say so. Every change comes with its
reason. In a file, ``cluster.platform_defaults: true`` does the same at load time, the file's own keys counting as
the user's (:func:`apply_file_defaults`). :func:`platform_problems` lists what a scenario's inputs cannot be on its
platform, each with the one option that fixes it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import Field

from ..errors import DataError
from .datafile import DATA_DIR, Basis, DataDate, DataRow, read_numbered
from .pricebook import BOOK_DATES, Platform, default_platforms, price_book, rental_contracts, rental_market
from .regions import DEFAULT_REGION, density_of, site_changes

DEFAULTS_FILE = DATA_DIR / "platform_defaults.csv"
CONTRACTS_FILE = DATA_DIR / "rental_contracts.csv"
FIELDS = (
    "prices_as_of",
    "pricing.usd_per_gpu_hour",
    "facility.rack_power_kw",
    "facility.servers_per_rack",
    "fabric.nic_gbps",
    "storage.usable_pb",
    "node.ram_tb",
)
"""The inputs a platform has defaults for (every platform has a row for each)."""


class DefaultRow(DataRow):
    """A row of ``data/platform_defaults.csv``; date and basis may be blank where the value names another table."""

    platform: str
    field: str
    value: str
    per_gpus: int | None = Field(None, ge=1)
    why: str = Field(min_length=5)
    source: str = Field(min_length=5)
    date: DataDate | None = None
    basis: Basis | None = None


@dataclass(frozen=True)
class Default:
    """A platform's default for one input: the value (per GPU when ``per_gpus``), why, and where it comes from."""

    field: str
    value: Any
    why: str
    source: str
    date: str
    basis: str
    per_gpus: int | None = None

    def for_gpus(self, gpus: int) -> Any:
        """The value for a cluster of ``gpus`` (scaled and rounded to 0.1 when per GPU)."""
        return self.value if self.per_gpus is None else round(self.value * gpus / self.per_gpus, 1)


@dataclass(frozen=True)
class Change:
    """What a platform switch did to one input (or kept, when ``kept``), and why."""

    field: str
    before: Any
    after: Any
    why: str
    kept: bool = False
    after_text: str = ""
    """How ``after`` reads when it is no plain value (storage left to the platform's rule: ``4.7 PB per 1,024
    GPUs``)."""

    def text(self) -> str:
        """``rental price $2.80 → $5.30/GPU-h: the platform's reference on-demand rental price (2026-06, quoted)``."""
        label = LABELS.get(self.field, self.field)
        if self.kept:
            return f"kept your {label} {show(self.field, self.before)}: {self.why}"
        after = self.after_text or show(self.field, self.after)
        return f"{label} {show(self.field, self.before)} → {after}: {self.why}"


LABELS = {
    "prices_as_of": "price book",
    "pricing.usd_per_gpu_hour": "rental price",
    "facility.rack_power_kw": "rack power",
    "facility.servers_per_rack": "servers per rack",
    "fabric.nic_gbps": "back-end NICs",
    "storage.usable_pb": "storage",
    "node.ram_tb": "RAM per server",
    "cluster.gpus": "GPUs",
    "cluster.gpus_per_node": "GPUs per node",
    "fabric.nics_per_node": "back-end NICs per 8 GPUs",
    "cooling": "cooling",
    "facility.electricity_usd_per_kwh": "power price",
    "facility.colo_usd_per_kw_month": "colocation",
    "facility.pue": "PUE",
    "financing.tax_rate": "tax rate",
}


def show(field: str, value: Any) -> str:
    """A default's value for people: ``$5.30/GPU-h``, ``60 kW``, ``400G``, ``4.5 PB``, ``2026-11``."""
    if value is None:
        return "the platform's rule" if field == "storage.usable_pb" else "none"
    forms = {
        "pricing.usd_per_gpu_hour": "${:.2f}/GPU-h",
        "facility.rack_power_kw": "{:g} kW",
        "fabric.nic_gbps": "{}G",
        "storage.usable_pb": "{:g} PB",
        "node.ram_tb": "{:g} TB",
        "cluster.gpus": "{:,}",
        "facility.electricity_usd_per_kwh": "${:.3f}/kWh",
        "facility.colo_usd_per_kw_month": "${:g}/kW-month",
        "financing.tax_rate": "{:.1%}",
    }
    if isinstance(value, str):  # a number the user quoted in a file ("60"): shown as the number it stands for
        try:
            number = float(value)
            value = int(number) if number.is_integer() else number
        except (ValueError, OverflowError):
            return value
    try:
        return forms.get(field, "{}").format(value)
    except (ValueError, TypeError):  # not the type the form expects: as typed
        return str(value)


# --- the table ---------------------------------------------------------------------------------------------------


def _resolve(row: DefaultRow, line: int, platform: Platform, book: str) -> Default:
    """A row's value, a reference to another table followed (with that table's source, date and basis); ``book`` is
    the platform's default book date, whose market a rental reference reads."""
    name = DEFAULTS_FILE.name
    value: Any = row.value
    source, date, basis = row.source, row.date, row.basis
    try:
        if value.startswith("@rental_contracts:"):
            contract = rental_contracts(rental_market(platform.key, book))[(platform.key, value.split(":", 1)[1])]
            value, date, basis = contract.usd_per_gpu_hour, contract.date, contract.basis
            source = f"{CONTRACTS_FILE.name}: {contract.source}"
        elif value.startswith("@gpu_platforms:"):
            value = getattr(platform, value.split(":", 1)[1])
            date, basis = platform.date, "quoted"
        elif row.field == "prices_as_of":
            if value not in BOOK_DATES:
                raise DataError(name, f"not a price book date ({', '.join(BOOK_DATES)})", row=line, column="value")
        else:
            value = float(value)
    except (KeyError, AttributeError, ValueError):
        raise DataError(name, f"cannot read {row.value!r}", row=line, column="value") from None
    if date is None or basis is None:
        raise DataError(name, "date and basis are required for a value given here", row=line, column="date")
    if row.field in ("fabric.nic_gbps", "facility.servers_per_rack"):
        value = int(value)
    return Default(row.field, value, row.why, source, date, basis, row.per_gpus)


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/platform_defaults.csv and the tables it names
def default_table() -> dict[str, dict[str, Default]]:
    """Every platform's defaults by field (``data/platform_defaults.csv`` with its references followed; cached)."""
    platforms = default_platforms()
    table: dict[str, dict[str, Default]] = {key: {} for key in platforms}
    rows = read_numbered(DEFAULTS_FILE, DefaultRow)
    books = {row.platform: row.value for _, row in rows if row.field == "prices_as_of"}
    for line, row in rows:
        if row.platform not in platforms:
            raise DataError(DEFAULTS_FILE.name, f"unknown platform {row.platform!r}", row=line, column="platform")
        if row.field not in FIELDS:
            raise DataError(DEFAULTS_FILE.name, f"not a platform input ({', '.join(FIELDS)})", row=line, column="field")
        book = books.get(row.platform, BOOK_DATES[-1])
        book = book if book in BOOK_DATES else BOOK_DATES[-1]  # a bad date is refused on its own row
        table[row.platform][row.field] = _resolve(row, line, platforms[row.platform], book)
    for key, fields in table.items():
        missing = [f for f in FIELDS if f not in fields]
        if missing:
            raise DataError(DEFAULTS_FILE.name, f"platform {key} has no row for {', '.join(missing)}")
    return table


def platform_defaults(key: str) -> dict[str, Default]:
    """The defaults of platform ``key`` by field (KeyError for an unknown platform)."""
    return default_table()[key]


# --- switching ---------------------------------------------------------------------------------------------------


def _get(data: Mapping[str, Any], path: str, missing: Any = None) -> Any:
    """The value at dotted ``path`` of ``data``; ``missing`` where ``data`` leaves it out."""
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return missing
        node = node[part]
    return node


_ABSENT = object()


def _field_default(path: str) -> Any:
    """The Scenario's default of a dotted field path (what a scenario that leaves it out gets)."""
    from .scenario import field_of

    return field_of(path).get_default(call_default_factory=True)


def _set(data: dict[str, Any], path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    node = data
    for part in parents:
        child = node.get(part)
        node[part] = child = dict(child) if isinstance(child, Mapping) else {}
        node = child
    node[leaf] = value


def _number(value: Any) -> float | None:
    """A file's value as a number (a quoted one too); None when it is none (a list, a word, NaN: validation says
    why, naming the field, after the switch)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _count(value: Any, fallback: int) -> int:
    """A GPU count from a file's value, or ``fallback`` when it holds no usable number."""
    number = _number(value)
    return int(number) if number is not None and number >= 1 else fallback


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return bool(a == b)


def _requirement(field: str, value: Any, platform: Platform) -> str | None:
    """Why ``value`` of ``field`` cannot stay on ``platform`` (None if it can)."""
    if field == "prices_as_of" and platform.baseboard_price_key not in price_book(str(value)):
        return f"the {value} book has no price for the {platform.name}"
    power = _number(value)
    if field == "facility.rack_power_kw" and power is not None and power + 1e-9 < platform.node_max_power_kw:
        unit = "one rack" if platform.rack_scale else "one server"
        return f"{unit} of the {platform.name} draws up to {platform.node_max_power_kw:g} kW"
    return None


@dataclass(frozen=True)
class Switch:
    """The outcome of a platform switch: the new values by field path and every change made or declined."""

    values: dict[str, Any]
    changes: list[Change]

    def note(self) -> str:
        """The changes as one paragraph for people (empty if nothing changed)."""
        return "; ".join(c.text() for c in self.changes)


def plan_switch(
    data: Mapping[str, Any],
    key: str,
    *,
    users: set[str] | None = None,
    baseline: Mapping[str, Any] | None = None,
    old: str | None = None,
) -> Switch:
    """What moving the scenario ``data`` (a full scenario as a mapping) to platform ``key`` changes.

    A platform input keeps its value when it is the user's: a path in ``users`` (a file's own keys), or, without
    ``users``, a value that differs from the old platform's default and from ``baseline`` (the scenario as opened).
    In the app (no ``users``) hard requirements of the new platform override even the user's value, saying why; a
    file's own value stays as written and evaluation refuses it with the fix. GPUs per node follow the platform and
    GPUs round up to whole nodes (unless ``users`` holds ``cluster.gpus``: a file's count is checked, not moved).
    ``old`` is the platform switched from (default: the one ``data`` names); a field ``data`` leaves out has the
    scenario's default.
    """
    platforms = default_platforms()
    if key not in platforms:
        raise KeyError(key)
    new = platforms[key]
    old_key = old if old is not None else _get(data, "cluster.gpu_model")
    old_defaults = default_table().get(str(old_key), {})
    gpus = _count(_get(data, "cluster.gpus"), new.gpus_per_node)
    power = _get(data, "cluster.size_by") == "power"  # the count is found by the sizing: no count to round or scale
    values: dict[str, Any] = {"cluster.gpu_model": key, "cluster.gpus_per_node": new.gpus_per_node}
    changes: list[Change] = []
    if not (users and "cluster.gpus" in users) and not power:
        whole = max(new.gpus_per_node, math.ceil(gpus / new.gpus_per_node) * new.gpus_per_node)
        if whole != gpus:
            unit = "racks" if new.rack_scale else f"{new.gpus_per_node}-GPU servers"
            changes.append(Change("cluster.gpus", gpus, whole, f"whole {unit}"))
            gpus = whole
        values["cluster.gpus"] = gpus
    tray = _tray_nics(data, new, users)
    if tray is not None:
        values[tray.field] = tray.after
        changes.append(tray)
    changes += _cooling_change(platforms.get(str(old_key)), new)
    for field, default in platform_defaults(key).items():
        current = _get(data, field, _ABSENT)
        if current is _ABSENT or (current is None and not _optional_rule(field, default)):
            current = _field_default(field)
        target = None if power and _optional_rule(field, default) else default.for_gpus(gpus)
        if _is_users(data, field, current, old_defaults.get(field), gpus, users=users, baseline=baseline):
            problem = _requirement(field, current, new)
            if problem is None or users is not None:
                if not _same(current, target):
                    changes.append(Change(field, current, current, "you set it", kept=True))
                continue
            why = f"{problem}, so your value cannot stay ({default.why})"
        else:
            why = f"{default.why} ({default.date}, {default.basis})"
        if not _same(current, target):
            values[field] = target
            rule = f"{default.value:g} PB per {default.per_gpus:,} GPUs" if target is None else ""
            changes.append(Change(field, current, target, why, after_text=rule))
    changes += _site_switch(data, values, users)
    return Switch(values, changes)


def _cooling_change(was: Platform | None, new: Platform) -> list[Change]:
    """The cooling change of a switch from ``was`` to ``new`` (none when they are cooled alike)."""
    if was is None or was.cooling == new.cooling:
        return []
    heat = f", {new.liquid_heat_share:.0%} of the heat to facility water through CDUs" if new.liquid_heat_share else ""
    return [Change("cooling", was.cooling, new.cooling, f"the {new.name} is {new.cooling} cooled{heat}")]


def _is_users(
    data: Mapping[str, Any],
    field: str,
    current: Any,
    before: Default | None,
    gpus: int,
    *,
    users: set[str] | None,
    baseline: Mapping[str, Any] | None,
) -> bool:
    """Whether ``current`` (``field``'s value in ``data``) is the user's (see :func:`plan_switch`): a path in
    ``users``, or, without ``users``, a value other than the old platform's default ``before`` at the plan's count
    and other than ``baseline``'s."""
    if users is not None:
        return field in users
    asked = _count(_get(data, "cluster.gpus"), gpus)
    was_default = current is None or (before is not None and _same(current, before.for_gpus(asked)))
    return not was_default and not (baseline is not None and _same(current, _get(baseline, field)))


FULL_NICS = 8
"""``fabric.nics_per_node`` of one scale-out NIC per GPU (counted per 8 GPUs)."""


def tray_nics_problem(platform: Platform, nics_per_node: int) -> str | None:
    """Why ``fabric.nics_per_node`` cannot be ``nics_per_node`` on ``platform`` (None if it can): a rack-scale
    system's compute trays carry their scale-out NICs, one per GPU (a GB200 NVL72 tray: four ConnectX-7), so fewer
    cannot be bought; an HGX server takes 4 or 8."""
    if not platform.rack_scale or nics_per_node == FULL_NICS:
        return None
    return (
        f"fabric.nics_per_node must be {FULL_NICS} on the {platform.name}: each compute tray carries "
        f"{platform.scaleout_nics_per_tray} scale-out NICs, one per GPU (fewer is an HGX option), got {nics_per_node}"
    )


def _tray_nics(data: Mapping[str, Any], new: Platform, users: set[str] | None) -> Change | None:
    """The back-end NIC count a switch to ``new`` must change (a rack-scale tray fixes it), unless a file sets it
    itself (then evaluation refuses it, saying why)."""
    nics = _get(data, "fabric.nics_per_node", FULL_NICS)
    if (users and "fabric.nics_per_node" in users) or _number(nics) is None or tray_nics_problem(new, nics) is None:
        return None
    why = f"each compute tray of the {new.name} carries {new.scaleout_nics_per_tray} scale-out NICs, one per GPU"
    return Change("fabric.nics_per_node", nics, FULL_NICS, why)


def _optional_rule(field: str, default: Default) -> bool:
    """Whether ``field`` may be left empty to follow ``default`` per GPU (``storage.usable_pb``): a plan sized by
    power leaves it so, since its GPU count is known only once sized."""
    return field == "storage.usable_pb" and default.per_gpus is not None


def follows_rule(data: Mapping[str, Any]) -> bool:
    """Whether the scenario ``data`` (a mapping) has the storage its platform's rule gives its GPU count: its value
    is the platform's default, or empty (the rule itself). A plan switched to power sizing then leaves it empty."""
    current = _get(data, "storage.usable_pb")
    key = str(_get(data, "cluster.gpu_model"))
    if current is None or key not in default_table():
        return current is None
    return _same(current, platform_defaults(key)["storage.usable_pb"].for_gpus(_count(_get(data, "cluster.gpus"), 0)))


def _site_switch(data: Mapping[str, Any], values: dict[str, Any], users: set[str] | None) -> list[Change]:
    """The site fields that follow a switch's book date and rack density (they hold the region's values; a file's own
    stay), added to ``values``; the changes made."""
    as_of = values.get("prices_as_of", _get(data, "prices_as_of") or _field_default("prices_as_of"))
    rack_kw = values.get("facility.rack_power_kw", _get(data, "facility.rack_power_kw"))
    rack_kw = rack_kw if rack_kw is not None else _field_default("facility.rack_power_kw")
    limit = _get(data, "facility.air_cooled_rack_limit_kw") or _field_default("facility.air_cooled_rack_limit_kw")
    rack_kw, limit = _number(rack_kw), _number(limit)
    if rack_kw is None or limit is None:
        return []  # not a number: validation names the field
    density = density_of(rack_kw, limit)
    region = _get(data, "facility.region") or DEFAULT_REGION
    changes = []
    for path, value in site_changes(data, str(as_of), density).items():
        if users is not None and path in users:
            continue
        values[path] = value
        why = f"the {region} site as of {as_of}, {density}-density racks (data/regions.csv)"
        changes.append(Change(path, _get(data, path), value, why))
    return changes


def apply_file_defaults(
    resolved: Mapping[str, Any], own: Mapping[str, Any], old: str | None = None
) -> tuple[dict[str, Any], Switch]:
    """A file with ``cluster.platform_defaults: true``: its platform's defaults laid over its preset (``resolved`` is
    preset + file, ``own`` the file's own mapping, whose keys stay as written; ``old`` the preset's platform)."""
    users = {path for path in _paths(own) if path in FIELDS or path == "cluster.gpus"}
    key = str(_get(resolved, "cluster.gpu_model"))
    switch = plan_switch(resolved, key, users=users, old=old)
    out = dict(resolved)
    for path, value in switch.values.items():
        _set(out, path, value)
    return out, switch


def _paths(data: Mapping[str, Any], prefix: str = "") -> set[str]:
    out: set[str] = set()
    for key, value in data.items():
        path = f"{prefix}{key}"
        out |= _paths(value, f"{path}.") if isinstance(value, Mapping) else {path}
    return out


def platform_problems(
    gpu_model: str, gpus_per_node: int, prices_as_of: str, rack_power_kw: float, nics_per_node: int = FULL_NICS
) -> list[str]:
    """What the inputs cannot be on platform ``gpu_model``, each with the one option that fixes it (empty: none)."""
    platform = default_platforms()[gpu_model]
    problems = []
    if gpus_per_node != platform.gpus_per_node:
        kind = "one rack-scale system" if platform.rack_scale else "an HGX server; 72 only for rack-scale"
        problems.append(f"cluster.gpus_per_node must be {platform.gpus_per_node} ({kind}), got {gpus_per_node}")
    nics = tray_nics_problem(platform, nics_per_node)
    if nics:
        problems.append(nics)
    if _requirement("prices_as_of", prices_as_of, platform):
        books = [d for d in BOOK_DATES if platform.baseboard_price_key in price_book(d)]
        problems.append(f"prices_as_of must be {' or '.join(books)} (the {prices_as_of} book has no price for it)")
    if _requirement("facility.rack_power_kw", rack_power_kw, platform):
        problems.append(
            f"facility.rack_power_kw must be ≥ {platform.node_max_power_kw:g} (one node draws that), got "
            f"{rack_power_kw:g}"
        )
    return problems
