"""Investor stress test: tornado, two-way grids, Monte Carlo and break-even solvers.

Every tool here re-runs the monthly engine of one sized design (:func:`neoplan.engine.run_cases`)
for many cases at once: each case is one set of values of the twenty-three **drivers** below, and the
engine works on arrays of cases × months, never looping over cases. The design itself (BoM,
fabric, site, hence capex) depends on none of the drivers, so it is sized once by ``evaluate``.
With every driver at the scenario's value a case reproduces ``evaluate`` (to rounding: the same code path).

**The loan is fixed at financial close** on the base case (:class:`neoplan.finance.Closing`): a sculpted loan (or one
sized on contracted revenue) keeps its size and repayment profile in every case, as a lender's schedule does, so
a weak case meets the base case's debt service rather than a smaller loan of its own. For such a loan the base
value of the debt share is the share drawn at close (at most ``financing.debt_share``), and a case's debt share is
the share it draws on that profile: :func:`max_debt_share_for_dscr` then finds the largest loan the closing
profile can carry.

Drivers (``DRIVERS``): one row each of ``data/stress_drivers.csv`` (:class:`DriverSpec`), one per field of
:class:`neoplan.engine.Drivers` — price, price decline, utilization, capex multiple, interest rate, debt share,
power price, PUE, colocation price, delivery delay, useful life, residual value, MTBF multiple, detection time,
performance penalty, token share, token price, token price decline and serving load factor, reserved price, SG&A,
hardware support and staff — in the scenario's units (fractions, USD, months).

Each driver has a **range** (low, high; default rules in the table, with their reasoning, source, date and basis;
the residual value's follows the low and high of the platform's resale curve at the first sale when the scenario
uses the curve, ``data/residual_values.csv``; the price decline's the price curve's low and high rows, the reserved
price's the contract sources of its term, an estimated on-demand row's the price's, ``data/price_curves.csv`` and
``data/rental_contracts.csv``: :func:`_bands`) used by the tornado and the grid axes, and a **distribution** for
the Monte Carlo built from the same range (the table's default: triangular for every driver):

* ``triangular``: minimum low, mode the scenario's value (clipped into the range), maximum high;
* ``uniform``: between low and high;
* ``normal``: low and high are its P10 and P90 (mean halfway, σ = (high − low) / 2.563);
* ``lognormal``: low and high are its P10 and P90 (median √(low·high)); low must be > 0;
* ``fixed``: held at the scenario's value.

Default ranges sit evenly around the scenario's value (so a triangular draw averages the base) unless
the driver's ``why`` gives a reason to lean, and each names its ``source``. Draws outside a driver's valid
range are clipped to it. Price and utilization may be given a rank correlation, which the draws then have
(Iman–Conover with the exact target: each marginal is kept and its draws are reordered by normal scores
whose mix is tuned until the measured rank correlation matches, see :func:`rank_correlate`). Each driver
draws from its own random stream spawned from the seed, so changing one driver's distribution leaves the
other drivers' draws unchanged; the same seed gives the same result.

Standard errors (:meth:`MonteCarlo.standard_errors`): a probability p from N draws has SE √(p (1 − p) / N); a
percentile's SE is by the order-statistic (binomial) method: half the distance between the order statistics of
ranks N q ∓ √(N q (1 − q)), which bracket the q-th percentile with a probability of about 68 % (one standard
error each side). Draws run in chunks of ``MC_CHUNK`` cases (up to ``MAX_DRAWS``), so memory grows with the draws'
samples and outcomes only (about 0.2 KB a draw), not with the engine's month-by-month arrays.

Percentiles: P10 is the 10th percentile (the pessimistic side for IRR and NPV, the optimistic one
for payback). An undefined IRR (no sign change) ranks below every IRR, a payback that never happens
after every payback, and a DSCR without debt service above every DSCR; a percentile that falls on
such a draw is ``None``. *Probability of loss* is the share of draws in which equity gets back less
cash than it put in (equity MOIC < 1); *probability NPV < 0* the share that misses the hurdle rate;
*probability of a DSCR breach* the share whose minimum DSCR falls below the covenant (the scenario's
``financing.covenant_dscr`` unless another is given). *Where the scenario sits*
(:meth:`MonteCarlo.base_percentile`) is the percentile of the scenario's own value among the draws: the
share of draws below it, ties counted half, so a loss probability can be read against it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any, Literal, cast

import numpy as np
from annotated_types import Ge, Gt, Le, Lt
from pydantic import Field, ValidationInfo, field_validator

from . import formats, market, residual, revenue
from .datafile import DATA_DIR, SourcedRow, read_rows
from .engine import Drivers
from .errors import DataError
from .model import Result
from .scenario import Scenario, ScenarioError

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
"""Cases per engine call in the Monte Carlo: keeps the (cases × months) arrays small enough for the CPU cache."""
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
when the scenario follows it) falls back to ``b + by``, ``market`` (price curves and contracts) to ``b × by``."""
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
            raise ValueError(f"must be a field of neoplan.engine.Drivers ({', '.join(Drivers.__dataclass_fields__)})")
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
    :class:`neoplan.engine.Drivers` (raises DataError naming the file, row and column of a bad cell)."""
    rows = read_rows(path, DriverSpec)
    drivers = {row.key: row for row in rows}
    missing = [k for k in Drivers.__dataclass_fields__ if k not in drivers]
    if len(drivers) < len(rows) or missing:
        what = f"no row for driver {missing[0]!r}" if missing else "a driver appears twice"
        raise DataError(path.name, f"{what} (one row per field of neoplan.engine.Drivers)")
    return drivers


def _field(path: str) -> Any:
    """The pydantic FieldInfo of a dotted Scenario field path."""
    model: Any = Scenario
    info = None
    for part in path.split("."):
        info = model.model_fields[part]
        model = info.annotation
    return info


DRIVERS = read_drivers()
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
    index) (:mod:`neoplan.residual`, :mod:`neoplan.market`)."""
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


def _run(result: Result, drivers: Drivers) -> dict[str, np.ndarray]:
    """KPIs (n,) of n cases of ``result``'s design; impossible driver values (go-live past the horizon …) raise
    ScenarioError where the engine checks them."""
    return result.cases(drivers).kpis(result.scenario.financing.hurdle_rate)


def _ranked(values: np.ndarray, metric: str) -> np.ndarray:
    """``values`` with undefined entries (nan) replaced by −inf or +inf, where they rank (see module doc)."""
    return np.where(np.isnan(values), -np.inf if metric in WORST_LOW else np.inf, values)


def _clean(value: float) -> float | None:
    """A plain float, or None when undefined or infinite."""
    return float(value) if math.isfinite(value) else None


# --- tornado ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tornado:
    """One-at-a-time sensitivities: each driver at its low and at its high value, all others at base.

    ``low[metric][i]`` / ``high[metric][i]`` are the metric with driver ``drivers[i]`` at
    ``low_values[i]`` / ``high_values[i]``; ``base[metric]`` is the scenario's own value.
    """

    drivers: tuple[str, ...]
    base_values: dict[str, float]
    low_values: np.ndarray
    high_values: np.ndarray
    base: dict[str, float]
    low: dict[str, np.ndarray]
    high: dict[str, np.ndarray]

    def swing(self, metric: str) -> np.ndarray:
        """Largest move of ``metric`` away from base, at low or high, per driver (undefined counts as largest)."""
        base = self.base[metric]
        moves = np.abs(np.stack([self.low[metric], self.high[metric]]) - base)
        return np.where(np.isnan(moves), np.inf, moves).max(axis=0)

    def order(self, metric: str) -> list[str]:
        """Drivers sorted by impact on ``metric``, largest first."""
        swing = self.swing(metric)
        return [self.drivers[i] for i in np.argsort(-swing, kind="stable")]

    def records(self, metric: str) -> list[dict[str, Any]]:
        """One row per driver, largest impact first: values and ``metric`` at low / high and the change from base."""
        index = {k: i for i, k in enumerate(self.drivers)}
        base = self.base[metric]
        rows = []
        for key in self.order(metric):
            i = index[key]
            lo, hi = float(self.low[metric][i]), float(self.high[metric][i])
            rows.append(
                {
                    "driver": key,
                    "label": DRIVERS[key].label,
                    "unit": DRIVERS[key].unit,
                    "base_value": self.base_values[key],
                    "low_value": float(self.low_values[i]),
                    "high_value": float(self.high_values[i]),
                    "metric_at_low": lo,
                    "metric_at_high": hi,
                    "change_at_low": lo - base,
                    "change_at_high": hi - base,
                }
            )
        return rows


def tornado(
    result: Result, ranges: Mapping[str, Range] | None = None, drivers: tuple[str, ...] | None = None
) -> Tornado:
    """Every driver (or ``drivers``) at its low and its high value, the others at base: one engine call."""
    ranges = _complete(result, ranges)
    keys = tuple(drivers or DRIVERS)
    base = base_values(result)
    k = len(keys)
    cases = result.drivers(1 + 2 * k)
    low = np.array([ranges[key].low for key in keys])
    high = np.array([ranges[key].high for key in keys])
    for i, key in enumerate(keys):
        column = getattr(cases, key).copy()
        column[1 + i], column[1 + k + i] = low[i], high[i]
        cases = cases.with_values(**{key: column})
    kpis = _run(result, cases)
    return Tornado(
        drivers=keys,
        base_values=base,
        low_values=low,
        high_values=high,
        base={m: float(kpis[m][0]) for m in kpis},
        low={m: v[1 : 1 + k] for m, v in kpis.items()},
        high={m: v[1 + k :] for m, v in kpis.items()},
    )


# --- two-way grid ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """Two drivers varied together: ``metrics[m][iy, ix]`` at ``x[ix]``, ``y[iy]``; all other drivers at base."""

    x_driver: str
    y_driver: str
    x: np.ndarray
    y: np.ndarray
    metrics: dict[str, np.ndarray]
    base_values: dict[str, float]


def grid(
    result: Result,
    x_driver: str = "usd_per_gpu_hour",
    y_driver: str = "utilization",
    x_values: np.ndarray | None = None,
    y_values: np.ndarray | None = None,
    points: int = 21,
    ranges: Mapping[str, Range] | None = None,
) -> Grid:
    """Metrics over a two-way grid of drivers (default price × utilization), one engine call for all points.

    Axes default to ``points`` values spread evenly over each driver's range.
    """
    if x_driver == y_driver:
        raise ScenarioError(f"the two grid drivers must differ, got {x_driver!r} twice")
    for key in (x_driver, y_driver):
        if key not in DRIVERS:
            raise ScenarioError(f"grid driver must be one of {', '.join(DRIVERS)}, got {key!r}")
    if not 2 <= points <= 201:
        raise ScenarioError(f"grid points must be between 2 and 201, got {points}")
    ranges = _complete(result, ranges)
    x = np.asarray(
        x_values if x_values is not None else np.linspace(ranges[x_driver].low, ranges[x_driver].high, points),
        dtype=float,
    )
    y = np.asarray(
        y_values if y_values is not None else np.linspace(ranges[y_driver].low, ranges[y_driver].high, points),
        dtype=float,
    )
    check_ranges({x_driver: Range(float(x.min()), float(x.max())), y_driver: Range(float(y.min()), float(y.max()))})
    xx, yy = np.meshgrid(x, y)
    cases = result.drivers(xx.size).with_values(**{x_driver: xx.ravel(), y_driver: yy.ravel()})
    kpis = _run(result, cases)
    return Grid(x_driver, y_driver, x, y, {m: v.reshape(xx.shape) for m, v in kpis.items()}, base_values(result))


# --- Monte Carlo -----------------------------------------------------------------------------------


def _triangular(u: np.ndarray, low: float, mode: float, high: float) -> np.ndarray:
    """Inverse CDF of the triangular distribution at uniforms ``u``; the constant ``low`` if the range is empty."""
    width = high - low
    if width <= 0:
        return np.full_like(u, low)
    mode = min(max(mode, low), high)
    split = (mode - low) / width
    left = low + np.sqrt(u * width * (mode - low))
    right = high - np.sqrt((1.0 - u) * width * (high - mode))
    return np.where(u < split, left, right)


def draw(rng: Range, base: float, bounds: tuple[float, float], generator: np.random.Generator, n: int) -> np.ndarray:
    """``n`` draws of one driver from its distribution (module doc), clipped to ``bounds`` [driver unit]."""
    if rng.distribution == "fixed":
        return np.full(n, base)
    if rng.distribution == "triangular":
        values = _triangular(generator.random(n), rng.low, base, rng.high)
    elif rng.distribution == "uniform":
        values = rng.low + (rng.high - rng.low) * generator.random(n)
    elif rng.distribution == "normal":
        mean, sd = 0.5 * (rng.low + rng.high), (rng.high - rng.low) / (2.0 * Z90)
        values = mean + sd * generator.standard_normal(n)
    elif rng.low == rng.high:
        values = np.full(n, rng.low)
    else:
        log_low, log_high = math.log(rng.low), math.log(rng.high)
        values = np.exp(0.5 * (log_low + log_high) + (log_high - log_low) / (2.0 * Z90) * generator.standard_normal(n))
    return np.clip(values, *bounds)


RANK_TOLERANCE = 1e-4
"""How close the measured rank correlation of the reordered draws comes to the one asked for."""


def _normal_scores(n: int) -> np.ndarray:
    """van der Waerden scores Φ⁻¹(i / (n + 1)), i = 1 … n (ascending, mean 0)."""
    return np.vectorize(NormalDist().inv_cdf, otypes=[float])(np.arange(1, n + 1) / (n + 1))


def _ranks(values: np.ndarray) -> np.ndarray:
    """0-based ranks of ``values`` (ties in order of appearance)."""
    return np.argsort(np.argsort(values, kind="stable"), kind="stable")


def _mid_ranks(ascending: np.ndarray) -> np.ndarray:
    """Rank of each value of a sorted array, ties sharing the mean of their positions (Spearman's convention)."""
    n = ascending.size
    starts = np.flatnonzero(np.r_[True, ascending[1:] != ascending[:-1]])  # first position of each distinct value
    ends = np.r_[starts[1:], n]
    return np.repeat(0.5 * (starts + ends - 1), ends - starts)


def rank_correlate(
    x: np.ndarray, y: np.ndarray, rho: float, generator: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` reordered so that their rank (Spearman) correlation is ``rho``; marginals unchanged.

    Iman–Conover with the exact target: two random orders of van der Waerden scores are made exactly
    uncorrelated (Gram–Schmidt), mixed as ``r·a + √(1 − r²)·b`` and the draws take the ranks of ``a`` and
    of the mix. ``r`` starts at the normal-copula value 2·sin(π·rho/6) and is corrected by the rank
    correlation measured on the sample until it is within :data:`RANK_TOLERANCE` of ``rho`` (a few steps;
    with tens of draws the ranks move in steps of a few hundredths, and the closest step is kept). The rank
    correlation measured is Spearman's of the reordered draws, tied draws (a driver clipped at its bound, a
    rounded one) sharing their mean rank; draws with one value only have none, and are paired by plain ranks.
    ``rho = 0`` leaves the draws as drawn: independent, not reordered to a sample correlation of exactly 0.
    """
    if rho == 0 or x.size < 3:
        return x, y
    scores = _normal_scores(x.size)
    a, b = generator.permutation(scores), generator.permutation(scores)
    b = b - a * float(a @ b) / float(a @ a)
    norm = float(b @ b)
    b = b * math.sqrt(float(a @ a) / norm) if norm > 0 else b
    rank_a = _ranks(a)
    x_sorted, y_sorted = np.sort(x), np.sort(y)
    mid_x, mid_y = _mid_ranks(x_sorted), _mid_ranks(y_sorted)
    if not (mid_x[-1] > mid_x[0] and mid_y[-1] > mid_y[0]):  # a constant draw: no rank correlation to aim at
        mid_x, mid_y = np.arange(x.size, dtype=float), np.arange(y.size, dtype=float)
    mid_a = mid_x[rank_a]

    def mixed(r: float) -> tuple[np.ndarray, float]:
        ranks = _ranks(r * a + math.sqrt(max(1.0 - r * r, 0.0)) * b)
        return ranks, float(np.corrcoef(mid_a, mid_y[ranks])[0, 1])

    r = 2.0 * math.sin(math.pi * rho / 6.0)
    ranks, measured = mixed(r)
    best = ranks, measured
    lo, hi = -1.0, 1.0  # the measured correlation is −1 at r = −1 and +1 at r = +1, rising in between
    for step in range(40):
        if abs(measured - rho) <= RANK_TOLERANCE:
            break
        lo, hi = (r, hi) if measured < rho else (lo, r)
        # corrections by the measured error, then bisection (in small samples the ranks move in steps)
        r = min(max(r + rho - measured, lo), hi) if step < 6 else 0.5 * (lo + hi)
        ranks, measured = mixed(r)
        if abs(measured - rho) < abs(best[1] - rho):
            best = ranks, measured
    return x_sorted[rank_a], y_sorted[best[0]]


def sample(
    source: Scenario | Result, ranges: Mapping[str, Range], draws: int, seed: int, correlation: float = 0.0
) -> dict[str, np.ndarray]:
    """Draws (``draws``,) of every driver around :func:`base_values` of ``source``; ``correlation`` is the
    price–utilization rank correlation."""
    base = base_values(source)
    streams = np.random.SeedSequence(seed).spawn(len(DRIVERS) + 1)
    out = {
        key: draw(ranges[key], base[key], driver_bounds(key), np.random.default_rng(stream), draws)
        for key, stream in zip(DRIVERS, streams, strict=False)
    }
    out["usd_per_gpu_hour"], out["utilization"] = rank_correlate(
        out["usd_per_gpu_hour"], out["utilization"], correlation, np.random.default_rng(streams[-1])
    )
    return out


@dataclass(frozen=True)
class MonteCarlo:
    """Outcomes of ``draws`` joint draws of the drivers: ``samples[driver]`` and ``metrics[metric]`` (draws,)."""

    draws: int
    seed: int
    correlation: float
    covenant_dscr: float
    ranges: dict[str, Range]
    samples: dict[str, np.ndarray]
    metrics: dict[str, np.ndarray]
    deterministic: dict[str, float] = field(default_factory=dict)
    """The scenario's own KPIs (every driver at base), for reference."""

    def percentiles(self, metric: str, q: tuple[float, ...] = (10, 50, 90)) -> dict[str, float | None]:
        """``{"p10": …, "p50": …, "p90": …}`` of ``metric``; None where the percentile is an undefined draw."""
        values = np.quantile(_ranked(self.metrics[metric], metric), np.asarray(q) / 100.0, method="inverted_cdf")
        return {f"p{int(p)}": _clean(v) for p, v in zip(q, values, strict=True)}

    def base_percentile(self, metric: str) -> float | None:
        """Where the scenario itself (every driver at base) sits among the draws of ``metric``: the share of
        draws below its value, ties counted half, undefined values ranked as in :meth:`percentiles`
        [percentile, 0–100]; None without a deterministic value. 84 means 84 % of draws come out lower."""
        if metric not in self.deterministic:
            return None
        ranked = _ranked(self.metrics[metric], metric)
        base = _ranked(np.array([self.deterministic[metric]], dtype=float), metric)[0]
        return float(100.0 * ((ranked < base).mean() + 0.5 * (ranked == base).mean()))

    def percentile_errors(self, metric: str, q: tuple[float, ...] = (10, 50, 90)) -> dict[str, float | None]:
        """Standard error of each percentile of :meth:`percentiles` by the order-statistic method (module doc)
        [the metric's unit]; None where a bracketing draw is undefined."""
        ranked = np.sort(_ranked(self.metrics[metric], metric))
        n = ranked.size
        out: dict[str, float | None] = {}
        for p in q:
            share = p / 100.0
            spread = math.sqrt(n * share * (1.0 - share))
            low = min(max(math.floor(n * share - spread), 0), n - 1)
            high = min(max(math.ceil(n * share + spread) - 1, 0), n - 1)  # ranks 1 … n as indices 0 … n − 1
            out[f"p{int(p)}"] = _clean(0.5 * (float(ranked[high]) - float(ranked[low])))
        return out

    def probability_error(self, probability: float) -> float:
        """Standard error of a share of the draws, √(p (1 − p) / N) [fraction]."""
        return math.sqrt(max(probability * (1.0 - probability), 0.0) / self.draws)

    def share_undefined(self, metric: str) -> float:
        """Share of draws where ``metric`` is undefined (no IRR, no payback, no debt service) [fraction]."""
        return float(np.isnan(self.metrics[metric]).mean())

    @property
    def probability_of_loss(self) -> float:
        """Share of draws in which equity gets back less cash than it put in (MOIC < 1) [fraction]."""
        return float((self.metrics["equity_moic"] < 1.0).mean())

    @property
    def probability_npv_negative(self) -> float:
        """Share of draws with project NPV below zero at the hurdle rate [fraction]."""
        return float((self.metrics["npv_usd"] < 0.0).mean())

    @property
    def probability_dscr_breach(self) -> float:
        """Share of draws whose minimum yearly DSCR is below the covenant [fraction]."""
        return float((self.metrics["min_dscr"] < self.covenant_dscr).mean())

    @property
    def measured_correlation(self) -> float | None:
        """Rank (Spearman) correlation of the price and utilization draws as sampled; None if either is constant."""
        x, y = self.samples.get("usd_per_gpu_hour"), self.samples.get("utilization")
        if x is None or y is None or np.ptp(x) == 0 or np.ptp(y) == 0:
            return None
        return float(np.corrcoef(_ranks(x), _ranks(y))[0, 1])

    def cdf(self, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """(sorted defined values, cumulative share of all draws at or below each) of ``metric``."""
        values = self.metrics[metric]
        defined = np.sort(values[~np.isnan(values)])
        below = np.isnan(values).sum() if metric in WORST_LOW else 0
        return defined, (below + np.arange(1, defined.size + 1)) / values.size

    def standard_errors(self) -> dict[str, Any]:
        """Standard errors of the summary's percentiles (by metric) and probabilities (module doc), base units."""
        probabilities = {
            "probability_of_loss": self.probability_of_loss,
            "probability_npv_negative": self.probability_npv_negative,
            "probability_dscr_breach": self.probability_dscr_breach,
        }
        return {
            **{m: self.percentile_errors(m) for m in METRICS},
            **{k: self.probability_error(v) for k, v in probabilities.items()},
        }

    def summary(self) -> dict[str, Any]:
        """The JSON-safe summary (the CLI's ``stress --json``): percentiles and probabilities, base units."""
        return {
            "draws": self.draws,
            "seed": self.seed,
            "price_utilization_correlation": self.correlation,
            "covenant_dscr": self.covenant_dscr,
            **{m: self.percentiles(m) for m in METRICS},
            "base_case_percentile": {m: self.base_percentile(m) for m in METRICS},
            "probability_of_loss": self.probability_of_loss,
            "probability_npv_negative": self.probability_npv_negative,
            "probability_dscr_breach": self.probability_dscr_breach,
            "standard_errors": self.standard_errors(),
            "share_without_irr": {m: self.share_undefined(m) for m in ("project_irr", "equity_irr")},
            "share_never_paid_back": self.share_undefined("payback_months"),
            "deterministic": {k: _clean(v) for k, v in self.deterministic.items()},
            "ranges": {
                k: {"low": r.low, "high": r.high, "distribution": r.distribution} for k, r in self.ranges.items()
            },
            "measured_rank_correlation": self.measured_correlation,
        }


def covenant_of(scenario: Scenario) -> float:
    """The scenario's DSCR covenant, ``financing.covenant_dscr`` [ratio]."""
    return float(scenario.financing.covenant_dscr)


def check_monte_carlo_inputs(draws: int, seed: int, correlation: float, covenant_dscr: float) -> None:
    """Raise ScenarioError for a bad number of draws, seed, correlation or covenant."""
    if isinstance(draws, bool) or not isinstance(draws, int | np.integer) or not MIN_DRAWS <= draws <= MAX_DRAWS:
        raise ScenarioError(f"draws must be a whole number between {MIN_DRAWS:,} and {MAX_DRAWS:,}, got {draws!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ScenarioError(f"seed must be a whole number ≥ 0, got {seed!r}")
    if not -1.0 <= correlation <= 1.0:
        raise ScenarioError(f"price–utilization correlation must be between −1 and 1, got {correlation!r}")
    if not (math.isfinite(covenant_dscr) and covenant_dscr > 0):
        raise ScenarioError(f"DSCR covenant must be > 0, got {covenant_dscr!r}")


def monte_carlo(
    result: Result,
    ranges: Mapping[str, Range] | None = None,
    *,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
    correlation: float = 0.0,
    covenant_dscr: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
) -> MonteCarlo:
    """``draws`` joint draws of the drivers, evaluated in chunks of ``MC_CHUNK`` cases (vectorised in each).

    Chunks run on ``workers`` threads (default ``MC_WORKERS``); ``progress(done, draws)`` is called
    from the calling thread as chunks finish, in order. Neither chunking nor threads change a result beyond
    rounding: every case is computed independently of the others (another chunk size may only sum in another
    order; more threads run the very same chunks).
    ``covenant_dscr`` defaults to the scenario's (:func:`covenant_of`).
    """
    covenant_dscr = covenant_of(result.scenario) if covenant_dscr is None else covenant_dscr
    check_monte_carlo_inputs(draws, seed, correlation, covenant_dscr)
    ranges = _complete(result, ranges)
    samples = sample(result, ranges, int(draws), int(seed), float(correlation))
    starts = range(0, draws, MC_CHUNK)

    def chunk(start: int) -> dict[str, np.ndarray]:  # its drivers built from the samples: no copy of all draws
        values = {k: v[start : start + MC_CHUNK] for k, v in samples.items()}
        return _run(result, result.drivers(min(MC_CHUNK, draws - start)).with_values(**values))

    metrics: dict[str, np.ndarray] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers or MC_WORKERS)) as pool:
        for start, part in zip(starts, pool.map(chunk, starts), strict=True):
            for m, v in part.items():
                metrics.setdefault(m, np.empty(draws))[start : start + v.size] = v
            if progress is not None:
                progress(min(start + MC_CHUNK, draws), draws)
    deterministic = {m: float(v[0]) for m, v in _run(result, result.drivers(1)).items()}
    return MonteCarlo(
        int(draws), int(seed), float(correlation), float(covenant_dscr), ranges, samples, metrics, deterministic
    )


# --- solvers ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """The value of ``driver`` at which ``metric`` reaches ``target`` (all other drivers at base)."""

    driver: str
    metric: str
    target: float
    value: float | None
    """Solved driver value [driver unit]; None when the target is out of reach in the searched range."""
    achieved: float | None
    """``metric`` re-evaluated at ``value``."""
    message: str

    @property
    def found(self) -> bool:
        """Whether a value was found."""
        return self.value is not None


def solve(
    result: Result, driver: str, metric: str, target: float, lo: float, hi: float, *, points: int = 33, rounds: int = 4
) -> Solution:
    """The lowest value of ``driver`` in [lo, hi] where ``metric`` crosses ``target``.

    A grid of ``points`` values is run in one engine call, the first bracket where ``metric − target``
    changes sign is zoomed into ``rounds`` times, and the root is interpolated linearly in the last
    bracket. Undefined values rank as in the Monte Carlo (no IRR = lowest, no debt service = highest DSCR).
    """
    if driver not in DRIVERS or metric not in METRICS:
        raise ScenarioError(f"solve: unknown driver {driver!r} or metric {metric!r}")

    def gap(values: np.ndarray) -> np.ndarray:
        kpis = _run(result, result.drivers(values.size).with_values(**{driver: values}))
        return _ranked(kpis[metric], metric) - target

    values = np.linspace(lo, hi, points)
    g = gap(values)
    if np.any(g == 0):
        root = float(values[np.nonzero(g == 0)[0][0]])
        return _solution(result, driver, metric, target, root)
    for _ in range(rounds):
        cross = np.nonzero(np.sign(g[:-1]) * np.sign(g[1:]) < 0)[0]
        if cross.size == 0:
            return Solution(driver, metric, target, None, None, _out_of_reach(driver, metric, target, lo, hi, g))
        i = int(cross[0])
        values = np.linspace(values[i], values[i + 1], points)
        g = gap(values)
    cross = np.nonzero(np.sign(g[:-1]) * np.sign(g[1:]) <= 0)[0]
    i = int(cross[0]) if cross.size else 0
    a, b, ga, gb = values[i], values[i + 1], g[i], g[i + 1]
    finite = math.isfinite(ga) and math.isfinite(gb) and gb != ga
    root = float(a - ga * (b - a) / (gb - ga)) if finite else float(b if math.isfinite(gb) else a)
    return _solution(result, driver, metric, target, root)


def driver_text(value: float, driver: str) -> str:
    """A driver value for a message: ``$3.29/GPU-h``, ``98.7 %``, ``1.10 × design``, ``6 months``."""
    unit = DRIVERS[driver].unit
    if unit.startswith("fraction"):
        return f"{value * 100:.4g} %" + unit.removeprefix("fraction")
    if unit.startswith("USD/"):
        return f"${value:,.4g}/{unit.removeprefix('USD/')}"
    return f"{value:.4g} {unit}"


def metric_text(value: float, metric: str) -> str:
    """A metric value for a message: ``20.00 %``, ``−$1.25 M`` (:func:`neoplan.formats.usd`), ``61.2 months``,
    ``1.300×``; n/a if undefined."""
    if not math.isfinite(value):
        return "n/a"
    if metric.endswith("_irr"):
        return f"{value * 100:.2f} %"
    if metric == "npv_usd":
        return formats.usd(value)
    return f"{value:.1f} months" if metric == "payback_months" else f"{value:.3f}×"


def _solution(result: Result, driver: str, metric: str, target: float, value: float) -> Solution:
    achieved = float(_run(result, result.drivers(1).with_values(**{driver: value}))[metric][0])
    spec = DRIVERS[driver]
    return Solution(
        driver,
        metric,
        target,
        value,
        achieved,
        f"{spec.label} {driver_text(value, driver)} gives {METRIC_LABELS[metric]} {metric_text(achieved, metric)} "
        f"(target {metric_text(target, metric)})",
    )


def _out_of_reach(driver: str, metric: str, target: float, lo: float, hi: float, g: np.ndarray) -> str:
    reached = g + target
    finite = reached[np.isfinite(reached)]
    span = (
        f"{metric_text(finite.min(), metric)} to {metric_text(finite.max(), metric)}"
        if finite.size
        else "undefined throughout"
    )
    label = DRIVERS[driver].label
    return (
        f"{METRIC_LABELS[metric]} never reaches {metric_text(target, metric)} for {label.lower()} between "
        f"{driver_text(lo, driver)} and {driver_text(hi, driver)} ({span})"
    )


def price_for_equity_irr(result: Result, target_irr: float = DEFAULT_TARGET_EQUITY_IRR) -> Solution:
    """Headline price [USD/GPU-h] at which equity IRR reaches ``target_irr`` [per year]."""
    lo, hi = driver_bounds("usd_per_gpu_hour")
    return solve(result, "usd_per_gpu_hour", "equity_irr", target_irr, max(lo, 0.0), min(hi, 100.0))


def utilization_for_zero_npv(result: Result) -> Solution:
    """Utilization [fraction] at which project NPV at the hurdle rate is zero."""
    return solve(result, "utilization", "npv_usd", 0.0, 0.0, 1.0)


def max_debt_share_for_dscr(result: Result, covenant_dscr: float | None = None) -> Solution:
    """Largest debt share [fraction] whose minimum yearly DSCR stays at or above ``covenant_dscr`` (default the
    scenario's, :func:`covenant_of`).

    DSCR falls as the debt share rises (more debt service from the same cash flow). A value of 1.0
    means even all-debt financing meets the covenant; None that no positive debt share does.
    """
    covenant_dscr = covenant_of(result.scenario) if covenant_dscr is None else covenant_dscr
    if not (math.isfinite(covenant_dscr) and covenant_dscr > 0):
        raise ScenarioError(f"DSCR covenant must be > 0, got {covenant_dscr!r}")
    smallest, top = _run(result, result.drivers(2).with_values(debt_share=[MIN_DEBT_SHARE, 1.0]))["min_dscr"]
    if not top < covenant_dscr:  # nan (no debt service) or above the covenant at 100 % debt
        return _solution(result, "debt_share", "min_dscr", covenant_dscr, 1.0)
    if smallest < covenant_dscr:  # cash flow below covenant × debt service whatever the loan size
        return Solution(
            "debt_share",
            "min_dscr",
            covenant_dscr,
            0.0,
            None,
            f"no debt share meets a {covenant_dscr:g}× covenant: even {MIN_DEBT_SHARE:g} of capex as "
            f"debt has a minimum DSCR of {smallest:.3g}× (a year of weak cash flow)",
        )
    return solve(result, "debt_share", "min_dscr", covenant_dscr, MIN_DEBT_SHARE, 1.0)


SOLVERS = {
    "price_for_target_equity_irr": "Price for the target equity IRR",
    "utilization_for_zero_npv": "Utilization for NPV = 0",
    "max_debt_share_for_covenant": "Largest debt share meeting the DSCR covenant",
}
"""The break-even solvers of :func:`solve_all`, by key, with a label."""


def solve_all(
    result: Result, target_equity_irr: float = DEFAULT_TARGET_EQUITY_IRR, covenant_dscr: float | None = None
) -> dict[str, Solution]:
    """Every solver of :data:`SOLVERS`, every other driver at the scenario's value."""
    return {
        "price_for_target_equity_irr": price_for_equity_irr(result, target_equity_irr),
        "utilization_for_zero_npv": utilization_for_zero_npv(result),
        "max_debt_share_for_covenant": max_debt_share_for_dscr(result, covenant_dscr),
    }


# --- the whole stress test, for the take-away (workbook and report) ----------------------------------------


@dataclass(frozen=True)
class Settings:
    """What a stress test runs: driver ranges (None = defaults), Monte Carlo settings, grid axes, solver target.

    The Stress test page hands the settings the user ran to the exports; without them the exports use
    these defaults (a fixed seed, so the same scenario always exports the same figures).
    """

    ranges: dict[str, Range] | None = None
    draws: int = DEFAULT_DRAWS
    seed: int = 0
    correlation: float = 0.0
    covenant_dscr: float | None = None
    """None = the scenario's covenant (:func:`covenant_of`)."""
    grid_x: str = "usd_per_gpu_hour"
    grid_y: str = "utilization"
    grid_points: int = 21
    target_equity_irr: float = DEFAULT_TARGET_EQUITY_IRR


@dataclass(frozen=True)
class StressRun:
    """Tornado, grid, Monte Carlo and solvers of one scenario under one :class:`Settings`."""

    settings: Settings
    tornado: Tornado
    grid: Grid
    monte_carlo: MonteCarlo
    solutions: dict[str, Solution]


def run_all(result: Result, settings: Settings | None = None) -> StressRun:
    """Every stress tool on ``result`` with ``settings`` (default :class:`Settings`); ScenarioError on bad input."""
    settings = settings or Settings()
    covenant = covenant_of(result.scenario) if settings.covenant_dscr is None else settings.covenant_dscr
    target = settings.target_equity_irr
    if not -0.99 < target < 10:
        raise ScenarioError(f"target equity IRR must be between -0.99 and 10 per year, got {target!r}")
    mc = monte_carlo(
        result,
        settings.ranges,
        draws=settings.draws,
        seed=settings.seed,
        correlation=settings.correlation,
        covenant_dscr=covenant,
    )
    return StressRun(
        settings=settings,
        tornado=tornado(result, mc.ranges),
        grid=grid(result, settings.grid_x, settings.grid_y, points=settings.grid_points, ranges=mc.ranges),
        monte_carlo=mc,
        solutions=solve_all(result, settings.target_equity_irr, covenant),
    )
