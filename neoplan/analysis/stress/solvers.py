"""Break-even solvers: the value of one driver at which a metric meets its target, by bracketing over the engine."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import formats
from ...errors import ScenarioError
from ...model import Result
from .drivers import (
    DEFAULT_TARGET_EQUITY_IRR,
    DRIVERS,
    MAX_SOLVER_POINTS,
    MAX_SOLVER_ROUNDS,
    METRIC_LABELS,
    METRICS,
    MIN_DEBT_SHARE,
    _ranked,
    _run,
    driver_bounds,
)
from .simulation import covenant_of

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
    """The lowest value of a driver at which a metric reaches a target, every other driver at the scenario's value.

    A grid of ``points`` values is run in one engine call, the first bracket where ``metric − target`` changes
    sign is zoomed into ``rounds`` times, and the root is interpolated linearly in the last bracket. Undefined
    values rank as in the Monte Carlo (no IRR = lowest, no debt service = highest DSCR).

    Parameters
    ----------
    result : Result
        The scenario, evaluated.
    driver : str
        The driver to solve for, a key of :data:`DRIVERS`.
    metric : str
        The metric to reach, one of :data:`METRICS`.
    target : float
        The metric's target, in its unit (IRR [fraction per year], NPV [USD], payback [months], ratios).
    lo, hi : float
        The driver's search interval, in its unit.
    points : int, optional
        Values per grid, 2 to :data:`MAX_SOLVER_POINTS`.
    rounds : int, optional
        Zooms into the bracket, 0 to :data:`MAX_SOLVER_ROUNDS`.

    Returns
    -------
    Solution
        ``value`` (the driver's value, or None when the target is out of reach in [lo, hi]), ``achieved`` (the
        metric re-evaluated there) and a one-line ``message``.

    Raises
    ------
    ScenarioError
        For an unknown driver or metric, or a bad number of points or rounds.

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.analysis import stress
    >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> zero = stress.solve(r, "usd_per_gpu_hour", "npv_usd", 0.0, 0.0, 20.0)  # [USD/GPU-h] for NPV = $0
    >>> abs(zero.value - r.kpis["breakeven_usd_per_gpu_hour"]) < 0.01  # the break-even price, found again
    True
    """
    if driver not in DRIVERS or metric not in METRICS:
        raise ScenarioError(f"solve: unknown driver {driver!r} or metric {metric!r}")
    if isinstance(points, bool) or not isinstance(points, int) or not 2 <= points <= MAX_SOLVER_POINTS:
        raise ScenarioError(f"solve: points must be a whole number between 2 and {MAX_SOLVER_POINTS}, got {points!r}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 0 <= rounds <= MAX_SOLVER_ROUNDS:
        raise ScenarioError(f"solve: rounds must be a whole number between 0 and {MAX_SOLVER_ROUNDS}, got {rounds!r}")

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
    """The headline price at which equity IRR reaches a target.

    Parameters
    ----------
    result : Result
        The scenario, evaluated.
    target_irr : float, optional
        Target equity IRR [fraction per year]; default :data:`DEFAULT_TARGET_EQUITY_IRR`.

    Returns
    -------
    Solution
        ``value``: the go-live headline price [USD/GPU-h], or None when no price up to $100 reaches the target.

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.analysis import stress
    >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> s = stress.price_for_equity_irr(r, 0.20)
    >>> s.found, round(s.achieved, 4)
    (True, 0.2)
    >>> s.value > r.kpis["breakeven_usd_per_gpu_hour"]  # a 20 % equity return needs more than NPV = 0
    True
    """
    lo, hi = driver_bounds("usd_per_gpu_hour")
    return solve(result, "usd_per_gpu_hour", "equity_irr", target_irr, max(lo, 0.0), min(hi, 100.0))


def utilization_for_zero_npv(result: Result) -> Solution:
    """The utilization at which project NPV at the hurdle rate is zero.

    Parameters
    ----------
    result : Result
        The scenario, evaluated.

    Returns
    -------
    Solution
        ``value``: the utilization [fraction], or None when NPV stays on one side of zero from 0 to 100 % (the
        message gives the NPV's span).

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.analysis import stress
    >>> r = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "pricing": {"usd_per_gpu_hour": 5.0}}))
    >>> s = stress.utilization_for_zero_npv(r)
    >>> s.found and 0 < s.value < r.scenario.pricing.utilization  # at $5 less than 85 % utilization pays
    True
    """
    return solve(result, "utilization", "npv_usd", 0.0, 0.0, 1.0)


def max_debt_share_for_dscr(result: Result, covenant_dscr: float | None = None) -> Solution:
    """The largest debt share whose minimum yearly DSCR stays at or above the covenant.

    DSCR falls as the debt share rises (more debt service from the same cash flow).

    Parameters
    ----------
    result : Result
        The scenario, evaluated.
    covenant_dscr : float, optional
        The covenant [ratio]; default the scenario's ``financing.covenant_dscr``.

    Returns
    -------
    Solution
        ``value``: the debt share [fraction of capex]; 1.0 when even all-debt financing meets the covenant, 0.0
        (with ``achieved`` None) when no positive share does.

    Raises
    ------
    ScenarioError
        For a covenant that is not a positive number.

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.analysis import stress
    >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> s = stress.max_debt_share_for_dscr(r, 1.2)
    >>> 0 <= s.value <= 1 and (s.achieved is None or round(s.achieved, 3) >= 1.2)
    True
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
    """Every break-even solver of :data:`SOLVERS`, every other driver at the scenario's value.

    Parameters
    ----------
    result : Result
        The scenario, evaluated.
    target_equity_irr : float, optional
        The price solver's target equity IRR [fraction per year].
    covenant_dscr : float, optional
        The debt solver's covenant [ratio]; default the scenario's.

    Returns
    -------
    dict of str to Solution
        By key of :data:`SOLVERS`: the price for the target equity IRR [USD/GPU-h], the utilization for NPV = 0
        [fraction] and the largest debt share meeting the covenant [fraction].

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.analysis import stress
    >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> sorted(stress.solve_all(r)) == sorted(stress.SOLVERS)
    True
    """
    return {
        "price_for_target_equity_irr": price_for_equity_irr(result, target_equity_irr),
        "utilization_for_zero_npv": utilization_for_zero_npv(result),
        "max_debt_share_for_covenant": max_debt_share_for_dscr(result, covenant_dscr),
    }
