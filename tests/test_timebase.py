"""Time constants and the meaning of "year": operating years counted from go-live."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neoplan import timebase
from neoplan.design import facility
from neoplan.economics import revenue


def test_constants_are_the_ones_every_module_uses() -> None:
    assert timebase.HOURS_PER_MONTH == 730.5
    assert timebase.DAYS_PER_MONTH * 12 == timebase.DAYS_PER_YEAR == 365.25
    assert abs(timebase.WEEKS_PER_MONTH * 12 - 52.1775) < 1e-12
    assert revenue.HOURS_PER_MONTH is timebase.HOURS_PER_MONTH
    assert facility.HOURS_PER_YEAR is timebase.HOURS_PER_YEAR


def test_operating_year_index_by_hand() -> None:
    idx = timebase.operating_year_index(30, 4.4)
    # year 1 runs from month 4.4 to 16.4: months whose middle falls before 16.4 (0 … 15) count in it
    assert list(idx[:16]) == [0] * 16
    assert list(idx[16:28]) == [1] * 12 and list(idx[28:]) == [2, 2]


def test_operating_year_share_by_hand() -> None:
    share = timebase.operating_year_share(24, 2.25, 1)
    assert share[:2].sum() == 0 and share[2] == pytest.approx(0.75) and share[14] == pytest.approx(0.25)
    assert share[3:14].tolist() == [1.0] * 11 and share[15:].sum() == 0


@settings(max_examples=60, deadline=None)
@given(go_live=st.floats(0, 30), months=st.integers(48, 120))
def test_operating_years_tile_the_months_after_go_live(go_live: float, months: int) -> None:
    years = range(1, months // 12 + 2)
    total = sum(timebase.operating_year_share(months, go_live, y) for y in years)
    expected = np.clip(np.arange(months) + 1.0 - go_live, 0.0, 1.0)  # share of each month after go-live
    assert np.allclose(total, expected)
    idx = timebase.operating_year_index(months, go_live)
    assert np.all(np.diff(idx) >= 0) and np.all(np.diff(idx) <= 1) and idx[0] == 0
    assert np.all(np.bincount(idx)[1:-1] == 12)  # every full year in between holds 12 months
