"""The whole stress test as the take-away files show it: tornado, grid, Monte Carlo and solvers with their settings."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ScenarioError
from ...model import Result
from .drivers import DEFAULT_DRAWS, DEFAULT_TARGET_EQUITY_IRR, DRIVERS, Range
from .sensitivity import Grid, Tornado, grid, tornado
from .simulation import MonteCarlo, covenant_of, monte_carlo
from .solvers import Solution, solve_all

# --- the whole stress test, for the take-away (workbook and report) ----------------------------------------


DEFAULT_RUN = "default settings (no run on the Stress test page)"
"""What :attr:`Settings.run` says of settings nobody chose."""


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
    run: str = DEFAULT_RUN
    """Whose settings these are, for the exports to say which run they hold (``the run on the Stress test page``,
    ``the command line``); :data:`DEFAULT_RUN` when nobody chose them."""

    def text(self) -> str:
        """Which run this is, in one line: ``the run on the Stress test page: 100,000 Monte Carlo draws, seed 1, …``
        (the covenant is the scenario's unless given)."""
        ranges = "the default driver ranges" if self.ranges is None else "the driver ranges set for it"
        covenant = "" if self.covenant_dscr is None else f", DSCR covenant {self.covenant_dscr:.2f}×"
        grid = f"{DRIVERS[self.grid_x].label} × {DRIVERS[self.grid_y].label}" if self.grid_x in DRIVERS else "?"
        return (
            f"{self.run}: {self.draws:,} Monte Carlo draws, seed {self.seed}, price–utilization rank correlation "
            f"{self.correlation:g}{covenant}, {ranges}; grid {grid} at {self.grid_points} points a side; solvers "
            f"for {100 * self.target_equity_irr:g} % equity IRR"
        )


@dataclass(frozen=True)
class StressRun:
    """Tornado, grid, Monte Carlo and solvers of one scenario under one :class:`Settings`."""

    settings: Settings
    tornado: Tornado
    grid: Grid
    monte_carlo: MonteCarlo
    solutions: dict[str, Solution]


def run_all(result: Result, settings: Settings | None = None) -> StressRun:
    """The whole stress test as the workbook and the report show it: Monte Carlo, tornado, grid and solvers.

    The tornado and the grid use the Monte Carlo's ranges, so the four tools agree on each driver's range.

    Parameters
    ----------
    result : Result
        The scenario, evaluated.
    settings : Settings, optional
        Ranges, draws, seed, correlation, covenant, grid axes and the solver's target; default :class:`Settings`
        (10,000 draws, seed 0: the same scenario always gives the same figures).

    Returns
    -------
    StressRun
        The settings and the four tools' results.

    Raises
    ------
    ScenarioError
        For settings out of range (the message names the setting).

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.analysis import stress
    >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> run = stress.run_all(r, stress.Settings(draws=200, grid_points=3))
    >>> run.monte_carlo.draws, run.grid.metrics["npv_usd"].shape, len(run.tornado.drivers) == len(stress.DRIVERS)
    (200, (3, 3), True)
    """
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
