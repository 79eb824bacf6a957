"""Price book and GPU platform catalogue, loaded from ``data/``.

Every price the model uses is a row of ``data/prices/*.csv``::

    key, category, description, unit, price_usd, date, source, basis

``basis`` is ``quoted`` (a public price), ``estimate`` (judgement; the source
column says why) or ``fitted`` (set to reproduce a calibration target of
BRIEF.md §5). No price lives in code: the model asks the book by key.

The book is dated. ``data/prices/*.csv`` is the **2024-10** book (the article's,
which reproduces every calibration target); each folder ``data/prices/YYYY-MM/``
holds, in the same columns, the rows that differ or are new as of that month.
The book as of a date D is the base overridden key by key by every dated folder
≤ D (:func:`price_book`; the dates on offer are :data:`BOOK_DATES`).

The GPU platform catalogue (``data/gpu_platforms.csv``) holds the physical
facts of each platform (an 8-GPU HGX server or a 72-GPU NVL72 rack); its
baseboard (or rack-system) price is a price-book key. Reference rental prices
per platform, dated, are in ``data/rental_prices.csv``.

Assumptions that are not prices (colocation and power prices, PUE, staff
cost, rates, durations) are rows of ``data/assumptions.csv``, in the same
style and keyed by the scenario field whose default they are::

    key, description, unit, value, date, source, basis
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

_PACKAGED_DATA = Path(__file__).resolve().parent / "data"
DATA_DIR = _PACKAGED_DATA if _PACKAGED_DATA.is_dir() else Path(__file__).resolve().parent.parent / "data"
"""``data/`` of the repository, or the copy an installed wheel ships inside the package (``neoplan/data``)."""
PRICES_DIR = DATA_DIR / "prices"
PLATFORMS_FILE = DATA_DIR / "gpu_platforms.csv"
ASSUMPTIONS_FILE = DATA_DIR / "assumptions.csv"
RENTAL_FILE = DATA_DIR / "rental_prices.csv"

BASE_BOOK_DATE = "2024-10"
"""Date of the base book ``data/prices/*.csv`` (SemiAnalysis AI Neocloud Playbook, 2024-10-03)."""
BOOK_DATES = ("2024-10", "2026-11")
"""Dates a scenario may price its hardware at (``Scenario.prices_as_of``); each later one is a folder of overrides."""
_BOOK_FOLDER = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
COOLING = ("air", "liquid")

BASES = ("quoted", "estimate", "fitted")
_DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$")
MAX_UNIT_PRICE_USD = 10_000_000
"""Highest price override a user may set [USD per unit]; the dearest book item (a switch chassis) is ~$1.2 M."""
PRICE_COLUMNS = ("key", "category", "description", "unit", "price_usd", "date", "source", "basis")
ASSUMPTION_COLUMNS = ("key", "description", "unit", "value", "date", "source", "basis")


class PriceBookError(ValueError):
    """A price-book file or lookup is invalid."""


@dataclass(frozen=True)
class Price:
    """One priced item. ``price_usd`` is per ``unit``."""

    key: str
    category: str
    description: str
    unit: str
    price_usd: float
    date: str
    source: str
    basis: str
    file: str = ""


@dataclass(frozen=True)
class PriceBook:
    """Prices by key, with optional user overrides applied on top."""

    rows: Mapping[str, Price]
    overrides: Mapping[str, float] = field(default_factory=dict)
    as_of: str = BASE_BOOK_DATE
    """Date of the book (``YYYY-MM``): the base book, or the base with the dated folders up to this date."""

    def __post_init__(self) -> None:
        unknown = sorted(key for key in self.overrides if key not in self.rows)
        if unknown:
            raise PriceBookError(f"prices: unknown price key {unknown[0]!r}")
        for key, value in self.overrides.items():
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not (number and 0 <= value <= MAX_UNIT_PRICE_USD):
                raise PriceBookError(f"prices.{key} must be between 0 and {MAX_UNIT_PRICE_USD:,}, got {value!r}")

    def __contains__(self, key: object) -> bool:
        return key in self.rows

    def price(self, key: str) -> float:
        """Unit price of ``key`` [USD per unit], the user's override if any."""
        if key in self.overrides:
            return float(self.overrides[key])
        try:
            return self.rows[key].price_usd
        except KeyError:
            raise PriceBookError(f"price book has no key {key!r}") from None

    def row(self, key: str) -> Price:
        """The book's row for ``key`` (its default price, source and basis)."""
        try:
            return self.rows[key]
        except KeyError:
            raise PriceBookError(f"price book has no key {key!r}") from None

    def with_overrides(self, overrides: Mapping[str, float]) -> PriceBook:
        """A copy with ``overrides`` [USD per unit] replacing default prices."""
        return PriceBook(self.rows, dict(overrides), self.as_of)

    def records(self) -> list[dict[str, object]]:
        """All rows as dicts, with the price in force and whether it is overridden."""
        out = []
        for key, row in self.rows.items():
            rec: dict[str, object] = {c: getattr(row, c) for c in PRICE_COLUMNS}
            rec["price_usd"] = self.price(key)
            rec["default_price_usd"] = row.price_usd
            rec["overridden"] = key in self.overrides
            out.append(rec)
        return out


@dataclass(frozen=True)
class Platform:
    """A GPU platform. A *node* is what ``cluster.gpus_per_node`` counts: an 8-GPU HGX server, or for a rack-scale
    platform (GB200/GB300 NVL72) the whole rack: 18 compute trays × 4 GPUs + 9 NVLink switch trays.

    ``node_max_power_kw`` is per node (the whole rack for NVL72); ``baseboard_price_key`` prices the HGX
    baseboard or the whole rack system (trays, NVLink switches and spine, power shelves, manifolds).
    """

    key: str
    name: str
    gpus_per_node: int
    gpu_memory_gb: int
    gpu_power_w: float
    node_max_power_kw: float
    baseboard_price_key: str
    date: str
    source: str
    rack_scale: bool = False
    compute_trays: int = 1
    gpus_per_tray: int = 8
    switch_trays: int = 0
    scaleout_nics_per_tray: int = 8
    scaleout_nic_gbps: int = 400
    cooling: str = "air"
    liquid_heat_share: float = 0.0
    """Share of the node's heat taken by direct liquid cooling [fraction]; the rest goes to room air."""
    chassis_price_key: str = "node_chassis"
    """Price key of the HGX server's chassis; empty for a rack-scale system (its rack price includes it)."""

    @property
    def scaleout_nics_per_node(self) -> int:
        """Back-end (scale-out) NICs per node [count]: one per GPU on HGX, 72 per NVL72 rack."""
        return self.compute_trays * self.scaleout_nics_per_tray

    @property
    def bmc_ports_per_node(self) -> int:
        """Out-of-band (BMC) ports per node [count]: one per HGX server; one per compute and switch tray of NVL72."""
        return self.compute_trays + self.switch_trays

    @property
    def nvlink_domain_gpus(self) -> int:
        """GPUs joined by NVLink [count]: the server (8) or the rack (72)."""
        return self.gpus_per_node

    @property
    def tray_max_power_kw(self) -> float:
        """Node power per compute tray, switch trays apportioned [kW]; the server's power for HGX."""
        return self.node_max_power_kw / self.compute_trays

    @property
    def liquid_cooled(self) -> bool:
        """Whether the platform needs direct liquid cooling (a CDU and facility water)."""
        return self.cooling == "liquid"


def _read_csv(path: Path) -> list[tuple[int, dict[str, str]]]:
    """Non-blank rows of a CSV file with the physical line each ends on (1 = header)."""
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            rows = []
            for raw in reader:
                extra = raw.pop(None, None)
                if extra and any((v or "").strip() for v in extra):
                    raise PriceBookError(f"{path.name} line {reader.line_num}: more fields than columns")
                if any((v or "").strip() for v in raw.values()):
                    rows.append((reader.line_num, raw))
    except UnicodeDecodeError as exc:
        raise PriceBookError(f"{path.name}: not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None
    return rows


def _parse_price(raw: dict[str, str], file: str, line: int) -> Price:
    missing = [c for c in PRICE_COLUMNS if not (raw.get(c) or "").strip()]
    if missing:
        raise PriceBookError(f"{file} line {line}: column {missing[0]!r} is empty")
    try:
        price = float(raw["price_usd"])
    except ValueError:
        raise PriceBookError(f"{file} line {line}: price_usd is not a number: {raw['price_usd']!r}") from None
    if not math.isfinite(price) or price < 0:
        raise PriceBookError(f"{file} line {line}: price_usd must be a finite number ≥ 0, got {price}")
    if not _DATE.match(raw["date"].strip()):
        raise PriceBookError(f"{file} line {line}: date must be YYYY-MM or YYYY-MM-DD, got {raw['date']!r}")
    if raw["basis"] not in BASES:
        raise PriceBookError(f"{file} line {line}: basis must be one of {BASES}, got {raw['basis']!r}")
    return Price(
        key=raw["key"].strip(),
        category=raw["category"].strip(),
        description=raw["description"].strip(),
        unit=raw["unit"].strip(),
        price_usd=price,
        date=raw["date"].strip(),
        source=raw["source"].strip(),
        basis=raw["basis"].strip(),
        file=file,
    )


def _read_folder(folder: Path, label: str) -> dict[str, Price]:
    """Rows of every ``*.csv`` of ``folder``; a key must be unique within the folder. ``label`` prefixes file names."""
    rows: dict[str, Price] = {}
    for path in sorted(folder.glob("*.csv")):
        name = f"{label}{path.name}"
        for i, raw in _read_csv(path):
            price = _parse_price(raw, name, i)
            if price.key in rows:
                raise PriceBookError(f"{name} line {i}: key {price.key!r} already defined in {rows[price.key].file}")
            rows[price.key] = price
    return rows


def book_folders(prices_dir: Path = PRICES_DIR) -> list[str]:
    """Dated override folders (``YYYY-MM``) of ``prices_dir``, oldest first."""
    return sorted(p.name for p in prices_dir.iterdir() if p.is_dir() and _BOOK_FOLDER.match(p.name))


def read_price_book(prices_dir: Path = PRICES_DIR, as_of: str = BASE_BOOK_DATE) -> PriceBook:
    """The book as of ``as_of`` (``YYYY-MM``): every ``*.csv`` of ``prices_dir``, then each dated folder ≤ ``as_of``.

    A dated folder's row replaces the base row of the same key or adds a new key; within one folder keys are unique.
    """
    if not _BOOK_FOLDER.match(as_of):
        raise PriceBookError(f"prices_as_of must be YYYY-MM, got {as_of!r}")
    if as_of < BASE_BOOK_DATE:
        raise PriceBookError(f"prices_as_of must be {BASE_BOOK_DATE} or later (the base book), got {as_of!r}")
    rows = _read_folder(prices_dir, "")
    if not rows:
        raise PriceBookError(f"no prices found in {prices_dir}")
    for folder in book_folders(prices_dir):
        if folder <= as_of:
            rows.update(_read_folder(prices_dir / folder, f"{folder}/"))
    return PriceBook(rows, as_of=as_of)


@dataclass(frozen=True)
class Assumption:
    """A non-price default about the world (a rate, a share, a duration), keyed by its scenario field.

    ``key`` is the field's path in the scenario (``facility.pue``); ``value`` is in ``unit``.
    """

    key: str
    description: str
    unit: str
    value: float
    date: str
    source: str
    basis: str


def read_assumptions(path: Path = ASSUMPTIONS_FILE) -> dict[str, Assumption]:
    """Read ``data/assumptions.csv`` (columns as :data:`ASSUMPTION_COLUMNS`), keyed by scenario field path."""
    out: dict[str, Assumption] = {}
    for line, raw in _read_csv(path):
        missing = [c for c in ASSUMPTION_COLUMNS if not (raw.get(c) or "").strip()]
        if missing:
            raise PriceBookError(f"{path.name} line {line}: column {missing[0]!r} is empty")
        row = {c: raw[c].strip() for c in ASSUMPTION_COLUMNS}
        try:
            value = float(row["value"])
        except ValueError:
            raise PriceBookError(f"{path.name} line {line}: value is not a number: {row['value']!r}") from None
        if not math.isfinite(value):
            raise PriceBookError(f"{path.name} line {line}: value must be finite, got {row['value']!r}")
        if not _DATE.match(row["date"]):
            raise PriceBookError(f"{path.name} line {line}: date must be YYYY-MM or YYYY-MM-DD, got {row['date']!r}")
        if row["basis"] not in BASES:
            raise PriceBookError(f"{path.name} line {line}: basis must be one of {BASES}, got {row['basis']!r}")
        if row["key"] in out:
            raise PriceBookError(f"{path.name} line {line}: key {row['key']!r} defined twice")
        out[row["key"]] = Assumption(
            row["key"], row["description"], row["unit"], value, row["date"], row["source"], row["basis"]
        )
    return out


@lru_cache(maxsize=1)
def default_assumptions() -> dict[str, Assumption]:
    """The shipped assumptions of ``data/assumptions.csv`` (cached; treat as read-only)."""
    return read_assumptions()


def assumed(key: str) -> float:
    """The shipped value of assumption ``key`` (a scenario field path such as ``facility.pue``)."""
    try:
        return default_assumptions()[key].value
    except KeyError:
        raise PriceBookError(f"{ASSUMPTIONS_FILE.name} has no key {key!r}") from None


def assumed_count(key: str) -> int:
    """:func:`assumed` for a whole-number field (months, days); a fractional value in the file is an error."""
    value = assumed(key)
    if not value.is_integer():
        raise PriceBookError(f"{ASSUMPTIONS_FILE.name}: {key} must be a whole number, got {value:g}")
    return int(value)


def _platform(raw: dict[str, str], line: int, file: str) -> Platform:
    try:
        p = Platform(
            key=raw["key"].strip(),
            name=raw["name"].strip(),
            gpus_per_node=int(raw["gpus_per_node"]),
            gpu_memory_gb=int(raw["gpu_memory_gb"]),
            gpu_power_w=float(raw["gpu_power_w"]),
            node_max_power_kw=float(raw["node_max_power_kw"]),
            baseboard_price_key=raw["baseboard_price_key"].strip(),
            date=raw["date"].strip(),
            source=raw["source"].strip(),
            rack_scale=raw["rack_scale"].strip().lower() == "true",
            compute_trays=int(raw["compute_trays"]),
            gpus_per_tray=int(raw["gpus_per_tray"]),
            switch_trays=int(raw["switch_trays"]),
            scaleout_nics_per_tray=int(raw["scaleout_nics_per_tray"]),
            scaleout_nic_gbps=int(raw["scaleout_nic_gbps"]),
            cooling=raw["cooling"].strip(),
            liquid_heat_share=float(raw["liquid_heat_share"]),
            chassis_price_key=(raw.get("chassis_price_key") or "").strip(),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise PriceBookError(f"{file} line {line}: bad or missing value ({exc})") from None
    if raw["rack_scale"].strip().lower() not in ("true", "false"):
        raise PriceBookError(f"{file} line {line}: rack_scale must be true or false, got {raw['rack_scale']!r}")
    if p.compute_trays * p.gpus_per_tray != p.gpus_per_node:
        raise PriceBookError(f"{file} line {line}: compute_trays × gpus_per_tray must equal gpus_per_node")
    if p.cooling not in COOLING or not 0 <= p.liquid_heat_share <= 1:
        raise PriceBookError(f"{file} line {line}: cooling must be air or liquid with liquid_heat_share in [0, 1]")
    if (p.cooling == "air") != (p.liquid_heat_share == 0):
        raise PriceBookError(f"{file} line {line}: liquid_heat_share must be 0 exactly when cooling is air")
    if min(p.gpus_per_node, p.compute_trays, p.scaleout_nics_per_tray, p.scaleout_nic_gbps) < 1 or p.switch_trays < 0:
        raise PriceBookError(f"{file} line {line}: counts must be ≥ 1 (switch_trays ≥ 0)")
    if bool(p.chassis_price_key) == p.rack_scale:
        raise PriceBookError(f"{file} line {line}: chassis_price_key must be set for HGX servers, empty for rack-scale")
    if not (math.isfinite(p.node_max_power_kw) and p.node_max_power_kw > 0):
        raise PriceBookError(f"{file} line {line}: node_max_power_kw must be > 0")
    return p


def read_platforms(path: Path = PLATFORMS_FILE) -> dict[str, Platform]:
    """Read the GPU platform catalogue, keyed by platform key (e.g. ``h100-sxm``, ``gb200-nvl72``)."""
    out = {}
    for line, raw in _read_csv(path):
        p = _platform(raw, line, path.name)
        out[p.key] = p
    return out


@dataclass(frozen=True)
class Rental:
    """A reference rental price of one platform's GPU-hour [USD per GPU-hour], dated and sourced."""

    platform: str
    usd_per_gpu_hour: float
    date: str
    source: str
    basis: str


def read_rentals(path: Path = RENTAL_FILE) -> dict[str, Rental]:
    """Reference rental prices by platform key (``data/rental_prices.csv``)."""
    out: dict[str, Rental] = {}
    for line, raw in _read_csv(path):
        try:
            r = Rental(
                raw["platform"].strip(),
                float(raw["usd_per_gpu_hour"]),
                raw["date"].strip(),
                raw["source"].strip(),
                raw["basis"].strip(),
            )
        except (KeyError, ValueError, AttributeError) as exc:
            raise PriceBookError(f"{path.name} line {line}: bad or missing value ({exc})") from None
        if not _DATE.match(r.date) or r.basis not in BASES or not r.source or r.usd_per_gpu_hour <= 0:
            raise PriceBookError(f"{path.name} line {line}: needs a price > 0, a YYYY-MM date, a source and a basis")
        out[r.platform] = r
    return out


@lru_cache(maxsize=1)
def default_rentals() -> dict[str, Rental]:
    """The shipped reference rental prices (cached; treat as read-only)."""
    return read_rentals()


def months_apart(a: str, b: str) -> int:
    """Whole months between two ``YYYY-MM[-DD]`` dates (days ignored) [months, ≥ 0]."""
    ya, ma = int(a[:4]), int(a[5:7])
    yb, mb = int(b[:4]), int(b[5:7])
    return abs((ya - yb) * 12 + ma - mb)


@lru_cache(maxsize=len(BOOK_DATES) + 1)
def price_book(as_of: str = BASE_BOOK_DATE) -> PriceBook:
    """The shipped price book as of ``as_of`` (one of :data:`BOOK_DATES`; cached, treat as read-only)."""
    return read_price_book(PRICES_DIR, as_of)


def book_differences(old: PriceBook, new: PriceBook) -> list[tuple[str, float | None, Price]]:
    """Rows of ``new`` whose default price differs from ``old`` or that ``old`` lacks: (key, old price or None,
    new row), in key order. Overrides are ignored (this compares the books, not a scenario)."""
    out = []
    for key in sorted(new.rows):
        row = new.rows[key]
        before = old.rows[key].price_usd if key in old.rows else None
        if before != row.price_usd:
            out.append((key, before, row))
    return out


def default_price_book() -> PriceBook:
    """The shipped base book, 2024-10 (cached; treat as read-only)."""
    return price_book(BASE_BOOK_DATE)


@lru_cache(maxsize=1)
def default_platforms() -> dict[str, Platform]:
    """The shipped GPU platform catalogue (cached; treat as read-only)."""
    return read_platforms()
