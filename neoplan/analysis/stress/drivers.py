"""The stress drivers (``data/stress_drivers.csv``), their ranges and distributions, and the engine runs every tool
shares (in chunks of ``MC_CHUNK`` cases). See :mod:`neoplan.analysis.stress` for the conventions."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
from annotated_types import Ge, Gt, Le, Lt
from pydantic import Field, ValidationInfo, field_validator

from ...economics import inference, market, residual, revenue
from ...errors import DataError, ScenarioError
from ...finance.engine import Drivers
from ...inputs.datafile import DATA_DIR, SourcedRow, read_rows
from ...inputs.scenario import Scenario, field_of
from ...model import Result

Distribution = Literal["fixed", "triangular", "uniform", "normal", "lognormal"]
DISTRIBUTIONS: tuple[Distribution, ...] = ("triangular", "uniform", "normal", "lognormal", "fixed")
Z90 = 1.2815515655446004
"""The standard normal's 90th percentile: P10 and P90 lie ``Z90`` standard deviations from the median."""
METRICS = ("equity_irr", "project_irr", "npv_usd", "payback_months", "min_dscr", "equity_moic")
"""Outputs of every case [fractions per year, USD, months, ratios]."""
METRIC_LABELS = {
    "equity_irr": "equity IRR",
    "project_irr": "project IRR",
    "npv_usd": "NPV",
    "payback_months": "payback",
    "min_dscr": "minimum DSCR",
    "equity_moic": "equity MOIC",
}
WORST_LOW = ("equity_irr", "project_irr", "npv_usd", "equity_moic")
"""Metrics whose undefined value (nan) ranks as the lowest; for the others (payback, DSCR) it ranks highest."""
DEFAULT_DRAWS = 10_000
MAX_DRAWS = 1_000_000
MIN_DRAWS = 10
MC_CHUNK = 1_000
"""Cases per engine call in the Monte Carlo and the grid: keeps the (cases × months) arrays small enough for the
CPU cache, and the memory of any run bounded (~40 MB a chunk) whatever its number of cases."""
MAX_GRID_POINTS = 201
"""Most values on one axis of a two-way grid (201 × 201 = 40,401 cases) [count]."""
MAX_SOLVER_POINTS = 201
MAX_SOLVER_ROUNDS = 20
MC_WORKERS = min(4, os.cpu_count() or 1)
"""Threads running Monte Carlo chunks side by side (NumPy releases the GIL inside its array loops)."""
DEFAULT_COVENANT_DSCR = 1.20
"""A common lock-up covenant on project loans [ratio]: distributions stop below 1.20× DSCR."""
DEFAULT_TARGET_EQUITY_IRR = 0.20
"""Target equity IRR for the price solver [per year]: a typical venture-debt-backed equity hurdle."""
MIN_DEBT_SHARE = 0.001
"""Smallest debt share the debt solver tries [fraction]; below it DSCR is that of any small loan."""


# --- drivers ---------------------------------------------------------------------------------------

DRIVERS_FILE = DATA_DIR / "stress_drivers.csv"
Rule = Literal["scale", "shift", "set", "curve", "market"]
"""How a default range end follows the scenario's value ``b``: ``b × by``, ``b + by``, ``by`` itself, or the low or
high of the range the data spans for this scenario (:func:`_bands`): ``curve`` (the residual value's resale curve,
when the scenario follows it; the token price trend's row) falls back to ``b + by``, ``market`` (price curves,
contracts, token list prices) to ``b × by``."""
BANDED = ("curve", "market")
"""Rules that take the data's band when it has one."""


class DriverSpec(SourcedRow):
    """One stress driver, a row of ``data/stress_drivers.csv``: what it is, where its base value lives, its valid
    range, its default low and high (:meth:`low`, :meth:`high`) and Monte Carlo distribution, why and from where.

    The default low is ``low_rule`` applied to the scenario's value with ``low_by``, then at least ``low_min``; the
    high likewise with ``high_by``, then at most ``high_max`` (both then clipped to :func:`driver_bounds`).
    """

    key: str
    label: str
    unit: str
    path: str | None = None
    """Dotted scenario field holding the base value; None for drivers relative to the design (capex, delay …)."""
    low_rule: Rule
    low_by: float
    low_min: float | None = None
    high_rule: Rule
    high_by: float
    high_max: float | None = None
    bound_low: float | None = None
    bound_high: float | None = None
    """Valid range [unit]; blank = the scenario field's own bounds."""
    distribution: Distribution
    description: str | None = None
    """Help text of a driver without a scenario field (a field's own description is the help text otherwise)."""
    why: str = Field(min_length=20)
    """Why the default low/high are what they are."""

    @field_validator("key")
    @classmethod
    def _a_driver(cls, key: str) -> str:
        if key not in Drivers.__dataclass_fields__:
            raise ValueError(
                f"must be a field of neoplan.finance.engine.Drivers ({', '.join(Drivers.__dataclass_fields__)})"
            )
        return key

    @field_validator("path")
    @classmethod
    def _a_scenario_field(cls, path: str | None) -> str | None:
        try:
            _ = path is None or _field(path)
        except (KeyError, AttributeError):
            raise ValueError("must be a dotted Scenario field such as pricing.utilization") from None
        return path

    @field_validator("bound_high")
    @classmethod
    def _both_bounds(cls, high: float | None, info: ValidationInfo) -> float | None:
        low = info.data.get("bound_low")
        if (low is None) != (high is None) or (low is not None and high is not None and not low < high):
            raise ValueError("bound_low and bound_high: give both, low < high, or neither")
        return high

    @field_validator("description")
    @classmethod
    def _one_help_text(cls, text: str | None, info: ValidationInfo) -> str | None:
        if (info.data.get("path") is None) == (text is None):
            raise ValueError("give a description exactly when path is blank (a field's own description is its help)")
        return text

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The driver's own valid range [unit]; None = the scenario field's bounds (:func:`driver_bounds`)."""
        return None if self.bound_low is None or self.bound_high is None else (self.bound_low, self.bound_high)

    def low(self, base: float, band: tuple[float, float] | None = None) -> float:
        """Default low end around the scenario's value ``base`` [unit], before the bounds clip it; ``band`` is the
        (low, high) of a ``curve`` rule, None when the scenario does not follow a curve."""
        value = band[0] if self.low_rule in BANDED and band is not None else _apply(self.low_rule, self.low_by, base)
        return value if self.low_min is None else max(value, self.low_min)

    def high(self, base: float, band: tuple[float, float] | None = None) -> float:
        """Default high end around the scenario's value ``base`` [unit], before the bounds clip it (``band``: as
        :meth:`low`)."""
        value = band[1] if self.high_rule in BANDED and band is not None else _apply(self.high_rule, self.high_by, base)
        return value if self.high_max is None else min(value, self.high_max)


def _apply(rule: Rule, by: float, base: float) -> float:
    if rule == "market":  # no band: a quoted index keeps its ± rule
        return base * by
    return base * by if rule == "scale" else by if rule == "set" else base + by  # shift, or a curve's fallback


def read_drivers(path: Path = DRIVERS_FILE) -> dict[str, DriverSpec]:
    """The stress drivers of ``data/stress_drivers.csv`` (or ``path``) by key, in file order: one row per field of
    :class:`neoplan.finance.engine.Drivers` (raises DataError naming the file, row and column of a bad cell)."""
    rows = read_rows(path, DriverSpec)
    drivers = {row.key: row for row in rows}
    missing = [k for k in Drivers.__dataclass_fields__ if k not in drivers]
    if len(drivers) < len(rows) or missing:
        what = f"no row for driver {missing[0]!r}" if missing else "a driver appears twice"
        raise DataError(path.name, f"{what} (one row per field of neoplan.finance.engine.Drivers)")
    return drivers


def _field(path: str) -> Any:
    """The pydantic FieldInfo of a dotted Scenario field path."""
    return field_of(path)


DRIVERS = read_drivers()
STRUCTURING = ("debt_share",)
"""Drivers that change the debt fixed at close (its size): the structuring view (two-way grids, the debt solver)
varies them; the tornado leaves them out and the Monte Carlo holds them at the closed value."""
"""The stress drivers (``data/stress_drivers.csv``). Default ranges sit evenly around the scenario's value (the
triangular's mean is the base) unless ``why`` says why not; ``source`` is where the range comes from."""


def driver_bounds(key: str) -> tuple[float, float]:
    """Valid range of a driver [its unit]: the scenario field's bounds, or the driver's own."""
    spec = DRIVERS[key]
    if spec.bounds is not None or spec.path is None:
        return spec.bounds or (-math.inf, math.inf)
    lo, hi = -math.inf, math.inf
    for meta in _field(spec.path).metadata:
        if isinstance(meta, Ge | Gt):
            lo = float(cast(float, meta.ge if isinstance(meta, Ge) else meta.gt))
        if isinstance(meta, Le | Lt):
            hi = float(cast(float, meta.le if isinstance(meta, Le) else meta.lt))
    return lo, hi


def driver_description(key: str) -> str:
    """Help text of a driver: the scenario field's description (the single source), or the driver's own."""
    spec = DRIVERS[key]
    return str(spec.description if spec.path is None else _field(spec.path).description)


def base_values(source: Scenario | Result) -> dict[str, float]:
    """The scenario's value of every driver [driver units]; given a Result, its own drivers (for a loan fixed at
    close, the debt share drawn then: :meth:`neoplan.model.Result.drivers`)."""
    drivers = source.drivers(1) if isinstance(source, Result) else Drivers.of(source)
    return {k: float(getattr(drivers, k)[0]) for k in DRIVERS}


def _scenario(source: Scenario | Result) -> Scenario:
    return source.scenario if isinstance(source, Result) else source


def _bands(scenario: Scenario) -> dict[str, tuple[float, float]]:
    """(low, high) of the drivers with a ``curve`` or ``market`` rule where the data has a range for the scenario:
    the resale curve at the first sale when the scenario follows it (``residual_value_share``); the price curve's
    low and high rows averaged as the driver (``price_decline_per_year``); the contract sources of the reserved term
    (``reserved_price_multiple``); an estimated on-demand row's sources (``usd_per_gpu_hour``; none for a quoted
    index) (:mod:`neoplan.economics.residual`, :mod:`neoplan.economics.market`)."""
    out: dict[str, tuple[float, float]] = {}
    curve = residual.curve_of(scenario)
    if curve is not None:
        out["residual_value_share"] = curve.band_at(residual.first_sale_age_months(scenario))
    go_live = revenue.dates(scenario.timeline).go_live_month
    out["price_decline_per_year"] = market.decline_spread(scenario, go_live)
    out["reserved_price_multiple"] = market.reserved_multiple_range(scenario)
    on_demand = market.on_demand_range(scenario)
    if on_demand is not None:
        out["usd_per_gpu_hour"] = on_demand
    out.update(_token_bands(scenario))
    return out


def _token_bands(scenario: Scenario) -> dict[str, tuple[float, float]]:
    """The token price's and decline's ranges in the data: the hosts' lowest and highest price of the workload's
    request (scaled to a scenario's own price) and the trend row's low and high decline (moved with a scenario's own
    decline) (:mod:`neoplan.economics.inference`)."""
    tokens = inference.terms(scenario, strict=False)
    ref = inference.list_price(scenario)
    reference = inference.blended_usd_per_million(
        ref.usd_per_million_input, ref.usd_per_million_output, tokens.workload
    )
    out: dict[str, tuple[float, float]] = {}
    if ref.hosts and reference > 0:
        low, high = tokens.price_range()
        scale = tokens.usd_per_million_tokens / reference
        out["usd_per_million_tokens"] = (low * scale, high * scale)
    trend = inference.reference_trend(tokens.workload.model_key)
    if trend.low_decline_per_year is not None and trend.high_decline_per_year is not None:
        shift = tokens.decline_per_year - trend.decline_per_year
        out["token_price_decline_per_year"] = (trend.low_decline_per_year + shift, trend.high_decline_per_year + shift)
    return out


@dataclass(frozen=True)
class Range:
    """Low and high value of one driver [its unit] and its Monte Carlo distribution."""

    low: float
    high: float
    distribution: Distribution = "triangular"


def default_ranges(source: Scenario | Result) -> dict[str, Range]:
    """Default low/high of every driver around the scenario's values (:func:`base_values` of ``source``) and its
    distribution (``DRIVERS[…]``)."""
    base, bands = base_values(source), _bands(_scenario(source))
    out = {}
    for key, spec in DRIVERS.items():
        lo, hi = driver_bounds(key)
        low = min(max(spec.low(base[key], bands.get(key)), lo), hi)
        high = min(max(spec.high(base[key], bands.get(key)), lo), hi)
        out[key] = Range(round(low, 6), round(high, 6), spec.distribution)
    return out


def check_ranges(ranges: Mapping[str, Range]) -> None:
    """Raise ScenarioError naming the first driver whose range is unknown, inverted or out of bounds."""
    for key, rng in ranges.items():
        if key not in DRIVERS:
            raise ScenarioError(f"stress driver must be one of {', '.join(DRIVERS)}, got {key!r}")
        label = DRIVERS[key].label
        lo, hi = driver_bounds(key)
        for name, value in (("low", rng.low), ("high", rng.high)):
            if not math.isfinite(value) or not lo <= value <= hi:
                raise ScenarioError(f"{label}: {name} must be between {lo:g} and {hi:g}, got {value!r}")
        if rng.low > rng.high:
            raise ScenarioError(f"{label}: low ({rng.low:g}) must be ≤ high ({rng.high:g})")
        if rng.distribution not in DISTRIBUTIONS:
            raise ScenarioError(
                f"{label}: distribution must be one of {', '.join(DISTRIBUTIONS)}, got {rng.distribution!r}"
            )
        if rng.distribution == "lognormal" and rng.low <= 0:
            raise ScenarioError(f"{label}: a lognormal needs low > 0, got {rng.low:g}")


def _complete(result: Result, ranges: Mapping[str, Range] | None) -> dict[str, Range]:
    """The default ranges of ``result`` with ``ranges`` laid over them, checked."""
    out = {**default_ranges(result), **(ranges or {})}
    check_ranges(out)
    return out


def _run(result: Result, drivers: Drivers, keys: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
    """KPIs (n,) of n cases of ``result``'s design (only ``keys`` if given); impossible driver values (go-live past
    the horizon …) raise ScenarioError where the engine checks them."""
    return result.cases(drivers).kpis(result.scenario.financing.hurdle_rate, keys)


def _run_chunked(
    result: Result,
    n: int,
    chunk: Callable[[int], Drivers],
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    keys: tuple[str, ...] | None = None,
) -> dict[str, np.ndarray]:
    """:func:`_run` over ``n`` cases in chunks of :data:`MC_CHUNK` on ``workers`` threads (default ``MC_WORKERS``),
    joined in order: the same numbers as one call (every case is computed independently), in bounded memory.
    ``chunk(start)`` builds the drivers of cases ``start`` to ``start + MC_CHUNK``; ``progress(done, total)`` is
    called from the calling thread as chunks finish, in order; ``keys``: only those KPIs."""
    starts = range(0, n, MC_CHUNK)
    metrics: dict[str, np.ndarray] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers or MC_WORKERS)) as pool:
        for start, part in zip(starts, pool.map(lambda s: _run(result, chunk(s), keys), starts), strict=True):
            for m, v in part.items():
                metrics.setdefault(m, np.empty(n))[start : start + v.size] = v
            if progress is not None:
                progress(min(start + MC_CHUNK, n), n)
    return metrics


def _axis(name: str, values: Any) -> np.ndarray:
    """Explicit grid values as a 1-D float array of 1 to :data:`MAX_GRID_POINTS` finite numbers (else ScenarioError)."""
    try:
        size = len(values)
    except TypeError:
        raise ScenarioError(f"{name} must be a list of numbers, got {type(values).__name__}") from None
    if not 1 <= size <= MAX_GRID_POINTS:
        raise ScenarioError(f"{name} must hold between 1 and {MAX_GRID_POINTS} values, got {size:,}")
    try:
        axis = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ScenarioError(f"{name} must be a list of numbers") from None
    if axis.ndim != 1 or not np.isfinite(axis).all():
        raise ScenarioError(f"{name} must be a flat list of finite numbers")
    return axis


def _ranked(values: np.ndarray, metric: str) -> np.ndarray:
    """``values`` with undefined entries (nan) replaced by −inf or +inf, where they rank (see module doc)."""
    return np.where(np.isnan(values), -np.inf if metric in WORST_LOW else np.inf, values)


def _clean(value: float) -> float | None:
    """A plain float, or None when undefined or infinite."""
    return float(value) if math.isfinite(value) else None
