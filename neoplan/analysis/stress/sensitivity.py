"""One driver at a time (the tornado) and two at a time (the grid), each over the driver's range."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import ScenarioError
from ...model import Result
from .drivers import (
    DRIVERS,
    MAX_GRID_POINTS,
    MC_CHUNK,
    STRUCTURING,
    Range,
    _axis,
    _complete,
    _run,
    _run_chunked,
    base_values,
    check_ranges,
)

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
    """One-at-a-time sensitivities: each driver at its low and at its high value, every other at the scenario's.

    All 1 + 2 × drivers cases run in one call of the vectorised monthly engine, on the design the scenario sized
    (no driver changes the design) and the loan fixed at financial close. The structuring drivers
    (:data:`STRUCTURING`: the loan's size) are left out unless ``ranges`` gives them a range or ``drivers`` names
    them.

    Parameters
    ----------
    result : Result
        The scenario, evaluated (:func:`neoplan.evaluate`).
    ranges : mapping of str to Range, optional
        Low and high of any driver, in its own unit (:data:`DRIVERS`: fractions, USD, months); the others take
        their default ranges (:func:`default_ranges`).
    drivers : tuple of str, optional
        The drivers to vary, by key; default all of :data:`DRIVERS`.

    Returns
    -------
    Tornado
        The drivers' low and high values and, per metric of :data:`METRICS` (IRRs [fraction per year], NPV [USD],
        payback [months], min DSCR [ratio], equity MOIC [ratio]), its value at base, at each low and at each high.

    Raises
    ------
    ScenarioError
        For an unknown driver or a range outside a driver's bounds.

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.analysis import stress
    >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> t = stress.tornado(r, drivers=("usd_per_gpu_hour", "utilization"))
    >>> t.drivers, bool(t.low["npv_usd"][0] < t.base["npv_usd"] < t.high["npv_usd"][0])
    (('usd_per_gpu_hour', 'utilization'), True)
    >>> t.order("npv_usd")[0] in t.drivers  # the driver that moves NPV most comes first
    True
    """
    asked = set(ranges or {})
    keys = tuple(drivers or (k for k in DRIVERS if k not in STRUCTURING or k in asked))
    ranges = _complete(result, ranges)
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
    """Two drivers varied together over a grid (default price × utilization), every other at the scenario's value.

    Every point is one case of the vectorised monthly engine, run in chunks of :data:`MC_CHUNK` cases (bounded
    memory).

    Parameters
    ----------
    result : Result
        The scenario, evaluated.
    x_driver, y_driver : str
        The two drivers, by key of :data:`DRIVERS` (they must differ).
    x_values, y_values : array_like, optional
        The axes' values in the drivers' units, 1 to :data:`MAX_GRID_POINTS` each; default ``points`` values spread
        evenly over each driver's range.
    points : int, optional
        Values per default axis, 2 to :data:`MAX_GRID_POINTS`.
    ranges : mapping of str to Range, optional
        Ranges of drivers other than the defaults (:func:`default_ranges`).

    Returns
    -------
    Grid
        The axes ``x`` and ``y`` and, per metric, an array ``metrics[m][iy, ix]`` (IRRs [fraction per year], NPV
        [USD], payback [months], ratios).

    Raises
    ------
    ScenarioError
        For unknown or equal drivers, a bad number of points, or values outside a driver's bounds.

    Examples
    --------
    >>> import numpy as np, neoplan
    >>> from neoplan.analysis import stress
    >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> g = stress.grid(r, "usd_per_gpu_hour", "utilization", x_values=[2.0, 3.0, 4.0], y_values=[0.7, 0.9])
    >>> g.metrics["npv_usd"].shape  # (utilization, price)
    (2, 3)
    >>> bool(np.all(np.diff(g.metrics["npv_usd"], axis=1) > 0))  # NPV rises with the price at each utilization
    True
    """
    if x_driver == y_driver:
        raise ScenarioError(f"the two grid drivers must differ, got {x_driver!r} twice")
    for key in (x_driver, y_driver):
        if key not in DRIVERS:
            raise ScenarioError(f"grid driver must be one of {', '.join(DRIVERS)}, got {key!r}")
    if isinstance(points, bool) or not isinstance(points, int | np.integer) or not 2 <= points <= MAX_GRID_POINTS:
        raise ScenarioError(f"grid points must be a whole number between 2 and {MAX_GRID_POINTS}, got {points!r}")
    ranges = _complete(result, ranges)
    x = (
        _axis("grid x_values", x_values)
        if x_values is not None
        else np.linspace(ranges[x_driver].low, ranges[x_driver].high, points)
    )
    y = (
        _axis("grid y_values", y_values)
        if y_values is not None
        else np.linspace(ranges[y_driver].low, ranges[y_driver].high, points)
    )
    check_ranges({x_driver: Range(float(x.min()), float(x.max())), y_driver: Range(float(y.min()), float(y.max()))})
    xx, yy = np.meshgrid(x, y)
    cases = result.drivers(xx.size).with_values(**{x_driver: xx.ravel(), y_driver: yy.ravel()})
    kpis = _run_chunked(result, cases.n, lambda s: cases.take(slice(s, s + MC_CHUNK)))
    return Grid(x_driver, y_driver, x, y, {m: v.reshape(xx.shape) for m, v in kpis.items()}, base_values(result))
