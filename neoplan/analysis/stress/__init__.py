"""Investor stress test: tornado, two-way grids, Monte Carlo and break-even solvers.

Every tool here re-runs the monthly engine of one sized design (:func:`neoplan.finance.engine.run_cases`)
for many cases at once: each case is one set of values of the twenty-three **drivers** below, and the
engine works on arrays of cases × months, never looping over cases. The design itself (BoM,
fabric, site, hence capex) depends on none of the drivers, so it is sized once by ``evaluate``.
With every driver at the scenario's value a case reproduces ``evaluate`` (to rounding: the same code path).

**The debt is fixed at financial close** on the base case (:class:`neoplan.finance.debt.Closing`): every tranche's
size, its installments and a fixed tranche's rate, a floating tranche's spread and the debt service reserve. Every
case of every tool (Monte Carlo draws, tornado ends, grid cells, solver steps) meets that structure: a weak case
owes the base case's debt service, through the cash waterfall (reserve, lock-up, sweep; :mod:`neoplan.finance.
waterfall`), and counts its covenant breaches, lock-ups and payment defaults; floating tranches follow the case's
base rate (the interest-rate driver moves it). The debt share is a **structuring** driver (:data:`STRUCTURING`: how
much should we borrow?): its base value is the share lent at close, the tornado leaves it out and the Monte Carlo
holds it there; a grid over it and :func:`max_debt_share_for_dscr` re-size the closed structure in proportion.

Drivers (``DRIVERS``): one row each of ``data/stress_drivers.csv`` (:class:`DriverSpec`), one per field of
:class:`neoplan.finance.engine.Drivers` — price, price decline, utilization, capex multiple, interest rate, debt share,
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
*probability of a DSCR breach* the share whose minimum yearly DSCR falls below the covenant (the scenario's
``financing.covenant_dscr`` unless another is given); the waterfall's events give the probabilities of a
*covenant breach* (a quarterly test below ``financing.covenant_dscr``), a *lock-up* and a *payment default*, each with
its standard error. *Where the scenario sits*
(:meth:`MonteCarlo.base_percentile`) is the percentile of the scenario's own value among the draws: the
share of draws below it, ties counted half, so a loss probability can be read against it.
"""

from .drivers import (
    BANDED,
    DEFAULT_COVENANT_DSCR,
    DEFAULT_DRAWS,
    DEFAULT_TARGET_EQUITY_IRR,
    DISTRIBUTIONS,
    DRIVERS,
    DRIVERS_FILE,
    MAX_DRAWS,
    MAX_GRID_POINTS,
    MAX_SOLVER_POINTS,
    MAX_SOLVER_ROUNDS,
    MC_CHUNK,
    MC_WORKERS,
    METRIC_LABELS,
    METRICS,
    MIN_DEBT_SHARE,
    MIN_DRAWS,
    STRUCTURING,
    WORST_LOW,
    Z90,
    Distribution,
    DriverSpec,
    Range,
    Rule,
    base_values,
    check_ranges,
    default_ranges,
    driver_bounds,
    driver_description,
    read_drivers,
)
from .run import DEFAULT_RUN, Settings, StressRun, run_all
from .sensitivity import Grid, Tornado, grid, tornado
from .simulation import (
    RANK_TOLERANCE,
    MonteCarlo,
    check_monte_carlo_inputs,
    covenant_of,
    draw,
    monte_carlo,
    rank_correlate,
    sample,
)
from .solvers import (
    SOLVERS,
    Solution,
    driver_text,
    max_debt_share_for_dscr,
    metric_text,
    price_for_equity_irr,
    solve,
    solve_all,
    utilization_for_zero_npv,
)

__all__ = [
    "BANDED",
    "DEFAULT_COVENANT_DSCR",
    "DEFAULT_DRAWS",
    "DEFAULT_RUN",
    "DEFAULT_TARGET_EQUITY_IRR",
    "DISTRIBUTIONS",
    "DRIVERS",
    "DRIVERS_FILE",
    "MAX_DRAWS",
    "MAX_GRID_POINTS",
    "MAX_SOLVER_POINTS",
    "MAX_SOLVER_ROUNDS",
    "MC_CHUNK",
    "MC_WORKERS",
    "METRICS",
    "METRIC_LABELS",
    "MIN_DEBT_SHARE",
    "MIN_DRAWS",
    "RANK_TOLERANCE",
    "SOLVERS",
    "STRUCTURING",
    "WORST_LOW",
    "Z90",
    "Distribution",
    "DriverSpec",
    "Grid",
    "MonteCarlo",
    "Range",
    "Rule",
    "Settings",
    "Solution",
    "StressRun",
    "Tornado",
    "base_values",
    "check_monte_carlo_inputs",
    "check_ranges",
    "covenant_of",
    "default_ranges",
    "draw",
    "driver_bounds",
    "driver_description",
    "driver_text",
    "grid",
    "max_debt_share_for_dscr",
    "metric_text",
    "monte_carlo",
    "price_for_equity_irr",
    "rank_correlate",
    "read_drivers",
    "run_all",
    "sample",
    "solve",
    "solve_all",
    "tornado",
    "utilization_for_zero_npv",
]
