"""The break-even price: NPV as an exact piecewise-linear curve of the price, under either tax period."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neoplan
from neoplan.finance import project as finance
from neoplan.finance import returns


def _direct_npv(
    at_zero: float,
    per_usd: float,
    taxable_at_zero: np.ndarray,
    taxable_per_usd: np.ndarray,
    discount: np.ndarray,
    rate: float,
    period: int,
    price: float,
) -> float:
    """What :func:`returns.price_curve` stands for, computed the long way: the tax at that price, discounted."""
    tax = finance.tax_with_loss_carry_forward(taxable_at_zero + price * taxable_per_usd, rate, period_months=period)
    return at_zero + per_usd * price - float(tax @ discount)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda months: st.tuples(
            st.lists(st.floats(-1e5, 1e5), min_size=months, max_size=months),
            st.lists(st.floats(0.0, 1e3), min_size=months, max_size=months),
        )
    ),
    st.floats(-5e6, 5e5),
    st.floats(0.0, 1.0),
    st.floats(0.0, 0.5),
    st.sampled_from([1, 12]),
    st.floats(0.0, 50.0),
)
def test_the_price_curve_is_the_npv_of_the_tax_it_stands_for(
    arrays: tuple[list[float], list[float]], at_zero: float, rate: float, hurdle: float, period: int, price: float
) -> None:
    """At any price the curve's value is the NPV with the tax of :func:`finance.tax_with_loss_carry_forward`; its
    slopes to the right bound every chord as a concave curve's do, and are ≥ 0; its root has NPV 0."""
    taxable_at_zero, taxable_per_usd = np.array(arrays[0]), np.array(arrays[1])
    months = taxable_at_zero.size
    discount = (1.0 + float(finance.monthly_rate(hurdle))) ** -np.arange(months)
    per_usd = float(taxable_per_usd @ discount) + 1.0  # before tax each $ adds at least the PV of its EBITDA
    args = (at_zero, per_usd, taxable_at_zero, taxable_per_usd, discount, rate, period)
    curve = returns.price_curve(*args)
    scale = abs(at_zero) + (np.abs(taxable_at_zero).sum() + np.abs(taxable_per_usd).sum() * (price + 1.0)) + 1.0
    value, slope = curve.at(price)
    assert value == pytest.approx(_direct_npv(*args, price), abs=1e-9 * scale)
    assert slope >= -1e-9 * scale
    for step in (1e-6, 1e-2, 1.0):
        chord = _direct_npv(*args, price + step) - value
        assert curve.at(price + step)[1] * step - 1e-9 * scale <= chord <= slope * step + 1e-9 * scale
    root = curve.root(1e6)
    if np.isfinite(root) and root > 0:
        assert _direct_npv(*args, root) == pytest.approx(0.0, abs=1e-9 * (scale + per_usd * root))


@pytest.mark.parametrize(
    "sections",
    [
        {"financing": {"tax_period_months": 12}},
        {"financing": {"tax_period_months": 1}},
        {"timeline": {"capex_timing": "mid_month"}},
    ],
)
@pytest.mark.parametrize("preset", ["optimized", "b200_1024"])
def test_npv_at_the_break_even_price_is_zero_under_either_tax_period(preset: str, sections: dict) -> None:
    """Exact to rounding: the project NPV at the break-even price is within 1e-9 of capex of 0 (it is ~1e-8 USD),
    with tax years, monthly tax or mid-month capex."""
    r = neoplan.evaluate(neoplan.load_scenario({"base": preset, **sections}))
    opex_fixed = {k: v[0] for k, v in r.ops.opex_by_category.items() if k != "sga"}
    args = (r.scenario, r.ops.dates, r.capex_total_usd, opex_fixed)
    price = returns.breakeven_price(*args)
    assert 1.0 < price < 10.0
    assert returns.project_npv(*args, np.array([price]))[0] == pytest.approx(0.0, abs=1e-9 * r.capex_total_usd)
    assert returns.project_npv(*args, np.array([price * (1 - 1e-6)]))[0] < 0.0


def test_mid_month_capex_moves_every_return_by_its_timing() -> None:
    """b300_1024 sold through the 2024 neocloud book (IRRs above 0, NPV above 0) with capex paid mid-month:
    NPV falls by the capex's half month at the hurdle rate; the IRRs fall and zero NPV with the same timing; TCO and
    break-even rise; payback (undiscounted) does not move. (With an IRR below 0 paying earlier raises it: a half
    month weighs less at a negative rate.)"""
    base = {"base": "b300_1024", "pricing": {"contracts": "neocloud_2024"}}
    end = neoplan.evaluate(neoplan.load_scenario(base))
    mid = neoplan.evaluate(neoplan.load_scenario({**base, "timeline": {"capex_timing": "mid_month"}}))
    pay = mid.ops.cash.capex[0]
    r_m = float(finance.monthly_rate(0.12))
    half = float(pay @ (1 + r_m) ** -np.arange(pay.size)) * ((1 + r_m) ** 0.5 - 1)
    assert end.kpis["npv_usd"] - mid.kpis["npv_usd"] == pytest.approx(half, rel=1e-9)
    cash = mid.ops.cash
    for key, flows, part in (
        ("project_irr", cash.project_fcf[0], cash.project_mid_month),
        ("equity_irr", cash.equity_fcf[0], cash.equity_mid_month),
    ):
        assert part is not None and mid.kpis[key] < end.kpis[key]
        assert float(finance.npv(mid.kpis[key], flows, part[0])) == pytest.approx(0.0, abs=1e-6 * mid.capex_total_usd)
    for key in ("tco_usd_per_gpu_hour", "breakeven_usd_per_gpu_hour", "discounted_payback_months"):
        assert mid.kpis[key] > end.kpis[key], key
    assert mid.kpis["payback_months"] == end.kpis["payback_months"]
