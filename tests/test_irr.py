"""The IRR search of :mod:`neoplan.finance.irr`: grid with the hurdle, bracket rule, batches (see also
test_finance.py)."""

from __future__ import annotations

import numpy as np
import pytest

from neoplan.finance import irr
from neoplan.timebase import monthly_rate


def _bracket_by_hand(sign: np.ndarray, at_zero: int, at_hurdle: int) -> tuple[int, bool]:
    """The rule of :func:`neoplan.finance.irr.irr_annual` for one row of grid signs, read point by point."""
    s0 = sign[at_zero]
    if s0 > 0:  # from 0 up: the first grid point where NPV is ≤ 0 ends the bracket
        ends = [k for k in range(at_zero + 1, sign.size) if sign[k] <= 0]
        j, found = (ends[0] - 1, True) if ends else (0, False)
    elif s0 < 0:  # from 0 down: the first grid point where NPV is ≥ 0 starts it
        starts = [k for k in range(at_zero - 1, -1, -1) if sign[k] >= 0]
        j, found = (starts[0], True) if starts else (0, False)
    else:
        j, found = at_zero - 1, True
    for k in range(sign.size):  # between the root and the hurdle NPV keeps the sign the IRR predicts
        if j < k <= at_hurdle and not (sign[k] < 0 or (k == j + 1 and sign[k] == 0)):
            found = False
        if at_hurdle <= k <= j and not (sign[k] > 0 or (k == j and sign[k] == 0)):
            found = False
    return j, found


def test_the_bracket_rule_matches_a_point_by_point_reading() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        size = int(rng.integers(3, 12))
        at_zero, at_hurdle = int(rng.integers(1, size - 1)), int(rng.integers(1, size - 1))
        sign = rng.choice([-1.0, 0.0, 1.0], p=[0.45, 0.1, 0.45], size=(6, size))
        j, ok = irr._meaningful_bracket(sign, at_zero, at_hurdle)
        for row in range(6):
            want_j, want_ok = _bracket_by_hand(sign[row], at_zero, at_hurdle)
            assert bool(ok[row]) == want_ok, (sign[row], at_zero, at_hurdle)
            if want_ok:
                assert j[row] == want_j, (sign[row], at_zero, at_hurdle)


@pytest.mark.parametrize("hurdle", [0.0, 0.12, -0.3, float(1.01**12 - 1), 0.25])
def test_the_grid_holds_the_hurdle_in_order(hurdle: float) -> None:
    h = float(monthly_rate(hurdle))
    flows = np.random.default_rng(2).normal(size=(3, 30))
    rates, table, at_zero, at_hurdle = irr._npv_table(flows, irr.IRR_LO_MONTHLY, irr.IRR_HI_MONTHLY, h)
    assert np.all(np.diff(rates) > 0)
    assert rates[at_zero] == 0.0 and rates[at_hurdle] == h
    factors = (1.0 + rates[None, :]) ** irr._exponents(rates, 30).T  # (months, rates), as one matrix
    np.testing.assert_allclose(table, flows @ factors, rtol=1e-12, atol=1e-12 * np.abs(flows).sum())  # another path


def test_a_case_gives_the_same_irr_alone_or_in_a_batch() -> None:
    rng = np.random.default_rng(5)
    months = 48
    t = np.arange(months)
    flows = np.where(t < 6, -10.0, rng.uniform(0.0, 4.0, (40, months)) * rng.uniform(0.1, 1.5, (40, 1)))
    flows[::7, 30:] = 0.0  # trailing zero months
    flows[3] = np.r_[-100.0, 230.0, -132.0, np.zeros(months - 3)]  # no meaningful IRR
    flows[4] = np.r_[-100.0, 50.0, 50.0, np.zeros(months - 3)]  # IRR exactly 0 (a grid point)
    together = irr.irr_annual(flows, hurdle=0.1)
    assert (together > 0).any() and (together < 0).any() and np.isnan(together[3]) and together[4] == 0.0
    for row in range(flows.shape[0]):
        alone = irr.irr_annual(flows[row], hurdle=0.1)
        assert alone == pytest.approx(together[row], rel=1e-12, abs=1e-15, nan_ok=True), row  # other array shapes


def test_the_irr_zeroes_npv_on_either_side_of_zero() -> None:
    for gain in (0.3, 1.0, 2.5):
        flows = np.r_[-1000.0, np.full(59, gain * 1000.0 / 59)]
        rate = float(monthly_rate(irr.irr_annual(flows)))
        npv = float(np.sum(flows * (1.0 + rate) ** -np.arange(60.0)))
        assert npv == pytest.approx(0.0, abs=1e-8)
        assert np.sign(rate) == np.sign(gain - 1.0)


def test_mid_month_flows_zero_npv_at_their_irr_with_the_same_timing() -> None:
    """Capex paid mid-month: the IRR found on the grid of half months makes NPV 0 with that part discounted half a
    month less (finance.npv), is numpy-financial's IRR of that grid, and lies below the month-end IRR."""
    import numpy_financial as npf

    from neoplan.finance import project as finance

    rng = np.random.default_rng(11)
    months = 36
    flows = np.where(np.arange(months) < 4, -250.0, rng.uniform(35.0, 80.0, (5, months)))  # IRRs above 0
    mid = np.where(np.arange(months) < 4, flows, 0.0)  # the capex months are paid mid-month
    mid[:, 1] *= 0.5  # half of month 1's payment only
    at_end, at_mid = irr.irr_annual(flows, hurdle=0.12), irr.irr_annual(flows, hurdle=0.12, mid_month=mid)
    assert np.all(at_mid > 0.0) and np.all(at_mid < at_end)  # paying earlier costs a positive IRR
    for row in range(flows.shape[0]):
        assert float(finance.npv(at_mid[row], flows[row], mid[row])) == pytest.approx(0.0, abs=1e-8 * 1000.0)
        grid = irr.half_month_grid(flows[row], mid[row])[0]
        assert at_mid[row] == pytest.approx((1.0 + npf.irr(grid)) ** 24 - 1.0, rel=1e-9)
        alone = irr.irr_annual(flows[row], hurdle=0.12, mid_month=mid[row])
        assert alone == pytest.approx(at_mid[row], rel=1e-12)
    assert irr.irr_candidates_annual(flows[0], mid_month=mid[0]) == pytest.approx([at_mid[0]], rel=1e-2)  # interpolated
    no_mid = irr.irr_annual(flows, hurdle=0.12, mid_month=np.zeros(flows.shape))  # nothing paid mid-month
    np.testing.assert_allclose(no_mid, at_end, rtol=1e-9)
