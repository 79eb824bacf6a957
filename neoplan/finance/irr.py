"""Internal rate of return of monthly cash flows: the economically meaningful root (see :func:`irr_annual`).

Monthly grid as in :mod:`neoplan.finance.project`: month 0 undiscounted, outflows negative; arrays (n, months) hold n
cases, rows never interact. Annual IRR = ``(1 + monthly IRR) ** 12 - 1``. A part of each month's flow paid in the
middle of the month (``mid_month``: capex with ``timeline.capex_timing`` mid_month) puts the flows on a grid of
half months (:func:`half_month_grid`), where the root is found the same way: NPV at the IRR is then 0 with that part
discounted half a month less, as :func:`neoplan.finance.project.npv` discounts it.

Why not ``numpy_financial.irr`` at run time: it takes one series at a time (the roots of its polynomial by
eigenvalues) and returns the real root nearest 0, not the meaningful one chosen here. Measured (2026, 2-core machine,
numpy 2.4, numpy-financial 1.0): 1,000 series of 72 months take 2.6 s looped through ``npf.irr`` against 27 ms here,
a Monte Carlo chunk's worth; it stays the tests' oracle (``tests/test_finance.py``, ``tests/test_irr.py``).
"""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np

from ..timebase import MONTHS_PER_YEAR


def _discount_factors(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``x ** t`` for t = 0 … months-1 into ``out`` (n, months), whose first column holds 1, by repeated multiplication.

    Each row is its own running product: rows never interact.
    """
    out[:, 1:] = x[:, None]
    return np.multiply.accumulate(out, axis=1, out=out)  # np.cumprod, without its wrapper


IRR_GRID_MONTHLY = (
    -0.9,
    -0.8,
    -0.7,
    -0.6,
    -0.5,
    -0.4,
    -0.3,
    -0.25,
    -0.21,
    -0.18,
    -0.155,
    -0.135,
    -0.12,
    -0.105,
    -0.09,
    -0.075,
    -0.065,
    -0.055,
    -0.046,
    -0.038,
    -0.031,
    -0.025,
    -0.02,
    -0.015,
    -0.011,
    -0.007,
    -0.0035,
    0.0,
    0.0025,
    0.005,
    0.0075,
    0.01,
    0.0125,
    0.015,
    0.0175,
    0.02,
    0.025,
    0.03,
    0.035,
    0.04,
    0.05,
    0.06,
    0.075,
    0.1,
    0.13,
    0.17,
    0.25,
    0.35,
    0.5,
    0.7,
)
"""Monthly rates at which :func:`irr_annual` first tabulates NPV to bracket each root (between its ends)."""
IRR_LO_MONTHLY = -0.99
"""Lowest monthly rate the IRR search tries (−99.99…% a year)."""
IRR_HI_MONTHLY = 1.0
"""Highest monthly rate the IRR search tries (+409,500 % a year)."""

_BRACKET_POINTS = np.array([[0], [1], [-1]])
"""Grid offsets from a bracket's lower index j: its ends j and j + 1, and the point below it (j − 1)."""
_OTHERS, _LAST = np.array([1, 0, 0]), np.array([2, 2, 1])
"""For each of three points, the indices of the two others (see :func:`_inverse_quadratic`)."""


def _inverse_quadratic(x: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Root estimate inside each bracket [a, b] from the inverse quadratic through three points.

    ``x`` (3, n) holds a, b and a third point c, ``f`` (3, n) the values there. Falls back to linear
    interpolation between a and b where the quadratic is undefined or leaves the bracket. Call under
    ``np.errstate(divide="ignore", invalid="ignore")``: coincident values divide by 0.
    """
    a, b, fa, fb = x[0], x[1], f[0], f[1]
    others, last = f[_OTHERS], f[_LAST]  # the two values other than each point's own
    # Lagrange form of the inverse: Σ x_i · Π_{k≠i} f_k / Π_{k≠i} (f_i − f_k), summed a, b, c in turn
    quadratic = np.sum(x * others * last / ((f - others) * (f - last)), axis=0)
    inside = (quadratic > a) & (quadratic < b)
    linear = a - fa * (b - a) / (fb - fa)
    linear = np.where(np.isfinite(linear), np.minimum(np.maximum(linear, a), b), 0.5 * (a + b))
    return np.where(inside, quadratic, linear)


def _right_aligned(cf: np.ndarray) -> np.ndarray:
    """``cf`` (n, months) with each row shifted right until its last non-zero flow sits in the last month.

    A shift by k months multiplies NPV by ``(1 + r) ** -k``: the same roots, and the horizon-value form of
    :func:`_value_and_derivatives` then never underflows to 0 on trailing zero months.
    """
    months = cf.shape[1]
    shift = np.argmax(cf[:, ::-1] != 0, axis=1)  # trailing zero months of each row (0 for an all-zero row)
    if not shift.any():  # every row already ends on a flow (the usual case: cash until the horizon)
        return cf
    source = np.arange(months)[None, :] - shift[:, None]
    out = np.take_along_axis(cf, np.maximum(source, 0), axis=1)
    out[source < 0] = 0.0
    return out


def _exponents(rates: np.ndarray, months: int) -> np.ndarray:
    """Exponent of ``(1 + r)`` for each rate (rows) and month (columns): ``-t`` at r ≥ 0, ``months - 1 - t`` below.

    NPV (``Σ cf (1 + r)^-t``) overflows at very negative rates (``0.01^-240``); the value at the horizon
    (``Σ cf (1 + r)^(months-1-t)`` = NPV × ``(1 + r)^(months-1)``) has the same sign and roots and stays
    within [0, 1] per flow there, as NPV does at r ≥ 0.
    """
    t = np.arange(months, dtype=float)
    return np.where(np.asarray(rates)[..., None] < 0, months - 1.0 - t, -t)


def _power_weights(months: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(k, k (k − 1) / 2, −k, k (k + 1) / 2) for k = 0 … months-1: see :func:`_row_coefficients`."""
    k = np.arange(months, dtype=float)
    return k, 0.5 * k * (k - 1.0), -k, 0.5 * k * (k + 1.0)


def _row_coefficients(cf: np.ndarray, below: np.ndarray) -> np.ndarray:
    """Coefficients (3, n, months) of ``p ** k`` (k = 0 … months-1) in (f, (1+r) f', (1+r)² f''/2) of each row of
    ``cf`` on its side of rate 0 (``below`` (n,): r < 0).

    Below rate 0 (horizon value, ``p = 1 + r``): the row reversed, times k and times k (k − 1) / 2. At
    r ≥ 0 (NPV, ``p = 1 / (1 + r)``): the row, times −k and times k (k + 1) / 2. See :func:`_value_and_derivatives`.
    """
    k, below_curvature, above_slope, above_curvature = _power_weights(cf.shape[1])
    rows_below = below[:, None]
    out = np.empty((3, *cf.shape))
    np.copyto(out[0], np.where(rows_below, cf[:, ::-1], cf))
    np.multiply(out[0], np.where(rows_below, k, above_slope), out=out[1])
    np.multiply(out[0], np.where(rows_below, below_curvature, above_curvature), out=out[2])
    return out


def _value_and_derivatives(
    coefficients: np.ndarray, below: np.ndarray, powers: np.ndarray, r: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(f, f', f''/2f') of each row at monthly rates ``r`` (n,) (f' = df/dr), from its ``coefficients``.

    ``coefficients`` (3, n, months) are :func:`_row_coefficients` for the side of rate 0 in ``below``
    (r < 0). f is NPV at r ≥ 0, else the value at the horizon: both have NPV's sign and roots (see
    :func:`_exponents`). ``powers`` (n, months) is scratch space whose first column is 1. Row-wise sums of
    products (``einsum`` without BLAS): rows never interact.
    """
    growth = 1.0 + r
    _discount_factors(np.where(below, growth, 1.0 / growth), powers)
    value, slope, half_curvature = np.einsum("kij,ij->ki", coefficients, powers, optimize=False)
    return value, slope / growth, half_curvature / (slope * growth)


def half_month_grid(cash_flows: np.ndarray, mid_month: np.ndarray) -> np.ndarray:
    """Monthly ``cash_flows`` (n, months) as flows on a grid of half months (n, 2 months) [USD]: step 2t holds the
    part of month t's flow paid mid-month, ``mid_month`` (n, months), step 2t + 1 the rest, at the month's end."""
    cf = np.atleast_2d(cash_flows)
    out = np.empty((cf.shape[0], 2 * cf.shape[1]))
    out[:, 0::2] = mid_month
    np.subtract(cf, mid_month, out=out[:, 1::2])
    return out


def _per_step(monthly_rate: float, steps: int) -> float:
    """The rate per step of a grid of ``steps`` steps a month equivalent to ``monthly_rate`` (itself for 1)."""
    return float(monthly_rate if steps == 1 else (1.0 + monthly_rate) ** (1.0 / steps) - 1.0)


def _grid(lo: float, hi: float, months: int, *more: float, steps: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(rates per step (ascending), factors (rates, months)): ``IRR_GRID_MONTHLY`` between ``lo`` and ``hi``, with
    ``lo``, 0, ``hi`` and ``more`` rates, all per step of a grid of ``steps`` steps a month (``lo``, ``hi`` and
    ``more`` already are; ``months`` counts steps). The factors give NPV at rates ≥ 0 and the value at the horizon
    below 0 (see :func:`_exponents`)."""
    grid = (_per_step(g, steps) for g in IRR_GRID_MONTHLY)
    rates = np.unique(np.array([lo, *(g for g in grid if lo < g < hi), 0.0, *more, hi]))
    return rates, (1.0 + rates[:, None]) ** _exponents(rates, months)


def _grid_values(cf: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """NPV (or value at the horizon, see :func:`_exponents`) (n, rates) of each row of ``cf`` (n, months) at each rate
    of ``factors`` (rates, months): row-wise sums of products (``einsum`` without BLAS)."""
    return np.einsum("ij,kj->ik", cf, factors, optimize=False)


def _npv_table(
    cf: np.ndarray, lo: float, hi: float, hurdle: float, steps: int = 1
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(rates per step, table (n, rates), index of rate 0, index of the hurdle) of :func:`irr_annual`'s grid.

    The grid of :func:`_grid` with the ``hurdle``; the table holds NPV of each row of ``cf`` (n, steps) at rates ≥ 0
    and the value at the horizon below 0 (see :func:`_exponents`).
    """
    rates, factors = _grid(lo, hi, cf.shape[1], hurdle, steps=steps)
    listed = rates.tolist()
    return rates, _grid_values(cf, factors), bisect_left(listed, 0.0), bisect_left(listed, hurdle)


def irr_annual(
    cash_flows: np.ndarray,
    *,
    hurdle: float = 0.0,
    mid_month: np.ndarray | None = None,
    lo: float = IRR_LO_MONTHLY,
    hi: float = IRR_HI_MONTHLY,
    tol: float = 1e-12,
    max_iterations: int = 200,
) -> np.ndarray:
    """Annual IRR of monthly ``cash_flows`` (..., months): the economically meaningful root, or ``nan``.

    Which root: NPV at rate 0 is the undiscounted sum (its sign is that of MOIC − 1). If it is positive,
    the IRR is the lowest root above 0, where NPV falls through zero; if negative, the highest root below
    0, where NPV, read from the right, first turns positive; if zero, 0. So the IRR has the sign of
    MOIC − 1, and NPV is positive below it and negative above it (an investment's IRR). It must also agree
    with NPV at the ``hurdle`` [annual rate]: NPV(hurdle) > 0 exactly when IRR > hurdle, so no further root
    may lie between the IRR and the hurdle; if one does, the flows have no single meaningful IRR and the
    result is ``nan`` (as it is when no root lies in the monthly range ``lo`` … ``hi``). With one sign change
    in the flows (outflows, then inflows) the root is unique and always chosen.

    How: NPV is tabulated at ``IRR_GRID_MONTHLY`` plus 0 and the hurdle (below rate 0 as the value at the
    horizon, which does not overflow; same sign, same roots), the bracket is chosen as above and refined
    from the inverse quadratic through it and a neighbouring grid point by a Halley step (Newton's, corrected
    for curvature) when the step stays inside the bracket and at least halves the step before last, else
    bisection (``rtsafe`` of Numerical Recipes, with Halley's step), until a bisection moves less than ``tol``
    [monthly rate] or a Halley step less than ``√(tol / months)``. Roots closer together than the grid's
    spacing are not told apart. Rows never interact: a case gives the same IRR alone or in a batch, to rounding
    (numpy may sum arrays of another shape in another order).

    ``mid_month`` (same shape as the flows): the part of each month's flow paid in its middle; the root is then
    found on :func:`half_month_grid` (rates, ``lo``, ``hi`` and ``tol`` per half month), NPV counting that part half
    a month earlier.
    """
    cf = np.atleast_2d(np.asarray(cash_flows, dtype=float))
    hurdle_monthly = (1.0 + float(hurdle)) ** (1.0 / MONTHS_PER_YEAR) - 1.0  # timebase.monthly_rate, as a float
    if not lo < min(0.0, hurdle_monthly) <= max(0.0, hurdle_monthly) < hi:
        raise ValueError(f"the IRR range {lo} … {hi} a month must contain 0 and the hurdle rate")
    steps = 1
    if mid_month is not None:
        cf, steps = half_month_grid(cf, np.atleast_2d(np.asarray(mid_month, dtype=float))), 2
    lo, hi, hurdle_step = (_per_step(float(x), steps) for x in (lo, hi, hurdle_monthly))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = _irr_monthly(_right_aligned(cf), lo, hi, hurdle_step, tol / steps, max_iterations, steps)
    out = (1.0 + r) ** (MONTHS_PER_YEAR * steps) - 1.0
    return out.reshape(np.shape(cash_flows)[:-1]) if np.ndim(cash_flows) > 1 else out[0]


def _bracket_constants(size: int, at_zero: int, at_hurdle: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, slice]:
    """For grid index k = 0 … size-1: sign(k − at_zero), |k − at_zero|, ½ − k from 0 to the hurdle.

    And the slice of k from 0 to the hurdle (both included).
    """
    k = np.arange(size)
    span = slice(min(at_zero, at_hurdle), max(at_zero, at_hurdle) + 1)
    return np.sign(k - at_zero), np.abs(k - at_zero), 0.5 - k[span], span


def _meaningful_bracket(sign: np.ndarray, at_zero: int, at_hurdle: int) -> tuple[np.ndarray, np.ndarray]:
    """(bracket index j: the root lies in [rates[j], rates[j+1]], whether it is the meaningful IRR) per row.

    ``sign`` (n, rates) is NPV's sign on the grid; see :func:`irr_annual` for the rule.
    """
    size = sign.shape[1]
    side, distance, half_below, span = _bracket_constants(size, at_zero, at_hurdle)
    s0 = sign[:, at_zero, None]
    # grid points on the side of 0 that NPV(0) points to (0 itself if NPV(0) = 0) where NPV is ≤ 0 (above 0)
    # or ≥ 0 (below 0); the root's bracket ends at the one nearest to 0
    candidate = (sign * s0 <= 0) & (side == s0)
    nearest = np.argmin(np.where(candidate, distance, size), axis=1)
    j = nearest - (nearest >= at_zero)
    # between the root and the hurdle NPV must keep the sign the IRR predicts: > 0 at and below j, < 0
    # above; 0 only at the bracket's ends j and j + 1. Between 0 and the root it does so by the choice of j,
    # so checking from 0 to the hurdle is the same. u = j + ½ − k has that sign and |u| = ½ at the ends.
    u = j[:, None] + half_below
    fits = sign[:, span] * u >= np.abs(u) - 0.5
    return j, candidate.any(axis=1) & fits.all(axis=1)


def _irr_monthly(
    cf: np.ndarray, lo: float, hi: float, hurdle: float, tol: float, max_iterations: int, steps: int = 1
) -> np.ndarray:
    """IRR per step (``nan`` where undefined) of each row of right-aligned ``cf`` (n, months × ``steps``), rates per
    step of ``steps`` steps a month; see :func:`irr_annual`."""
    n, months = cf.shape
    rates, table, at_zero, at_hurdle = _npv_table(cf, lo, hi, hurdle, steps)
    j, ok = _meaningful_bracket(np.sign(table), at_zero, at_hurdle)
    points = j + _BRACKET_POINTS  # the bracket [a, b] and a third grid point c next to it: below, else 2nd above
    points[2, j == 0] = 2
    x, f = rates[points], table[np.arange(n), points]
    a, b, fa, fb = x[0], x[1], f[0], f[1]
    r = np.where(fa == 0, a, np.where(fb == 0, b, _inverse_quadratic(x, f)))  # a root on the grid is the root
    solving = ok & (fa != 0) & (fb != 0)
    r = np.where(ok, r, np.nan)
    step_tol = max(math.sqrt(tol / months), tol)  # a Halley step's error is ~ |f‴/6f' − (f″/2f')²| h³ ≪ tol
    # the rows still solving, compacted: their index, bracket [a, b], sign of f(a), rate, half the step before
    # last and the last step, the side of rate 0 their coefficients are for; those and scratch space
    idx = np.flatnonzero(solving)
    width = b - a
    state = [v[idx] for v in (a, b, np.sign(fa), r, 0.5 * width, width, r < 0)]
    coefficients, powers = _row_coefficients(cf[idx], state[6]), np.ones((idx.size, months))
    for _ in range(max_iterations):
        if idx.size == 0:
            break
        aa, bb, sign_a, rr, half_before, step, sides = state
        below = rr < 0
        crossed = below != sides  # rows whose rate crossed 0 take the coefficients of their new side
        coefficients[:, crossed] = _row_coefficients(cf[idx[crossed]], below[crossed])
        value, slope, bend = _value_and_derivatives(coefficients, below, powers, rr)
        same = np.sign(value) == sign_a  # f(rr) has f(a)'s sign: the root lies above rr
        aa, bb = np.where(same, rr, aa), np.where(same, bb, rr)
        halley_step = value / (slope - value * bend)  # Newton's value / slope, corrected for curvature
        halley = rr - halley_step
        moved = np.abs(halley_step)
        use_halley = (halley >= aa) & (halley <= bb) & (moved <= half_before)
        nxt = np.where(use_halley, halley, 0.5 * (aa + bb))
        moved = np.abs(nxt - rr)
        finished = moved <= np.where(use_halley, step_tol, tol)
        nxt, finished = np.where(value == 0, rr, nxt), finished | (value == 0)  # at a root
        state = [aa, bb, sign_a, nxt, 0.5 * step, moved, below]
        done = np.count_nonzero(finished)
        if done:
            r[idx[finished]] = nxt[finished]
            if done == idx.size:
                break
            keep = ~finished
            idx, state = idx[keep], [v[keep] for v in state]
            coefficients, powers = coefficients[:, keep], powers[: idx.size]  # scratch: any rows will do
    return r


def irr_candidates_annual(
    cash_flows: np.ndarray,
    *,
    mid_month: np.ndarray | None = None,
    lo: float = IRR_LO_MONTHLY,
    hi: float = IRR_HI_MONTHLY,
) -> list[float]:
    """Annual rates near which the NPV of one row of monthly ``cash_flows`` is zero (grid brackets, interpolated);
    ``mid_month`` as in :func:`irr_annual`.

    For messages that explain an undefined IRR: several entries mean the flows have several IRRs.
    """
    cf, steps = np.atleast_2d(np.asarray(cash_flows, dtype=float))[:1], 1
    if mid_month is not None:
        cf, steps = half_month_grid(cf, np.atleast_2d(np.asarray(mid_month, dtype=float))[:1]), 2
    cf = _right_aligned(cf)
    rates, factors = _grid(_per_step(lo, steps), _per_step(hi, steps), cf.shape[1], steps=steps)  # rate 0 is on it
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        table = _grid_values(cf, factors)[0]
        change = np.nonzero(np.sign(table[:-1]) * np.sign(table[1:]) < 0)[0]
        a, b, fa, fb = rates[change], rates[change + 1], table[change], table[change + 1]
        roots = np.concatenate([rates[table == 0], a - fa * (b - a) / (fb - fa)])
    return sorted(float((1.0 + x) ** (MONTHS_PER_YEAR * steps) - 1.0) for x in roots)
