"""Price book and GPU platform catalogue, loaded from ``data/``.

Every price the model uses is a row of ``data/prices/*.csv``::

    key, category, description, unit, price_usd, date, source, basis

``basis`` is ``quoted`` (a public price), ``estimate`` (judgement; the source
column says why) or ``fitted`` (set to reproduce a calibration target of
BRIEF.md §5). No price lives in code: the model asks the book by key.

The GPU platform catalogue (``data/gpu_platforms.csv``) holds the physical
facts of each HGX-class platform; its baseboard price is a price-book key.

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

    def __post_init__(self) -> None:
        unknown = sorted(set(self.overrides) - set(self.rows))
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
        return PriceBook(self.rows, dict(overrides))

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
    """An HGX-class GPU platform (one server's GPU board and its power)."""

    key: str
    name: str
    gpus_per_node: int
    gpu_memory_gb: int
    gpu_power_w: float
    node_max_power_kw: float
    baseboard_price_key: str
    date: str
    source: str


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


def read_price_book(prices_dir: Path = PRICES_DIR) -> PriceBook:
    """Read every ``*.csv`` of ``prices_dir`` into one book; keys must be unique."""
    rows: dict[str, Price] = {}
    for path in sorted(prices_dir.glob("*.csv")):
        for i, raw in _read_csv(path):
            price = _parse_price(raw, path.name, i)
            if price.key in rows:
                raise PriceBookError(
                    f"{path.name} line {i}: key {price.key!r} already defined in {rows[price.key].file}"
                )
            rows[price.key] = price
    if not rows:
        raise PriceBookError(f"no prices found in {prices_dir}")
    return PriceBook(rows)


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


def read_platforms(path: Path = PLATFORMS_FILE) -> dict[str, Platform]:
    """Read the GPU platform catalogue, keyed by platform key (e.g. ``h100-sxm``)."""
    out = {}
    for _, raw in _read_csv(path):
        p = Platform(
            key=raw["key"],
            name=raw["name"],
            gpus_per_node=int(raw["gpus_per_node"]),
            gpu_memory_gb=int(raw["gpu_memory_gb"]),
            gpu_power_w=float(raw["gpu_power_w"]),
            node_max_power_kw=float(raw["node_max_power_kw"]),
            baseboard_price_key=raw["baseboard_price_key"],
            date=raw["date"],
            source=raw["source"],
        )
        out[p.key] = p
    return out


@lru_cache(maxsize=1)
def default_price_book() -> PriceBook:
    """The shipped price book (cached; treat as read-only)."""
    return read_price_book()


@lru_cache(maxsize=1)
def default_platforms() -> dict[str, Platform]:
    """The shipped GPU platform catalogue (cached; treat as read-only)."""
    return read_platforms()
