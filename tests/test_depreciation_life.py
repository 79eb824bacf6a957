"""Operating life apart from depreciation: ``timeline.useful_life_months`` is when the cluster leaves service (and
is sold); ``financing.depreciation_life_months`` is the book's straight line. A shorter book life moves profit into
later years and changes no cash flow (tax follows its own rules: ``financing.tax_depreciation``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import neoplan
from neoplan.errors import ScenarioError
from neoplan.finance.assets import asset_flows


def test_a_book_life_apart_from_the_useful_life_depreciates_over_its_own_months() -> None:
    """$1,200 live at month 2, in service 72 months, booked over 48: $25 a month to month 50, nothing after; tax and
    the sale stay on the useful life."""
    same = asset_flows(1200.0, 100, 2.0, 72.0, 0.1, end_of_life="shutdown")
    short = asset_flows(1200.0, 100, 2.0, 72.0, 0.1, end_of_life="shutdown", book_life_months=48.0)
    np.testing.assert_allclose(short.book_depreciation[0, 2:50], 25.0, rtol=1e-12)
    assert short.book_depreciation[0, 50:].sum() == 0.0 and short.book_depreciation[0].sum() == pytest.approx(1200)
    np.testing.assert_allclose(same.book_depreciation[0, 2:74], 1200 / 72, rtol=1e-12)
    np.testing.assert_array_equal(short.tax_depreciation, same.tax_depreciation)
    np.testing.assert_array_equal(short.proceeds, same.proceeds)
    assert short.book_written_off.sum() == 0.0 and same.book_written_off.sum() == pytest.approx(0.0, abs=1e-9)
    assert short.book_gain.sum() == pytest.approx(same.book_gain.sum())  # both fully depreciated at the sale


def test_a_shorter_depreciation_life_lowers_book_profit_not_the_cash_flows() -> None:
    base = neoplan.load_scenario("optimized")
    short = neoplan.load_scenario({"base": "optimized", "financing": {"depreciation_life_months": 48}})
    a, b = neoplan.evaluate(base), neoplan.evaluate(short)
    ca, cb = a.ops.cash, b.ops.cash
    for flow in ("project_fcf", "equity_fcf", "tax", "revenue", "opex"):
        np.testing.assert_allclose(getattr(cb, flow), getattr(ca, flow), rtol=0, atol=1e-6, err_msg=flow)
    for key in ("project_irr", "equity_irr", "npv_usd", "min_dscr", "tco_usd_per_gpu_hour"):
        assert b.kpis[key] == pytest.approx(a.kpis[key], rel=1e-12, abs=1e-9), key
    go_live = math.ceil(a.ops.dates.go_live_month)
    four_years = slice(0, go_live + 48)
    assert cb.depreciation[0, four_years].sum() > ca.depreciation[0, four_years].sum() * 1.4  # 72/48 = 1.5 a month
    assert cb.net_income[0, four_years].sum() < ca.net_income[0, four_years].sum() - 1e6  # book profit lower
    assert cb.net_income[0].sum() == pytest.approx(ca.net_income[0].sum(), rel=1e-9)  # the same over the whole life


def test_the_depreciation_life_is_checked_and_defaults_to_the_useful_life() -> None:
    assert neoplan.load_scenario("optimized").financing.depreciation_life_months is None
    with pytest.raises(ScenarioError, match=r"financing\.depreciation_life_months"):
        neoplan.load_scenario({"base": "optimized", "financing": {"depreciation_life_months": 6}})
