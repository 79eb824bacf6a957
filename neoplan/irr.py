"""Internal rate of return of monthly cash flows: the economically meaningful root (see :func:`irr_annual`).

Monthly grid as in :mod:`neoplan.finance`: month 0 undiscounted, outflows negative; arrays (n, months) hold n
cases, rows never interact. Annual IRR = ``(1 + monthly IRR) ** 12 - 1``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .timebase import MONTHS_PER_YEAR, monthly_rate


def _discount_factors(x: np.ndarray, months: int) -> np.ndarray:
    """``x ** t`` for t = 0 … months-1, one row per case (n, months), by repeated multiplication along each row.

    Each row comes from the same multiplications whatever the number of rows, so a case's result does
    not depend on the batch it is evaluated in.
    """
    out = np.empty((x.size, months))
    out[:, 0] = 1.0
    out[:, 1:] = x[:, None]
    return np.cumprod(out, axis=1, out=out)


IRR_GRID_MONTHLY = (
    -0.7, -0.5, -0.4, -0.3, -0.25, -0.21, -0.18, -0.155, -0.135, -0.12, -0.105, -0.09, -0.075, -0.065, -0.055,
    -0.046, -0.038, -0.031, -0.025, -0.02, -0.015, -0.011, -0.007, -0.0035, 0.0, 0.0025, 0.005, 0.0075, 0.01,
    0.0125, 0.015, 0.0175, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.06, 0.075, 0.1, 0.13, 0.17, 0.25, 0.35, 0.5,
    0.7,
)
"""Monthly rates at which :func:`irr_annual` first tabulates NPV to bracket each root (between its ends)."""
IRR_LO_MONTHLY = -0.99
"""Lowest monthly rate the IRR search tries (−99.99…% a year)."""
IRR_HI_MONTHLY = 1.0
"""Highest monthly rate the IRR search tries (+409,500 % a year)."""


def _inverse_quadratic(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, fa: np.ndarray, fb: np.ndarray, fc: np.ndarray
) -> np.ndarray:
    """Root estimate inside each bracket [a, b] from the inverse quadratic through three points.

    Falls back to linear interpolation between a and b where the quadratic is undefined or leaves the
    bracket. Call under ``np.errstate(divide="ignore", invalid="ignore")``: coincident values divide by 0.
    """
    quadratic = (
        a * fb * fc / ((fa - fb) * (fa - fc))
        + b * fa * fc / ((fb - fa) * (fb - fc))
        + c * fa * fb / ((fc - fa) * (fc - fb))
    )
    linear = a - fa * (b - a) / (fb - fa)
    linear = np.where(np.isfinite(linear), np.minimum(np.maximum(linear, a), b), 0.5 * (a + b))
    return np.where((quadratic > a) & (quadratic < b), quadratic, linear)


def _right_aligned(cf: np.ndarray) -> np.ndarray:
    """``cf`` (n, months) with each row shifted right until its last non-zero flow sits in the last month.

    A shift by k months multiplies NPV by ``(1 + r) ** -k``: the same roots, and the horizon-value form of
    :func:`_value_and_slope` then never underflows to 0 on trailing zero months.
    """
    months = cf.shape[1]
    shift = np.argmax(cf[:, ::-1] != 0, axis=1)  # trailing zero months of each row (0 for an all-zero row)
    if not shift.any():
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


def _value_and_slope(cf: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(f, df/dr) of each row of ``cf`` (n, months) at monthly rates ``r`` (n,): NPV at r ≥ 0, else horizon value.

    Both forms have NPV's sign and roots (see :func:`_exponents`). Row-wise sums of products (``einsum``
    without BLAS), so each row's result is independent of the others.
    """
    months = cf.shape[1]
    below = r < 0
    powers = _discount_factors(np.where(below, 1.0 + r, 1.0 / (1.0 + r)), months)  # base^k, k = 0 … months-1
    t = np.arange(months, dtype=float)
    if below.all():
        factors, exponents = np.ascontiguousarray(powers[:, ::-1]), months - 1.0 - t
    elif below.any():
        factors, exponents = np.where(below[:, None], powers[:, ::-1], powers), _exponents(r, months)
    else:
        factors, exponents = powers, -t
    value = np.einsum("ij,ij->i", cf, factors, optimize=False)
    factors *= exponents
    return value, np.einsum("ij,ij->i", cf, factors, optimize=False) / (1.0 + r)


@lru_cache(maxsize=32)
def _irr_grid(lo: float, hi: float, months: int, hurdle: float) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(monthly rates, factors (months, rates), index of rate 0, index of the hurdle) of :func:`irr_annual`'s grid.

    The factors give NPV at rates ≥ 0 and the value at the horizon below 0 (see :func:`_exponents`).
    """
    rates = np.unique(np.array([lo, *(g for g in IRR_GRID_MONTHLY if lo < g < hi), 0.0, hurdle, hi]))
    factors = (1.0 + rates[None, :]) ** _exponents(rates, months).T
    rates.flags.writeable = factors.flags.writeable = False
    return rates, factors, int(np.searchsorted(rates, 0.0)), int(np.searchsorted(rates, hurdle))


def irr_annual(
    cash_flows: np.ndarray,
    *,
    hurdle: float = 0.0,
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
    from the inverse quadratic through it and a neighbouring grid point by a Newton step when the step stays
    inside the bracket and at least halves the step before last, else bisection (``rtsafe`` of Numerical
    Recipes), until a bisection moves less than ``tol`` [monthly rate] or a Newton step less than
    ``√(tol / months)``. Roots closer together than the grid's spacing are not told apart. Rows never
    interact, so a case gives the same IRR alone or in a batch.
    """
    cf = np.atleast_2d(np.asarray(cash_flows, dtype=float))
    hurdle_monthly = float(monthly_rate(hurdle))
    if not lo < min(0.0, hurdle_monthly) <= max(0.0, hurdle_monthly) < hi:
        raise ValueError(f"the IRR range {lo} … {hi} a month must contain 0 and the hurdle rate")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r, ok = _irr_monthly(_right_aligned(cf), float(lo), float(hi), hurdle_monthly, tol, max_iterations)
    out = np.where(ok, (1.0 + r) ** MONTHS_PER_YEAR - 1.0, np.nan)
    return out.reshape(np.shape(cash_flows)[:-1]) if np.ndim(cash_flows) > 1 else out[0]


def _meaningful_bracket(sign: np.ndarray, at_zero: int, at_hurdle: int) -> tuple[np.ndarray, np.ndarray]:
    """(bracket index j: the root lies in [rates[j], rates[j+1]], whether it is the meaningful IRR) per row.

    ``sign`` (n, rates) is NPV's sign on the grid; see :func:`irr_annual` for the rule.
    """
    size = sign.shape[1]
    k = np.arange(size)
    s0 = sign[:, at_zero]
    falls = (sign[:, 1:] <= 0) & (k[:-1] >= at_zero)  # from 0 up: the first grid point where NPV is ≤ 0
    rises = (sign[:, :-1] >= 0) & (k[:-1] < at_zero)  # from 0 down: the first grid point where NPV is ≥ 0
    up, down = np.argmax(falls, axis=1), size - 2 - np.argmax(rises[:, ::-1], axis=1)
    j = np.where(s0 > 0, up, np.where(s0 < 0, down, at_zero - 1))
    found = np.where(s0 > 0, falls.any(axis=1), np.where(s0 < 0, rises.any(axis=1), True))
    jj = j[:, None]
    # between the root and the hurdle NPV must keep the sign the IRR predicts: < 0 above the root, > 0 below
    wrong_above = (k > jj) & (k <= at_hurdle) & ~((sign < 0) | ((k == jj + 1) & (sign == 0)))
    wrong_below = (k >= at_hurdle) & (k <= jj) & ~((sign > 0) | ((k == jj) & (sign == 0)))
    return np.maximum(j, 0), found & ~(wrong_above | wrong_below).any(axis=1)


def _irr_monthly(cf: np.ndarray, lo: float, hi: float, hurdle: float, tol: float, max_iterations: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(monthly IRR, whether defined) of each row of ``cf`` (n, months), right-aligned; see :func:`irr_annual`."""
    n, months = cf.shape
    rates, factors, at_zero, at_hurdle = _irr_grid(lo, hi, months, hurdle)
    table = np.einsum("ij,jk->ik", cf, factors, optimize=False)
    j, ok = _meaningful_bracket(np.sign(table), at_zero, at_hurdle)
    rows = np.arange(n)
    a, b, fa, fb = rates[j], rates[j + 1], table[rows, j], table[rows, j + 1]
    k = np.where(j > 0, j - 1, np.minimum(j + 2, rates.size - 1))  # a third grid point next to the bracket
    r = _inverse_quadratic(a, b, rates[k], fa, fb, table[rows, k])
    r = np.where(fa == 0, a, np.where(fb == 0, b, r))
    newton_tol = max(math.sqrt(tol / months), tol)  # Newton's error after a step h is ~ |f''/2f'| h² ≤ months h²
    # the rows still solving, compacted: their index, flows, rate, bracket [a, b] (f(a) = fa), last two steps
    idx = np.nonzero(ok & (fa != 0) & (fb != 0))[0]
    state = [cf[idx], r[idx], a[idx], b[idx], fa[idx], b[idx] - a[idx], b[idx] - a[idx]]
    for _ in range(max_iterations):
        if idx.size == 0:
            break
        flows, rr, aa, bb, faa, step_before, step = state
        value, slope = _value_and_slope(flows, rr)
        same = np.sign(value) == np.sign(faa)
        aa, faa, bb = np.where(same, rr, aa), np.where(same, value, faa), np.where(same, bb, rr)
        newton = rr - value / slope
        use_newton = (newton >= aa) & (newton <= bb) & (np.abs(2.0 * value) <= np.abs(step_before * slope))
        at_root = value == 0
        nxt = np.where(at_root, rr, np.where(use_newton, newton, 0.5 * (aa + bb)))
        moved = np.abs(nxt - rr)
        finished = at_root | (moved <= tol) | (use_newton & (moved <= newton_tol))
        state = [flows, nxt, aa, bb, faa, step, moved]
        if finished.any():
            r[idx[finished]] = nxt[finished]
            keep = ~finished
            idx, state = idx[keep], [x[keep] for x in state]
    return r, ok


def irr_candidates_annual(cash_flows: np.ndarray, *, lo: float = IRR_LO_MONTHLY, hi: float = IRR_HI_MONTHLY
                          ) -> list[float]:
    """Annual rates near which the NPV of one row of monthly ``cash_flows`` is zero (grid brackets, interpolated).

    For messages that explain an undefined IRR: several entries mean the flows have several IRRs.
    """
    cf = _right_aligned(np.atleast_2d(np.asarray(cash_flows, dtype=float))[:1])
    rates, factors, _, _ = _irr_grid(float(lo), float(hi), cf.shape[1], 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        table = (cf @ factors)[0]
        change = np.nonzero(np.sign(table[:-1]) * np.sign(table[1:]) < 0)[0]
        a, b, fa, fb = rates[change], rates[change + 1], table[change], table[change + 1]
        roots = np.concatenate([rates[table == 0], a - fa * (b - a) / (fb - fa)])
    return sorted(float((1.0 + x) ** MONTHS_PER_YEAR - 1.0) for x in roots)
