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
baseboard (or rack-system) price is a price-book key. Rental prices per platform
and contract (on demand, 1- and 3-year reserved, spot), dated, with the range their
sources span, are in ``data/rental_contracts.csv`` (:func:`rental_contracts`; the
on-demand rows are each platform's reference price, :func:`default_rentals`); the
yearly fall of the on-demand price of each GPU generation by year of age is in
``data/price_curves.csv`` (:func:`price_curves`).

**The market is dated like the book** (a scenario is of one vintage: its hardware, the rents it can sign and the
price curve it expects are all as of ``prices_as_of``). ``data/rental_contracts.csv`` and ``data/price_curves.csv``
are the market of the newest book (:data:`BOOK_DATES`' last); a folder ``data/markets/YYYY-MM/`` holds the same two
files as the market stood at an older book date, each row dated no later than the folder and its curve rows beyond
that date forecasts of the time (:func:`market_dir`). A platform the market of a date does not rent (no B200 rents
in 2024-10) takes the nearest market that does (:func:`rental_market`, :func:`curve_market`), which
:func:`neoplan.model.rental_date_warning` then reports.

Assumptions that are not prices (colocation and power prices, PUE, staff
cost, rates, durations) are rows of ``data/assumptions.csv``, in the same
style and keyed by the scenario field whose default they are::

    key, description, unit, value, date, source, basis

Each file is read through its row model (:class:`Price`, :class:`Platform`, :class:`Assumption`,
:class:`RentalContract`, :class:`CurveRow`; :mod:`neoplan.inputs.datafile` has the rules); a broken file raises
:class:`~neoplan.errors.DataError` naming the file, row and column. :class:`PriceBookError` is for lookups and price
overrides.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field, model_validator

from ..errors import DataError
from .datafile import BASES as BASES  # the bases a data row may have (re-exported)
from .datafile import DATA_DIR as DATA_DIR  # one data folder (installed wheel or checkout), re-exported
from .datafile import Basis, DataDate, DataRow, SourcedRow, column_error, keyed, read_numbered

PRICES_DIR = DATA_DIR / "prices"
PLATFORMS_FILE = DATA_DIR / "gpu_platforms.csv"
ASSUMPTIONS_FILE = DATA_DIR / "assumptions.csv"
CONTRACTS_FILE = DATA_DIR / "rental_contracts.csv"
CURVES_FILE = DATA_DIR / "price_curves.csv"
MARKETS_DIR = DATA_DIR / "markets"
"""Older markets: ``data/markets/YYYY-MM/`` with a ``rental_contracts.csv`` and a ``price_curves.csv`` each (and a
``price_steps.csv`` where that market foresaw a launch step)."""
STEPS_FILE = DATA_DIR / "price_steps.csv"

BASE_BOOK_DATE = "2024-10"
"""Date of the base book ``data/prices/*.csv`` (SemiAnalysis AI Neocloud Playbook, 2024-10-03)."""
BOOK_DATES = ("2024-10", "2026-11")
"""Dates a scenario may price its hardware at (``Scenario.prices_as_of``); each later one is a folder of overrides."""
LATEST_BOOK_DATE = BOOK_DATES[-1]
"""The newest book: the top-level market tables (``data/rental_contracts.csv``, ``data/price_curves.csv``) are its."""
_BOOK_FOLDER = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
Cooling = Literal["air", "liquid"]
COOLING: tuple[str, ...] = get_args(Cooling)
MAX_UNIT_PRICE_USD = 10_000_000
"""Highest price override a user may set [USD per unit]; the dearest book item (a switch chassis) is ~$1.2 M."""


class PriceBookError(ValueError):
    """A price lookup or a price override is invalid (a broken price file is a :class:`~neoplan.errors.DataError`)."""


class Price(DataRow):
    """One priced item of ``data/prices/**.csv``. ``price_usd`` is per ``unit``."""

    not_columns = ("file",)
    key: str
    category: str
    description: str
    unit: str
    price_usd: float = Field(ge=0)
    date: DataDate
    source: str
    basis: Basis
    file: str = ""
    """The file the row comes from, relative to ``data/prices/`` (``compute.csv``, ``2026-11/compute.csv``)."""


PRICE_COLUMNS = Price.columns()


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


class Platform(DataRow):
    """A GPU platform of ``data/gpu_platforms.csv``. A *node* is what ``cluster.gpus_per_node`` counts: an 8-GPU
    HGX server, or for a rack-scale platform (GB200/GB300 NVL72) the whole rack: 18 compute trays × 4 GPUs + 9
    NVLink switch trays.

    ``node_max_power_kw`` is per node (the whole rack for NVL72); ``baseboard_price_key`` prices the HGX
    baseboard or the whole rack system (trays, NVLink switches and spine, power shelves, manifolds).
    """

    key: str
    name: str
    gpus_per_node: int = Field(ge=1)
    gpu_memory_gb: int = Field(gt=0)
    gpu_power_w: float = Field(gt=0)
    node_max_power_kw: float = Field(gt=0)
    baseboard_price_key: str
    date: DataDate
    source: str
    rack_scale: bool
    compute_trays: int = Field(ge=1)
    gpus_per_tray: int = Field(ge=1)
    switch_trays: int = Field(ge=0)
    scaleout_nics_per_tray: int = Field(ge=1)
    scaleout_nic_gbps: int = Field(ge=1)
    cooling: Cooling
    liquid_heat_share: float = Field(ge=0, le=1)
    """Share of the node's heat taken by direct liquid cooling [fraction]; the rest goes to room air."""
    chassis_price_key: str = ""
    """Price key of the HGX server's chassis; blank for a rack-scale system (its rack price includes it)."""

    @model_validator(mode="after")
    def _consistent(self) -> Platform:
        if self.compute_trays * self.gpus_per_tray != self.gpus_per_node:
            problem = "compute_trays × gpus_per_tray must equal gpus_per_node"
            raise column_error("gpus_per_tray", problem, self.gpus_per_tray)
        if (self.cooling == "air") != (self.liquid_heat_share == 0):
            problem = f"must be 0 exactly when cooling is air (cooling is {self.cooling})"
            raise column_error("liquid_heat_share", problem, self.liquid_heat_share)
        if bool(self.chassis_price_key) == self.rack_scale:
            problem = "must be set for an HGX server and blank for a rack-scale system"
            raise column_error("chassis_price_key", problem, self.chassis_price_key)
        return self

    @property
    def short_name(self) -> str:
        """The name without its parenthesis (``NVIDIA GB200 NVL72 rack``): what a narrow field shows whole."""
        return self.name.split(" (")[0]

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


def _read_folder(folder: Path, label: str) -> dict[str, Price]:
    """Rows of every ``*.csv`` of ``folder``; a key must be unique within the folder. ``label`` prefixes file names."""
    rows: dict[str, Price] = {}
    where: dict[str, int] = {}
    for path in sorted(folder.glob("*.csv")):
        name = f"{label}{path.name}"
        for row, price in read_numbered(path, Price, name, {"file": name}):
            if price.key in rows:
                first = f"{rows[price.key].file} row {where[price.key]}"
                raise DataError(name, f"key {price.key!r} already defined in {first}", row=row, column="key")
            rows[price.key], where[price.key] = price, row
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
        raise DataError(str(prices_dir), "no prices found (no *.csv with rows)")
    for folder in book_folders(prices_dir):
        if folder <= as_of:
            rows.update(_read_folder(prices_dir / folder, f"{folder}/"))
    return PriceBook(rows, as_of=as_of)


class Assumption(DataRow):
    """A non-price default about the world (a rate, a share, a duration), keyed by its scenario field.

    ``key`` is the field's path in the scenario (``facility.pue``); ``value`` is in ``unit``. The rows of
    ``data/operations.csv`` have the same columns.
    """

    key: str
    description: str
    unit: str
    value: float
    date: DataDate
    source: str
    basis: Basis


ASSUMPTION_COLUMNS = Assumption.columns()


def read_assumptions(path: Path = ASSUMPTIONS_FILE) -> dict[str, Assumption]:
    """Read ``data/assumptions.csv`` (columns as :data:`ASSUMPTION_COLUMNS`), keyed by scenario field path."""
    return keyed(read_numbered(path, Assumption), path.name)


@lru_cache(maxsize=1)  # keyed on nothing: the shipped data/assumptions.csv, read once (read-only data)
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


def read_platforms(path: Path = PLATFORMS_FILE) -> dict[str, Platform]:
    """Read the GPU platform catalogue, keyed by platform key (e.g. ``h100-sxm``, ``gb200-nvl72``)."""
    return keyed(read_numbered(path, Platform), path.name)


Contract = Literal["on_demand", "reserved_1y", "reserved_3y", "reserved_5y", "spot"]
CONTRACT_TERMS: dict[str, int] = {"on_demand": 0, "reserved_1y": 12, "reserved_3y": 36, "reserved_5y": 60, "spot": 0}
"""Term of each contract type [months]; 0 = no commitment."""
CONTRACT_LABELS: dict[str, str] = {
    "on_demand": "On demand",
    "reserved_1y": "Reserved, 1 year",
    "reserved_3y": "Reserved, 3 years",
    "reserved_5y": "Take-or-pay, 5 years",
    "spot": "Spot",
}
"""How each contract type reads on a page or in a report."""


class RentalContract(SourcedRow):
    """A rental price of one platform under one contract [USD per GPU-hour], with the range its sources span.

    ``term_months`` is the take-or-pay term (:data:`CONTRACT_TERMS`); ``low``/``high`` bound the value.
    """

    platform: str
    contract: Contract
    term_months: int = Field(ge=0)
    usd_per_gpu_hour: float = Field(gt=0)
    low_usd_per_gpu_hour: float = Field(gt=0)
    high_usd_per_gpu_hour: float = Field(gt=0)

    @model_validator(mode="after")
    def _consistent(self) -> RentalContract:
        if self.term_months != CONTRACT_TERMS[self.contract]:
            problem = f"must be {CONTRACT_TERMS[self.contract]} for a {self.contract} contract"
            raise column_error("term_months", problem, self.term_months)
        if not self.low_usd_per_gpu_hour <= self.usd_per_gpu_hour <= self.high_usd_per_gpu_hour:
            problem = "must be ≤ usd_per_gpu_hour ≤ high_usd_per_gpu_hour"
            raise column_error("low_usd_per_gpu_hour", problem, self.low_usd_per_gpu_hour)
        return self


def read_rental_contracts(
    path: Path = CONTRACTS_FILE, name: str | None = None
) -> dict[tuple[str, str], RentalContract]:
    """Rental prices by (platform key, contract) from ``data/rental_contracts.csv`` (or ``path``, named ``name`` in
    errors); a pair on two rows is an error."""
    name = name or path.name
    out: dict[tuple[str, str], RentalContract] = {}
    for row, item in read_numbered(path, RentalContract, name):
        key = (item.platform, item.contract)
        if key in out:
            raise DataError(name, f"{item.platform} {item.contract} appears twice", row=row, column="contract")
        out[key] = item
    return out


def market_dir(as_of: str) -> Path:
    """The folder of the market as of book date ``as_of``: ``data/markets/<as_of>/`` when there is one, else
    ``data/`` (the newest market)."""
    folder = MARKETS_DIR / as_of
    return folder if folder.is_dir() else DATA_DIR


def _market_file(as_of: str, path: Path) -> tuple[Path, str]:
    """(the market file of ``as_of`` named like ``path``, its name relative to ``data/`` for errors)."""
    folder = market_dir(as_of)
    name = path.name if folder == DATA_DIR else f"markets/{as_of}/{path.name}"
    return folder / path.name, name


@lru_cache(maxsize=len(BOOK_DATES) + 1)  # keyed on a book date: the shipped, read-only market files
def rental_contracts(as_of: str = LATEST_BOOK_DATE) -> dict[tuple[str, str], RentalContract]:
    """The shipped rental contracts of the market as of ``as_of`` (default: the newest; cached, treat as
    read-only)."""
    return read_rental_contracts(*_market_file(as_of, CONTRACTS_FILE))


@lru_cache(maxsize=64)  # keyed on a date string: a pure function of it and the shipped BOOK_DATES
def _nearest_first(as_of: str) -> tuple[str, ...]:
    """The book dates, ``as_of`` first, then by distance in months (the older first on a tie)."""
    return tuple(sorted(BOOK_DATES, key=lambda d: (d != as_of, months_apart(d, as_of), d)))


@lru_cache(maxsize=256)  # keyed on (platform, date) strings over the shipped, read-only market files
def rental_market(platform: str, as_of: str) -> str:
    """The book date whose market rents ``platform`` for a scenario priced as of ``as_of``: ``as_of`` when its market
    has the platform's on-demand row, else the nearest market that has (``as_of`` when none has)."""
    for date in _nearest_first(as_of):
        if (platform, "on_demand") in rental_contracts(date):
            return date
    return as_of


def default_rentals(as_of: str = LATEST_BOOK_DATE) -> dict[str, RentalContract]:
    """Each platform's reference rental price as of ``as_of``: its on-demand row of the market of that date (a
    platform that market does not rent: the nearest market's, :func:`rental_market`), by platform key."""
    out = {}
    for platform in {p for (p, _) in rental_contracts(as_of)} | {p for (p, _) in rental_contracts()}:
        out[platform] = rental_contracts(rental_market(platform, as_of))[(platform, "on_demand")]
    return out


class CurveRow(SourcedRow):
    """The fall of one GPU generation's on-demand rental price in one year of its age [fraction; < 0 a rise].

    ``first_year`` is the generation's first calendar year of volume cloud supply; the row of ``age_year`` a covers
    calendar year ``first_year + a`` (its ``period`` names the two years whose prices it compares).
    """

    generation: str
    platforms: str
    first_year: int = Field(ge=2000, le=2100)
    age_year: int = Field(ge=1)
    period: str
    decline_per_year: float = Field(ge=-1, lt=1)
    low_decline_per_year: float = Field(ge=-1, lt=1)
    high_decline_per_year: float = Field(ge=-1, lt=1)

    @model_validator(mode="after")
    def _consistent(self) -> CurveRow:
        if not self.low_decline_per_year <= self.decline_per_year <= self.high_decline_per_year:
            problem = "must be ≤ decline_per_year ≤ high_decline_per_year"
            raise column_error("low_decline_per_year", problem, self.low_decline_per_year)
        years = f"{self.first_year + self.age_year - 1}-{self.first_year + self.age_year}"
        if self.period not in ("forward", years):
            problem = f"must be 'forward' or {years!r} (the year before and the year of first_year + age_year)"
            raise column_error("period", problem, self.period)
        return self

    @property
    def platform_keys(self) -> tuple[str, ...]:
        """The ``data/gpu_platforms.csv`` keys the curve applies to."""
        return tuple(p.strip() for p in self.platforms.split(";") if p.strip())


class StepRow(SourcedRow):
    """The fall of one generation's rents when the next generation reaches the clouds in volume
    (``data/price_steps.csv``): a step on ``volume_month``, on top of the curve's yearly declines [fraction]."""

    generation: str
    next_generation: str
    volume_month: DataDate
    step_decline: float = Field(ge=0, lt=1)
    low_step_decline: float = Field(ge=0, lt=1)
    high_step_decline: float = Field(ge=0, lt=1)

    @model_validator(mode="after")
    def _consistent(self) -> StepRow:
        if not self.low_step_decline <= self.step_decline <= self.high_step_decline:
            problem = "must be ≤ step_decline ≤ high_step_decline"
            raise column_error("low_step_decline", problem, self.low_step_decline)
        return self

    def at_age(self, first_year: int) -> float:
        """The step's date as the generation's age [years since 1 January of ``first_year``]."""
        return int(self.volume_month[:4]) - first_year + (int(self.volume_month[5:7]) - 1) / 12


STEP_COLUMNS = {
    "decline_per_year": "step_decline",
    "low_decline_per_year": "low_step_decline",
    "high_decline_per_year": "high_step_decline",
}
"""The step column that goes with each curve column (central, low, high)."""


@dataclass(frozen=True)
class Curve:
    """One generation's decline curve: rows by year of age 1 … N (:class:`CurveRow`) and the steps of the next
    generations' launches (:class:`StepRow`)."""

    generation: str
    first_year: int
    rows: tuple[CurveRow, ...]
    steps: tuple[StepRow, ...] = ()

    def declines(self, column: str = "decline_per_year") -> tuple[float, ...]:
        """The yearly declines by age 1 … N of ``column`` (``decline_per_year``, ``low_…`` or ``high_…``)."""
        return tuple(float(getattr(row, column)) for row in self.rows)

    def step_declines(self, column: str = "decline_per_year") -> tuple[tuple[float, float], ...]:
        """(age [years], fall [fraction]) of each launch step, of the step column matching curve ``column``."""
        return tuple((s.at_age(self.first_year), float(getattr(s, STEP_COLUMNS[column]))) for s in self.steps)


def read_price_steps(path: Path = STEPS_FILE, name: str | None = None) -> dict[str, tuple[StepRow, ...]]:
    """Launch steps by generation from ``data/price_steps.csv`` (or ``path``, named ``name`` in errors), in date
    order; none when the file does not exist (a market that foresaw no step)."""
    if not path.exists():
        return {}
    out: dict[str, list[StepRow]] = {}
    for _, item in read_numbered(path, StepRow, name or path.name):
        out.setdefault(item.generation, []).append(item)
    return {g: tuple(sorted(rows, key=lambda r: r.volume_month)) for g, rows in out.items()}


def read_price_curves(
    path: Path = CURVES_FILE, name: str | None = None, steps_path: Path = STEPS_FILE
) -> dict[str, Curve]:
    """Decline curves by platform key from ``data/price_curves.csv`` (or ``path``, named ``name`` in errors): each
    generation's ages 1 … N without a gap, one first year per generation, each platform on one curve; with the
    launch steps of ``steps_path`` (``data/price_steps.csv``; none if it does not exist). A step of a generation with
    no curve is a DataError."""
    name = name or path.name
    steps = read_price_steps(steps_path, name.replace(CURVES_FILE.name, STEPS_FILE.name))
    by_generation: dict[str, list[tuple[int, CurveRow]]] = {}
    for row, item in read_numbered(path, CurveRow, name):
        by_generation.setdefault(item.generation, []).append((row, item))
    out: dict[str, Curve] = {}
    for generation, numbered in by_generation.items():
        rows = sorted((item for _, item in numbered), key=lambda r: r.age_year)
        last_row = numbered[-1][0]
        if [r.age_year for r in rows] != list(range(1, len(rows) + 1)):
            raise DataError(name, f"{generation}: age_year must run 1, 2, … without a gap", row=last_row)
        if len({(r.first_year, r.platforms) for r in rows}) > 1:
            raise DataError(name, f"{generation}: first_year and platforms must be the same on every row", row=last_row)
        curve = Curve(generation, rows[0].first_year, tuple(rows), steps.get(generation, ()))
        for platform in rows[0].platform_keys:
            if platform in out:
                raise DataError(name, f"platform {platform!r} is on two curves", row=last_row, column="platforms")
            out[platform] = curve
    unknown = sorted(set(steps) - set(by_generation))
    if unknown:
        steps_name = name.replace(CURVES_FILE.name, STEPS_FILE.name)
        raise DataError(steps_name, f"generation {unknown[0]!r} has no curve in {name}", column="generation")
    return out


@lru_cache(maxsize=len(BOOK_DATES) + 1)  # keyed on a book date: the shipped, read-only market files
def price_curves(as_of: str = LATEST_BOOK_DATE) -> dict[str, Curve]:
    """The shipped decline curves by platform key of the market as of ``as_of`` (default: the newest; cached, treat
    as read-only)."""
    return read_price_curves(*_market_file(as_of, CURVES_FILE), steps_path=_market_file(as_of, STEPS_FILE)[0])


@lru_cache(maxsize=256)  # keyed on (platform, date) strings over the shipped, read-only curve files
def curve_market(platform: str, as_of: str) -> str:
    """The book date whose market has a price curve for ``platform`` for a scenario priced as of ``as_of`` (as
    :func:`rental_market`)."""
    for date in _nearest_first(as_of):
        if platform in price_curves(date):
            return date
    return as_of


def months_apart(a: str, b: str) -> int:
    """Whole months between two ``YYYY-MM[-DD]`` dates (days ignored) [months, ≥ 0]."""
    ya, ma = int(a[:4]), int(a[5:7])
    yb, mb = int(b[:4]), int(b[5:7])
    return abs((ya - yb) * 12 + ma - mb)


@lru_cache(maxsize=len(BOOK_DATES) + 1)  # keyed on a shipped book date: the CSVs of data/prices/, read once
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


@lru_cache(maxsize=1)  # keyed on nothing: the shipped data/gpu_platforms.csv, read once (read-only data)
def default_platforms() -> dict[str, Platform]:
    """The shipped GPU platform catalogue (cached; treat as read-only)."""
    return read_platforms()
