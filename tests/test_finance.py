"""Finance engine: hand-worked cases, invariants, properties (numpy-financial style)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy_financial as npf
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import neoplan
from neoplan.errors import ScenarioError
from neoplan.finance import project as finance
from neoplan.finance.irr import half_month_grid, irr_annual, irr_candidates_annual
from neoplan.finance.project import (
    annuity_payment,
    cash_flows,
    covenant_headroom,
    debt_schedule,
    depreciation,
    dscr_by_period,
    llcr,
    min_dscr,
    npv,
    payback_months,
    sculpted_size_warnings,
    tax_with_loss_carry_forward,
)
from neoplan.finance.returns import _irr_reason
from neoplan.inputs.business import Financing
from neoplan.timebase import DAYS_PER_MONTH, monthly_rate

MONTHS = 72


def _fin(**terms: Any) -> Financing:
    """Financing for the loan mechanics: a loan of ``debt_share`` × capex (sizing capex_share) unless said."""
    return Financing(**{"sizing": "capex_share", **terms})


def _payments(capex: float = 1_000_000.0, months: int = MONTHS) -> np.ndarray:
    pay = np.zeros(months)
    pay[0] = capex
    return pay


def test_monthly_rate_compounds_to_annual() -> None:
    assert (1 + monthly_rate(0.12)) ** 12 == pytest.approx(1.12)


def test_npv_month_zero_undiscounted() -> None:
    # -100 now, +112 in twelve months at 12 %/yr is worth exactly zero
    cf = np.zeros(13)
    cf[0], cf[12] = -100.0, 112.0
    assert npv(0.12, cf) == pytest.approx(0.0, abs=1e-9)


def test_irr_matches_numpy_financial() -> None:
    cf = np.array([-1000.0] + [100.0] * 12)
    assert irr_annual(cf) == pytest.approx((1 + npf.irr(cf)) ** 12 - 1, rel=1e-9)


def test_irr_is_nan_without_sign_change() -> None:
    assert np.isnan(irr_annual(np.array([-100.0, -10.0, -5.0])))


def test_npv_at_irr_is_zero() -> None:
    cf = np.array([-5000.0, 400, 700, 900, 1200, 1500, 1500, 1500])
    assert npv(irr_annual(cf), cf) == pytest.approx(0.0, abs=1e-6)


def test_payback_by_hand() -> None:
    # cumulative -100, -70, -40, -10, +20: crosses a third of the way from month 3 to month 4
    assert payback_months(np.array([-100.0, 30, 30, 30, 30])) == pytest.approx(3 + 1 / 3)
    assert np.isnan(payback_months(np.array([-100.0, 10, 10])))


def test_tax_carries_losses_forward() -> None:
    tax = tax_with_loss_carry_forward(np.array([-100.0, 50.0, 80.0]), 0.25, period_months=1)
    np.testing.assert_allclose(tax, [0.0, 0.0, 7.5])


def test_a_tax_year_is_taxed_on_its_net_income() -> None:
    """Profit in month 1, a loss in month 3 of the same tax year: the year owes 25 % of the net 40, paid as it accrues
    (25 in month 1, 15 back in month 3); taxed month by month, the loss would only be carried forward."""
    taxable = np.zeros(12)
    taxable[0], taxable[2] = 100.0, -60.0
    yearly = tax_with_loss_carry_forward(taxable, 0.25, period_months=12)
    np.testing.assert_allclose(yearly[:3], [25.0, 0.0, -15.0])
    assert yearly.sum() == pytest.approx(0.25 * 40.0) and not yearly[3:].any()
    monthly = tax_with_loss_carry_forward(taxable, 0.25, period_months=1)
    assert monthly.sum() == pytest.approx(25.0)


def test_a_loss_month_then_a_profit_month_in_one_year_pay_tax_on_the_net() -> None:
    """A loss of 60 in month 0, a profit of 100 in month 1, both in tax year 1: 25 % of the net 40 = 10, paid in
    month 1; the same by months (the loss carried into month 1); the year's tax is never negative."""
    taxable = np.zeros(12)
    taxable[0], taxable[1] = -60.0, 100.0
    yearly = tax_with_loss_carry_forward(taxable, 0.25, period_months=12)
    np.testing.assert_allclose(yearly, [0.0, 10.0] + [0.0] * 10, atol=1e-12)
    np.testing.assert_allclose(tax_with_loss_carry_forward(taxable, 0.25, period_months=1), yearly, atol=1e-12)


def test_a_loss_year_is_carried_into_the_next() -> None:
    """Year 1 makes 50 then loses 150 (net −100): its tax comes back by its end and the 100 is carried forward; year 2
    makes 150 and owes 25 % of 50. A horizon of 18 months cuts year 2 at month 17."""
    taxable = np.zeros(18)
    taxable[0], taxable[5], taxable[12] = 50.0, -150.0, 150.0
    tax = tax_with_loss_carry_forward(taxable, 0.25, period_months=12)
    assert tax[0] == pytest.approx(12.5) and tax[5] == pytest.approx(-12.5)
    assert tax[:12].sum() == pytest.approx(0.0, abs=1e-12)
    assert tax[12] == pytest.approx(12.5) and tax[12:].sum() == pytest.approx(0.25 * 50.0)
    np.testing.assert_array_equal(finance.tax_period_ends(18, 12), [11, 17])
    np.testing.assert_array_equal(finance.tax_period_ends(24, 12), [11, 23])
    np.testing.assert_array_equal(finance.tax_period_ends(3, 1), [0, 1, 2])


def _tax_by_recursion(taxable: np.ndarray, rate: float, period_months: int) -> np.ndarray:
    """The rule of :func:`tax_with_loss_carry_forward` as a loop: a loss pool carried into each period, the tax on the
    period's income to date paid as it accrues."""
    tax, pool, paid, income = np.zeros(taxable.size), 0.0, 0.0, 0.0
    for t, x in enumerate(taxable):
        income += x
        owed = rate * max(income - pool, 0.0)  # the period's tax on its income to date
        tax[t], paid = owed - paid, owed
        if (t + 1) % period_months == 0 or t == taxable.size - 1:  # the period ends: carry what is left of a loss
            pool, paid, income = max(pool - income, 0.0), 0.0, 0.0
    return tax


_TAXABLE = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=60)


@settings(max_examples=80, deadline=None)
@given(_TAXABLE, st.floats(0.0, 1.0), st.sampled_from([1, 12]))
@example([100.0, 0.0, -60.0], 0.25, 12)
def test_tax_matches_its_recursion(values: list[float], rate: float, period: int) -> None:
    taxable = np.array(values)
    expected = _tax_by_recursion(taxable, rate, period)
    scale = rate * np.abs(taxable).sum() + 1.0
    np.testing.assert_allclose(
        tax_with_loss_carry_forward(taxable, rate, period_months=period), expected, atol=1e-9 * scale
    )


@settings(max_examples=80, deadline=None)
@given(_TAXABLE, st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_tax_years_never_pay_more_nor_sooner_than_months(values: list[float], rate: float, hurdle: float) -> None:
    """Tax years net a loss against the same year's profits: over any horizon they pay no more in total than monthly
    periods, and no more in present value at any rate ≥ 0 (by each month they have taxed no more income); each year
    pays ≥ 0; with no loss ever the two agree month by month."""
    taxable = np.array(values)
    yearly = tax_with_loss_carry_forward(taxable, rate, period_months=12)
    monthly = tax_with_loss_carry_forward(taxable, rate, period_months=1)
    tol = 1e-9 * (rate * np.abs(taxable).sum() + 1.0)
    assert yearly.sum() <= monthly.sum() + tol
    assert float(npv(hurdle, yearly)) <= float(npv(hurdle, monthly)) + tol
    by_year = np.add.reduceat(yearly, np.arange(0, taxable.size, 12))
    assert (by_year >= -tol).all()
    assert yearly.sum() == pytest.approx(
        rate * max(0.0, np.cumsum(taxable)[finance.tax_period_ends(taxable.size, 12)].max()), abs=tol
    )
    gains = np.abs(taxable)
    np.testing.assert_allclose(
        tax_with_loss_carry_forward(gains, rate, period_months=12),
        tax_with_loss_carry_forward(gains, rate, period_months=1),
        atol=tol,
    )


def test_depreciation_sums_to_capex_within_life() -> None:
    dep = depreciation(np.array([1_200.0]), 40, go_live=2.5, life_months=36)
    assert dep.sum() == pytest.approx(1_200.0)
    assert dep[0, :2].sum() == 0.0


def test_annuity_loan_matches_numpy_financial() -> None:
    fin = _fin(
        debt_share=1.0, interest_rate=0.12, term_months=60, grace_months=0, capitalize_idc=False, upfront_fee_rate=0.0
    )
    debt = debt_schedule(fin, _payments(), first_operating_month=0)
    r = 0.12 / 12
    payment = -npf.pmt(r, 60, 1_000_000.0)
    service = debt.debt_service[0, :60]
    np.testing.assert_allclose(service, payment, rtol=1e-9)
    assert debt.principal.sum() == pytest.approx(1_000_000.0)
    assert service.sum() == pytest.approx(debt.principal.sum() + debt.interest_paid.sum())
    assert debt.balance[0, 59] == pytest.approx(0.0, abs=1e-6)
    np.testing.assert_allclose(debt.interest[0, :60], -npf.ipmt(r, np.arange(1, 61), 60, 1_000_000.0), rtol=1e-9)


def test_annuity_payment_is_numpy_financial_pmt() -> None:
    """Another code path (npf), so to a relative 1e-12; rates of at most 1e-9 a month repay principal / months."""
    rng = np.random.default_rng(7)
    rates = np.concatenate([[0.0, 1e-12, 1e-9, 2e-9, 0.01, 0.5, 3.0], rng.uniform(0.0, 0.05, 40)])
    principal = np.concatenate([[0.0, -0.0, 1.0, 1e15, -5e6, 1e-300, 7.5], rng.uniform(-1e9, 1e9, 40)])
    months = np.concatenate([[1, 2, 12, 60, 240, 600, 3], rng.integers(1, 360, 40)])
    positive = rates > 1e-9
    expected = np.where(positive, -npf.pmt(np.where(positive, rates, 1.0), months, principal), principal / months)
    np.testing.assert_allclose(annuity_payment(principal, rates, months), expected, rtol=1e-12, atol=0)
    assert float(annuity_payment(1e6, 0.01, 60)) == pytest.approx(-npf.pmt(0.01, 60, 1e6), rel=1e-12)


def test_grace_and_capitalised_interest() -> None:
    fin = _fin(debt_share=0.5, interest_rate=0.12, term_months=60, grace_months=6, capitalize_idc=True)
    debt = debt_schedule(fin, _payments(), first_operating_month=4)
    assert debt.interest_paid[0, :4].sum() == 0.0
    assert debt.interest_capitalized[0, :4].sum() > 0
    assert debt.principal[0, :10].sum() == 0.0  # interest only until month 4 + 6
    assert debt.principal[0, 10] > 0
    # balance rolls forward: draws + capitalised interest − principal − payoff
    roll = np.cumsum(debt.draws + debt.interest_capitalized - debt.principal - debt.payoff, axis=1)
    np.testing.assert_allclose(roll, debt.balance, atol=1e-6)
    assert debt.principal.sum() + debt.payoff.sum() == pytest.approx(500_000 + debt.interest_capitalized.sum())


def test_straight_line_repays_equal_principal() -> None:
    fin = _fin(
        debt_share=1.0,
        interest_rate=0.1,
        term_months=40,
        grace_months=0,
        amortization="straight_line",
        capitalize_idc=False,
    )
    debt = debt_schedule(fin, _payments(months=48), first_operating_month=0)
    np.testing.assert_allclose(debt.principal[0, :40], 1_000_000 / 40)


def _project(financing: Financing, monthly_ebitda: float = 40_000.0, **more: Any) -> tuple:
    """A 1 M capex project earning ``monthly_ebitda`` from month 3 (``more``: other :func:`cash_flows` arguments)."""
    months = MONTHS
    revenue = np.full(months, monthly_ebitda + 10_000.0)
    revenue[:3] = 0.0
    opex = np.full(months, 10_000.0)
    opex[:3] = 0.0
    pay = _payments(1_000_000.0, months)
    cf = cash_flows(
        financing,
        revenue=revenue,
        opex=opex,
        capex_payments=pay,
        capex_total=1_000_000.0,
        go_live=3.0,
        life_months=60,
        residual_share=0.1,
        **more,
    )
    return cf, revenue, opex, pay


def test_all_equity_constant_cash_flow_by_hand() -> None:
    fin = _fin(debt_share=0.0, tax_rate=0.0)
    cf, revenue, opex, pay = _project(fin)
    by_hand = revenue - opex - pay
    by_hand[-1] += 100_000.0
    np.testing.assert_allclose(cf.project_fcf[0], by_hand)
    np.testing.assert_allclose(cf.equity_fcf[0], by_hand)
    assert irr_annual(cf.project_fcf[0]) == pytest.approx((1 + npf.irr(by_hand)) ** 12 - 1, rel=1e-8)
    # cumulative -1,000,000 then +40,000 a month from month 3: 25 months of inflow → paid back at month 27
    assert payback_months(cf.project_fcf[0]) == pytest.approx(27.0)


@pytest.mark.parametrize("amortization", ["annuity", "straight_line", "sculpted"])
def test_sources_equal_uses_every_month(amortization: str) -> None:
    fin = _fin(debt_share=0.6, interest_rate=0.11, term_months=60, grace_months=6, amortization=amortization)
    cf, revenue, opex, pay = _project(fin)
    equity_in = np.maximum(-cf.equity_fcf, 0)
    distributions = np.maximum(cf.equity_fcf, 0)
    sources = revenue + cf.residual + cf.debt.draws + equity_in
    uses = (
        opex + pay + cf.debt.interest_paid + cf.debt.principal + cf.debt.payoff + cf.debt.fee + cf.tax + distributions
    )
    np.testing.assert_allclose(sources, uses, atol=1e-6)
    assert cf.debt.balance[0, -1] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("target", [1.3, 2.0])
def test_sculpted_service_is_proportional_to_cfads_and_repays_at_maturity(target: float) -> None:
    # the 50 % share is below what CFADS / target supports: the whole share is drawn, DSCR* is above the target
    fin = _fin(
        debt_share=0.5,
        interest_rate=0.08,
        term_months=60,
        grace_months=0,
        amortization="sculpted",
        target_dscr=target,
        tax_rate=0.0,
    )
    cf, *_ = _project(fin)
    service = cf.debt.debt_service[0]
    paying = (np.arange(service.size) >= cf.debt.repay_start) & (np.arange(service.size) < cf.debt.maturity)
    ratio = cf.cfads[0, paying] / service[paying]
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)  # one DSCR* in every month
    assert ratio[0] >= target
    assert cf.debt.drawn_usd[0] == pytest.approx(500_000.0)
    assert cf.debt.balance[0, 59] == pytest.approx(0.0, abs=1e-6) and cf.debt.payoff.sum() == 0.0


TEXTBOOK_SCULPTED = _fin(
    debt_share=0.9,
    interest_rate=0.08,
    term_months=60,
    grace_months=0,
    amortization="sculpted",
    target_dscr=1.3,
    tax_rate=0.0,
    upfront_fee_rate=0.0,
)
"""Textbook sculpting: 8 %/yr compounding monthly, 60 months from the draw, sized at DSCR 1.30, no tax, no fee."""


def test_sculpted_debt_at_dscr_1_30_is_sized_down_and_fully_amortised() -> None:
    """Textbook sculpting: CFADS 20,000 a month from month 3, 8 %/yr compounding monthly, 60 months from the draw."""
    fin = TEXTBOOK_SCULPTED
    cf, *_ = _project(fin, 20_000.0)
    r = 0.08 / 12
    service = 20_000.0 / 1.3
    at_start = service * (1 - (1 + r) ** -57) / r  # PV at month 3 of 57 payments (months 3 … 59)
    assert cf.debt.drawn_usd[0] == pytest.approx(at_start / (1 + r) ** 3, rel=1e-12)  # IDC capitalised 3 months
    assert cf.debt.drawn_usd[0] < 900_000.0
    np.testing.assert_allclose(cf.debt.debt_service[0, 3:60], service, rtol=1e-9)  # no balloon in the last month
    assert cf.debt.balance[0, 59] == pytest.approx(0.0, abs=1e-6)
    assert min_dscr(cf, 3)[0] == pytest.approx(1.3, rel=1e-9)
    assert llcr(cf, 3)[0] == pytest.approx(1.3, rel=1e-9)
    assert covenant_headroom(min_dscr(cf, 3), 1.2)[0] == pytest.approx(1 - 1.2 / 1.3)
    assert sculpted_size_warnings(fin, cf, 1_000_000.0)[0].startswith("Sculpted debt sized at $")


def test_loan_term_runs_from_the_first_draw() -> None:
    fin = _fin(
        debt_share=1.0, interest_rate=0.12, term_months=24, grace_months=0, capitalize_idc=False, upfront_fee_rate=0.01
    )
    pay = np.zeros(48)
    pay[5] = 1_000_000.0  # no deposit: the first draw is at delivery, month 5
    debt = debt_schedule(fin, pay, first_operating_month=7)
    assert (debt.first_draw, debt.repay_start, debt.maturity) == (5, 7, 29)
    payment = -npf.pmt(0.01, 29 - 7, 1_000_000.0)
    np.testing.assert_allclose(debt.debt_service[0, 7:29], payment, rtol=1e-9)
    assert debt.balance[0, 28] == pytest.approx(0.0, abs=1e-6) and debt.balance[0, 27] > 0
    assert debt.fee[0, 5] == pytest.approx(10_000.0)
    with pytest.raises(ScenarioError, match="term runs from the first draw"):
        debt_schedule(_fin(term_months=8, grace_months=2), pay, first_operating_month=12)  # 14 ≥ 5 + 8


def test_idc_and_fee_are_capitalised_for_tax() -> None:
    fin = _fin(debt_share=0.6, interest_rate=0.12, term_months=60, grace_months=0, upfront_fee_rate=0.02, tax_rate=0.25)
    cf, *_ = _project(fin)
    costs = cf.costs
    assert costs is not None
    idc = cf.debt.interest[0, :3].sum()  # months 0-2, before the first full operating month
    assert idc > 0 and costs.idc_usd[0] == pytest.approx(idc)
    assert cf.interest[0, :3].sum() == 0.0 and cf.interest[0, 3:].sum() == pytest.approx(cf.debt.interest[0, 3:].sum())
    # IDC is depreciated with the hardware: over the 60-month life from go-live (month 3), inside the 72 months
    assert cf.depreciation[0].sum() == pytest.approx(1_000_000.0 + idc)
    assert cf.depreciation[0, 10] == pytest.approx((1_000_000.0 + idc) / 60)
    # the 12,000 fee is amortised over the 60-month term from the first draw (month 0), not expensed at once
    np.testing.assert_allclose(cf.fees[0, :60], 12_000.0 / 60)
    assert cf.fees[0].sum() == pytest.approx(12_000.0) and cf.debt.fee[0, 0] == pytest.approx(12_000.0)
    taxable = cf.ebitda - cf.depreciation - cf.interest - cf.fees
    taxable[0, -1] += 100_000.0 - (1_000_000.0 + idc - cf.depreciation[0].sum())  # gain on the residual sale
    np.testing.assert_allclose(cf.taxable_income, taxable, atol=1e-6)


# --- IRR: the meaningful root -----------------------------------------------------------------------------


def test_two_irrs_the_meaningful_one_has_the_sign_of_the_net_cash() -> None:
    # -100, +250, -140: NPV is zero at -15.3 % and at +65.3 % a period; net cash is +10, so the IRR is +65.3 %
    cf = np.array([-100.0, 250.0, -140.0])
    roots = sorted(1 / np.roots([-140.0, 250.0, -100.0]) - 1)
    assert roots == pytest.approx([-0.15311, 0.65311], abs=1e-5)
    assert npf.irr(cf) == pytest.approx(roots[0])  # numpy-financial takes the root nearest 0
    assert irr_annual(cf) == pytest.approx((1 + roots[1]) ** 12 - 1, rel=1e-9)
    assert [round(r, 3) for r in irr_candidates_annual(cf)] == pytest.approx(
        [(1 + x) ** 12 - 1 for x in roots], rel=0.05
    )
    # -100, +230, -132: NPV is zero at 10 % and 20 %, but the flows lose 2 in total: no meaningful IRR
    assert np.isnan(irr_annual(np.array([-100.0, 230.0, -132.0])))


def test_irr_must_agree_with_npv_at_the_hurdle() -> None:
    # NPV = (x - 1/1.05)(x - 1/1.1)(x - 1/1.5), x = 1/(1+r): positive at 0, roots at 5 %, 10 %, 50 % a month
    cf = np.poly([1 / 1.05, 1 / 1.1, 1 / 1.5])[::-1]
    assert irr_annual(cf) == pytest.approx(1.05**12 - 1, rel=1e-9)
    assert irr_annual(cf, hurdle=1.08**12 - 1) == pytest.approx(1.05**12 - 1, rel=1e-9)  # NPV(8 %) < 0: agrees
    assert np.isnan(irr_annual(cf, hurdle=1.2**12 - 1))  # NPV(20 %) > 0 though 20 % > the 5 % root: no IRR


def test_irr_of_a_240_month_loss_does_not_overflow() -> None:
    # from ~155 months the lowest bracket (-99 %/month) overflowed the discount factor and every IRR was null
    cf = np.r_[-1_000_000.0, np.full(36, 20_000.0), np.full(203, 100.0)]  # earns for 3 years, then barely
    expected = (1 + npf.irr(cf)) ** 12 - 1
    assert expected < -0.1
    assert irr_annual(cf) == pytest.approx(expected, rel=1e-9)
    with_tail = np.r_[cf, np.zeros(200)]  # trailing empty months change nothing
    assert irr_annual(with_tail) == pytest.approx(expected, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    months=st.integers(12, 240),
    capex=st.floats(1e4, 1e8),
    monthly=st.lists(st.floats(-0.05, 0.08), min_size=1, max_size=8),
    seed=st.integers(0, 2**32 - 1),
)
@example(months=12, capex=1e4, monthly=[-0.02734375], seed=12)  # IRR −99.99999995 % a year
@example(months=213, capex=1e4, monthly=[0.0, -0.03125], seed=213)  # IRR −100 % a year in floats
@example(months=89, capex=1e4, monthly=[-0.044921875, 0.03515625], seed=103267)  # roots −55.6 and −66.8 % a month
def test_irr_agrees_with_numpy_financial_where_that_finds_the_meaningful_root(
    months: int, capex: float, monthly: list[float], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    cf = capex * np.resize(np.array(monthly), months) * rng.uniform(0.5, 1.5, months)
    cf[0] = -capex
    cf[-1] += capex * rng.uniform(0, 0.3)
    theirs = npf.irr(cf)
    ours = irr_annual(cf)
    net = cf.sum()
    if np.isfinite(theirs) and -0.99 < theirs < 1.0 and np.sign(theirs) == np.sign(net):
        assert ours == pytest.approx((1 + theirs) ** 12 - 1, rel=1e-6, abs=1e-9)
    if np.isfinite(ours):
        assert np.sign(ours) == np.sign(net)  # IRR and MOIC − 1 never disagree
        # zero to rounding, at any rate the annual figure can carry: within ~1e-6 of −100 % a year, 1 + IRR keeps
        # too few digits to give the monthly root back (−99.99999995 % a year is ±2e-7 on it), so NPV is not checked
        if 1.0 + ours > 1e-6:
            assert abs(npv(ours, cf)) <= 1e-9 * npv(ours, np.abs(cf))


@settings(max_examples=40, deadline=None)
@given(
    ebitda=st.floats(0, 120_000),
    debt_share=st.floats(0, 1),
    rate=st.floats(0, 0.3),
    hurdle=st.floats(0, 0.4),
    grace=st.integers(0, 12),
    amortization=st.sampled_from(["annuity", "straight_line", "sculpted"]),
)
def test_equity_irr_has_the_sign_of_moic_minus_one(
    ebitda: float, debt_share: float, rate: float, hurdle: float, grace: int, amortization: str
) -> None:
    fin = _fin(
        debt_share=debt_share, interest_rate=rate, grace_months=grace, amortization=amortization, hurdle_rate=hurdle
    )
    cf, *_ = _project(fin, ebitda)
    equity = cf.equity_fcf[0]
    paid_in = -equity[equity < 0].sum()
    irr = irr_annual(equity, hurdle=hurdle)
    if np.isfinite(irr) and paid_in > 0:
        moic = equity[equity > 0].sum() / paid_in
        assert np.sign(irr) == np.sign(round(moic - 1, 12)) or abs(moic - 1) < 1e-9
        assert np.sign(npv(hurdle, equity)) == np.sign(irr - hurdle) or abs(npv(hurdle, equity)) < 1e-6 * paid_in


def test_dscr_period_is_cut_at_maturity() -> None:
    fin = _fin(debt_share=0.5, interest_rate=0.08, term_months=20, grace_months=0, tax_rate=0.0)
    cf, *_ = _project(fin)
    starts, table = dscr_by_period(cf, 3)
    assert list(starts) == [3, 15]
    last = slice(15, 20)
    assert table[0, 1] == pytest.approx(cf.cfads[0, last].sum() / cf.debt.debt_service[0, last].sum())


def test_higher_rate_lowers_equity_irr() -> None:
    lo, *_ = _project(_fin(interest_rate=0.06))
    hi, *_ = _project(_fin(interest_rate=0.16))
    assert irr_annual(hi.equity_fcf[0]) < irr_annual(lo.equity_fcf[0])
    np.testing.assert_allclose(hi.project_fcf, lo.project_fcf)  # project cash flow ignores financing


def test_vectorised_cases_equal_one_by_one() -> None:
    fin = _fin()
    months = 48
    revenue = np.array([np.full(months, 30_000.0), np.full(months, 60_000.0)])
    opex = np.full(months, 5_000.0)
    pay = np.zeros(months)
    pay[0] = 800_000.0
    both = cash_flows(
        fin,
        revenue=revenue,
        opex=opex,
        capex_payments=pay,
        capex_total=800_000.0,
        go_live=2.0,
        life_months=36,
        residual_share=0.0,
    )
    for i in range(2):
        one = cash_flows(
            fin,
            revenue=revenue[i],
            opex=opex,
            capex_payments=pay,
            capex_total=800_000.0,
            go_live=2.0,
            life_months=36,
            residual_share=0.0,
        )
        np.testing.assert_allclose(both.equity_fcf[i], one.equity_fcf[0])


@settings(max_examples=40, deadline=None)
@given(
    ebitda=st.floats(5_000, 200_000),
    debt_share=st.floats(0, 0.9),
    rate=st.floats(0, 0.25),
    amortization=st.sampled_from(["annuity", "straight_line", "sculpted"]),
)
def test_debt_always_repaid_and_cash_balances(ebitda: float, debt_share: float, rate: float, amortization: str) -> None:
    fin = _fin(debt_share=debt_share, interest_rate=rate, amortization=amortization)
    cf, *_ = _project(fin, ebitda)
    total_out = cf.debt.principal.sum() + cf.debt.swept.sum() + cf.debt.payoff.sum()  # a breach sweeps
    assert total_out == pytest.approx(cf.debt.draws.sum() + cf.debt.interest_capitalized.sum(), rel=1e-9, abs=1e-6)
    assert np.all(cf.debt.balance >= -1e-6)
    assert np.all(np.isfinite(cf.equity_fcf))
    assert np.all(cf.tax >= 0)


# --- the whole model ------------------------------------------------------------------------------------------


def _evaluate(**sections: dict) -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario({"base": "optimized", **sections}))


@pytest.mark.parametrize("debt_share", [0.99, 1.0])
def test_highly_levered_equity_irr_agrees_with_moic(debt_share: float) -> None:
    # the highest root used to be reported: +583 % at 99 % debt while equity got back 0.52 of what it put in
    r = _evaluate(financing={"debt_share": debt_share})
    irr, moic = r.kpis["equity_irr"], r.kpis["equity_moic"]
    assert moic is not None and moic < 1
    assert irr is not None and -1 < irr < 0
    equity = r.ops.cash.equity_fcf[0]
    assert irr == pytest.approx((1 + npf.irr(equity)) ** 12 - 1, rel=1e-9)


def test_a_240_month_horizon_has_irrs() -> None:
    r = _evaluate(timeline={"horizon_months": 240})
    for key, flows in (("project_irr", r.ops.cash.project_fcf[0]), ("equity_irr", r.ops.cash.equity_fcf[0])):
        assert r.kpis[key] is not None and math.isfinite(r.kpis[key]), key
        assert r.kpis[key] == pytest.approx((1 + npf.irr(flows)) ** 12 - 1, rel=1e-9), key


def test_an_undefined_irr_says_why() -> None:
    assert "several rates" in _irr_reason(np.array([-100.0, 230.0, -132.0]), "equity")
    assert "-100.0 %" not in _irr_reason(np.array([-100.0, 230.0, -132.0]), "equity")
    assert _irr_reason(np.array([-100.0, 10.0, -5.0]), "equity").startswith("equity cash flows lose $95 in total")
    assert _irr_reason(np.array([-100.0, -10.0]), "project") == "project cash flows never turn positive"


@pytest.mark.parametrize("amortization", ["annuity", "straight_line", "sculpted"])
def test_cases_drawing_in_different_months_equal_one_by_one(amortization: str) -> None:
    """Each case's term runs from its own first draw (no deposit: the draw is at its own delivery)."""
    fin = _fin(amortization=amortization, term_months=36, grace_months=3, debt_share=0.7)
    months = 60
    pay = np.zeros((2, months))
    pay[0, 2], pay[1, 7] = 800_000.0, 800_000.0
    revenue = np.where(np.arange(months) >= np.array([[4], [9]]), 45_000.0, 0.0)
    go_live = np.array([4.0, 9.0])
    both = cash_flows(
        fin,
        revenue=revenue,
        opex=np.full(months, 5_000.0),
        capex_payments=pay,
        capex_total=800_000.0,
        go_live=go_live,
        life_months=48,
        residual_share=0.1,
    )
    assert list(both.debt.maturity) == [38, 43] and list(both.debt.first_draw) == [2, 7]
    for i in range(2):
        one = cash_flows(
            fin,
            revenue=revenue[i],
            opex=np.full(months, 5_000.0),
            capex_payments=pay[i],
            capex_total=800_000.0,
            go_live=go_live[i],
            life_months=48,
            residual_share=0.1,
        )
        np.testing.assert_allclose(both.equity_fcf[i], one.equity_fcf[0], rtol=1e-9, atol=1e-6)
        np.testing.assert_allclose(min_dscr(both, np.array([4, 9]))[i], min_dscr(one, int(go_live[i]))[0], rtol=1e-9)
        np.testing.assert_allclose(llcr(both, np.array([4, 9]))[i], llcr(one, int(go_live[i]))[0], rtol=1e-9)
        assert one.debt.balance[0, one.debt.maturity - 1] == pytest.approx(0.0, abs=1e-6)


# --- issue 24: a schedule fixed at close, CFADS at the sale, reserves, working capital, tax lives ------------------


def test_the_sculpted_schedule_fixed_at_close_meets_a_25_percent_lower_cash_flow() -> None:
    """Textbook: sized at DSCR 1.30 on CFADS of 20,000 a month, the loan is fixed at close; a case whose CFADS is
    25 % lower (15,000) meets the same service, so its DSCR is 0.75 × 1.30 = 0.975 in every year (re-sizing it on
    its own cash flow, as before, gave a smaller loan at exactly 1.30)."""
    fin = TEXTBOOK_SCULPTED
    base, *_ = _project(fin, 20_000.0)
    closing = finance.closing_of(base)
    assert closing.debt_share == pytest.approx(base.debt.drawn_usd[0] / 1_000_000.0)
    low, *_ = _project(fin, 15_000.0, debt_share=closing.debt_share, closing=closing)
    np.testing.assert_allclose(low.debt.draws, base.debt.draws, rtol=1e-12)
    np.testing.assert_allclose(low.debt.debt_service, base.debt.debt_service, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(dscr_by_period(low, 3)[1], 0.75 * 1.3, rtol=1e-9)
    resized, *_ = _project(fin, 15_000.0)  # no closing: sized on its own cash flow
    assert min_dscr(resized, 3)[0] == pytest.approx(1.3, rel=1e-9)
    assert resized.debt.drawn_usd[0] < base.debt.drawn_usd[0]


def test_a_closing_profile_replayed_at_the_closing_values_repeats_the_loan() -> None:
    fin = _fin(debt_share=0.5, amortization="sculpted", grace_months=2, tax_rate=0.25)
    base, *_ = _project(fin, 30_000.0)
    closing = finance.closing_of(base)
    again, *_ = _project(fin, 30_000.0, debt_share=closing.debt_share, closing=closing)
    for name in ("draws", "interest", "interest_capitalized", "principal", "balance", "payoff"):
        np.testing.assert_allclose(getattr(again.debt, name), getattr(base.debt, name), rtol=1e-12, atol=1e-6)
    np.testing.assert_allclose(again.equity_fcf, base.equity_fcf, rtol=1e-12, atol=1e-6)


@pytest.mark.parametrize("share", [0.3, 0.45])
def test_sculpting_settles_on_size_and_service(share: float) -> None:
    """When the debt share caps a sculpted loan, its service must follow the CFADS of its own tax: the loop used to
    stop on the size alone and keep the service of the previous pass's tax (defect 4)."""
    fin = _fin(debt_share=share, interest_rate=0.11, amortization="sculpted", tax_rate=0.25, grace_months=0)
    revenue = np.where(np.arange(MONTHS) >= 3, 60_000.0 - 300.0 * np.arange(MONTHS), 0.0)
    cf = cash_flows(
        fin,
        revenue=revenue,
        opex=np.where(np.arange(MONTHS) >= 3, 10_000.0, 0.0),
        capex_payments=_payments(),
        capex_total=1_000_000.0,
        go_live=3.0,
        life_months=60,
        residual_share=0.1,
    )
    assert cf.debt.drawn_usd[0] == pytest.approx(share * 1_000_000.0)  # capped by the share
    t = np.arange(MONTHS)
    paying = (t >= cf.debt.repay_start) & (t < cf.debt.maturity - 1)
    ratio = cf.cfads[0, paying] / cf.debt.debt_service[0, paying]
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)  # one DSCR* in every month, on the final CFADS


def test_cfads_leaves_out_the_sale_and_its_proceeds_sweep_the_loan() -> None:
    """A shutdown at the end of a 37-month life (month 40) inside a 60-month loan: the gain on the sale and its tax
    stay out of CFADS; the proceeds repay the loan first, the installments stay as fixed at close and the loan ends
    sooner (inverse order of maturity)."""
    fin = _fin(debt_share=0.6, interest_rate=0.12, grace_months=0, tax_rate=0.25, upfront_fee_rate=0.0)
    months, sale = MONTHS, 40
    revenue = np.where(np.arange(months) >= 3, 60_000.0, 0.0)
    revenue[sale + 1 :] = 0.0
    common = dict(
        revenue=revenue,
        opex=np.where((np.arange(months) >= 3) & (np.arange(months) <= sale), 10_000.0, 0.0),
        capex_payments=_payments(),
        capex_total=1_000_000.0,
        go_live=3.0,
        life_months=37.0,
        end_of_life="shutdown",
    )
    sold = cash_flows(fin, residual_share=0.3, **common)
    kept = cash_flows(fin, residual_share=0.0, **common)
    assert sold.residual[0, sale] == pytest.approx(300_000.0)
    assert sold.taxable_income[0, sale] - kept.taxable_income[0, sale] == pytest.approx(300_000.0)  # fully written off
    assert sold.tax[0].sum() > kept.tax[0].sum()
    np.testing.assert_allclose(sold.cfads[0, : sale + 1], kept.cfads[0, : sale + 1], rtol=1e-12)  # no sale in CFADS
    assert sold.sale_tax[0].sum() == pytest.approx(0.25 * 300_000.0)  # the gain's tax, in the sale's tax year
    assert sold.sale_tax[0, sale] == pytest.approx(0.25 * 300_000.0)  # paid as it accrues, in the sale's month
    owed = kept.debt.balance[0, sale]  # after month 40's scheduled service
    swept = sold.debt.swept[0, sale]
    assert swept == pytest.approx(min(300_000.0, owed))
    assert sold.debt.balance[0, sale] == pytest.approx(owed - swept, abs=1e-6)
    left = sold.debt.balance[0, sale]
    installments = kept.debt.principal[0, sale + 1 :]
    paid_off = np.cumsum(installments) <= left * (1 + 1e-12)  # the installments the balance left still covers
    np.testing.assert_allclose(sold.debt.principal[0, sale + 1 :][paid_off], installments[paid_off], rtol=1e-9)
    assert sold.debt.principal[0, sale + 1 :].sum() + sold.debt.payoff[0].sum() == pytest.approx(left)
    last = sale + 1 + int(np.flatnonzero(sold.debt.principal[0, sale + 1 :] > 0).max(initial=-1))
    assert last < kept.debt.maturity - 1  # the loan ends sooner
    owed_before = sold.debt.balance[0, sale:-1]
    np.testing.assert_allclose(sold.debt.interest[0, sale + 1 :], owed_before * 0.01, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("amortization", ["annuity", "straight_line", "sculpted"])
@pytest.mark.parametrize("dsra_months", [0, 6])
def test_sources_equal_uses_with_reserve_working_capital_and_sweep(amortization: str, dsra_months: int) -> None:
    fin = _fin(debt_share=0.6, interest_rate=0.11, term_months=60, amortization=amortization, dsra_months=dsra_months)
    revenue = np.where(np.arange(MONTHS) >= 3, 50_000.0, 0.0)
    opex = np.where(np.arange(MONTHS) >= 3, 10_000.0, 0.0)
    cf = cash_flows(
        fin,
        revenue=revenue,
        opex=opex,
        capex_payments=_payments(),
        capex_total=1_000_000.0,
        go_live=3.0,
        life_months=48.0,
        residual_share=0.2,
        end_of_life="shutdown",
        receivable_days=45.0,
    )
    d, w = cf.debt, cf.waterfall
    equity_in, distributions = np.maximum(-cf.equity_fcf, 0), np.maximum(cf.equity_fcf, 0)
    held_in = np.diff(w.held, axis=1, prepend=0.0)  # cash a lock-up puts aside (out of it: negative)
    sources = cf.revenue_collected + cf.residual + d.draws + equity_in + d.reserve_released + w.reserve_draw
    uses = opex + cf.capex + d.interest_paid + d.principal + d.swept + d.payoff + d.fee + cf.tax + distributions
    np.testing.assert_allclose(sources, uses + d.reserve_funded + w.reserve_topup + held_in, atol=1e-6)
    reserve = np.cumsum(d.reserve_funded + w.reserve_topup - w.reserve_draw - d.reserve_released, axis=1)
    np.testing.assert_allclose(reserve, w.reserve_balance, atol=1e-6)  # the reserve account rolls forward
    assert cf.revenue_collected.sum() == pytest.approx(revenue.sum())  # receivables collected by the horizon
    assert d.balance[0, -1] == pytest.approx(0.0, abs=1e-6)
    assert d.reserve_funded.sum() == pytest.approx(d.reserve_released.sum())


def test_mirr_is_numpy_financials() -> None:
    cf = np.array([-1000.0, 200.0, -100.0, 400.0, 500.0, 300.0])
    expected = (1 + npf.mirr(cf, 0.01, monthly_rate(0.12))) ** 12 - 1
    assert finance.mirr_annual(cf, 0.01, 0.12) == pytest.approx(expected, rel=1e-12)
    assert np.isnan(finance.mirr_annual(np.array([100.0, 50.0]), 0.01, 0.12))  # nothing invested


def test_mid_month_capex_is_discounted_half_a_month_less() -> None:
    """Capex of 300 k at order (month 0) and 700 k at delivery (month 3), 60 % debt, no tax: the accounts are the
    same; NPV falls by each payment × ((1 + r_m)^½ − 1) discounted to month 0, the equity's by its 40 % of it, the
    IRRs fall and zero NPV with that timing, and the MIRR is numpy-financial's on the grid of half months."""
    fin = _fin(debt_share=0.6, interest_rate=0.10, grace_months=0, tax_rate=0.0, upfront_fee_rate=0.0)
    pay = np.zeros(MONTHS)
    pay[0], pay[3] = 300_000.0, 700_000.0
    args = dict(
        revenue=np.where(np.arange(MONTHS) >= 4, 40_000.0, 0.0),
        opex=np.where(np.arange(MONTHS) >= 4, 8_000.0, 0.0),
        capex_payments=pay,
        capex_total=1_000_000.0,
        go_live=4.0,
        life_months=60,
        residual_share=0.1,
    )
    end, mid = cash_flows(fin, **args), cash_flows(fin, capex_timing="mid_month", **args)
    assert end.project_mid_month is None and end.equity_mid_month is None
    np.testing.assert_array_equal(mid.project_fcf, end.project_fcf)
    np.testing.assert_array_equal(mid.equity_fcf, end.equity_fcf)
    np.testing.assert_array_equal(mid.project_mid_month, -pay[None, :])
    np.testing.assert_allclose(mid.equity_mid_month, -0.4 * pay[None, :], rtol=1e-12)
    r_m = float(monthly_rate(0.12))
    half = (300_000.0 + 700_000.0 / (1 + r_m) ** 3) * ((1 + r_m) ** 0.5 - 1)  # $4,664
    project = npv(0.12, mid.project_fcf[0], mid.project_mid_month[0]) - npv(0.12, end.project_fcf[0])
    equity = npv(0.12, mid.equity_fcf[0], mid.equity_mid_month[0]) - npv(0.12, end.equity_fcf[0])
    assert project == pytest.approx(-half, rel=1e-12) and equity == pytest.approx(-0.4 * half, rel=1e-9)
    for flows, part in ((mid.project_fcf[0], mid.project_mid_month[0]), (mid.equity_fcf[0], mid.equity_mid_month[0])):
        rate = irr_annual(flows, hurdle=0.12, mid_month=part)
        assert 0.0 < rate < irr_annual(flows, hurdle=0.12)
        assert npv(rate, flows, part) == pytest.approx(0.0, abs=1e-6)
    grid = half_month_grid(mid.equity_fcf, mid.equity_mid_month)[0]
    expected = (1 + npf.mirr(grid, (1 + 0.10 / 12) ** 0.5 - 1, (1 + r_m) ** 0.5 - 1)) ** 24 - 1
    assert finance.mirr_annual(mid.equity_fcf[0], 0.10 / 12, 0.12, mid.equity_mid_month[0]) == pytest.approx(
        expected, rel=1e-12
    )
    discounted = payback_months(mid.project_fcf[0], 0.12, mid.project_mid_month[0])
    assert discounted > payback_months(end.project_fcf[0], 0.12)


def test_receivable_days_of_one_month_delay_every_collection_by_a_month() -> None:
    """Revenue of R a month from month 3, paid 30.4375 days (one month) later: month 3 collects nothing and the last
    month collects two months' revenue (the receivable left at the horizon), so NPV falls by R (v^3 − v^71)."""
    fin = _fin(debt_share=0.0, tax_rate=0.0)
    now, *_ = _project(fin, 40_000.0)
    late = cash_flows(
        fin,
        revenue=now.revenue,
        opex=now.opex,
        capex_payments=_payments(),
        capex_total=1_000_000.0,
        go_live=3.0,
        life_months=60,
        residual_share=0.1,
        receivable_days=DAYS_PER_MONTH,
    )
    v = 1 / (1 + monthly_rate(0.12))
    change = npv(0.12, late.project_fcf[0]) - npv(0.12, now.project_fcf[0])
    assert change == pytest.approx(-50_000.0 * (v**3 - v**71), rel=1e-9)
    assert late.tax.sum() == now.tax.sum() and late.ebitda[0, 3] == now.ebitda[0, 3]  # taxed as earned
    assert irr_annual(late.equity_fcf[0]) < irr_annual(now.equity_fcf[0])


def test_a_six_month_reserve_is_funded_at_close_and_released_at_maturity() -> None:
    """An annuity of P a month: the reserve is 6 P, paid in by equity at the first draw (month 0) and back in the
    last repayment month (59): equity NPV falls by 6 P (1 − v^59) at the hurdle, and the equity IRR falls."""
    fin = _fin(debt_share=0.6, interest_rate=0.12, grace_months=0, capitalize_idc=False, tax_rate=0.0)
    without, *_ = _project(fin)
    with_reserve, *_ = _project(fin.model_copy(update={"dsra_months": 6}))
    payment = float(without.debt.debt_service[0, 10])
    reserve = with_reserve.debt.reserve_funded[0]
    assert np.flatnonzero(reserve).tolist() == [0] and reserve[0] == pytest.approx(6 * payment, rel=1e-12)
    assert np.flatnonzero(with_reserve.debt.reserve_released[0]).tolist() == [59]
    v = 1 / (1 + monthly_rate(0.12))
    change = npv(0.12, with_reserve.equity_fcf[0]) - npv(0.12, without.equity_fcf[0])
    assert change == pytest.approx(-6 * payment * (1 - v**59), rel=1e-9)
    assert irr_annual(with_reserve.equity_fcf[0]) < irr_annual(without.equity_fcf[0])
    np.testing.assert_allclose(with_reserve.project_fcf, without.project_fcf)  # financing only


def test_macrs_deducts_faster_than_straight_line() -> None:
    """5-year MACRS (IRS Pub 946 Table A-1) against straight line over the same 72 months: each deducts the whole
    cost, MACRS 20 % in the 12 months from go-live and 32 % in the next; with taxable income throughout (no losses
    to carry) project NPV rises by the tax rate × PV(MACRS − straight-line depreciation)."""
    straight = _fin(debt_share=0.0, tax_rate=0.25)
    macrs = straight.model_copy(update={"tax_depreciation": "macrs_5"})
    args = dict(
        revenue=np.full(MONTHS, 200_000.0),
        opex=np.full(MONTHS, 10_000.0),
        capex_payments=_payments(),
        capex_total=1_000_000.0,
        go_live=0.0,
        life_months=72,
        residual_share=0.0,
    )
    a, b = cash_flows(straight, **args), cash_flows(macrs, **args)
    assert b.tax_depreciation[0, :12].sum() == pytest.approx(200_000.0)
    assert b.tax_depreciation[0, 12:24].sum() == pytest.approx(320_000.0)
    assert b.tax_depreciation[0, 60:72].sum() == pytest.approx(57_600.0)
    assert a.tax_depreciation.sum() == pytest.approx(1_000_000.0) == b.tax_depreciation.sum()
    np.testing.assert_allclose(a.depreciation, b.depreciation)  # the book keeps its straight line
    gain = 0.25 * npv(0.12, b.tax_depreciation[0] - a.tax_depreciation[0])  # taxable every month: tax as accrued
    assert npv(0.12, b.project_fcf[0]) - npv(0.12, a.project_fcf[0]) == pytest.approx(gain, rel=1e-9)
    assert gain > 0


def test_a_tax_life_apart_from_the_book_and_a_sale_before_it_ends() -> None:
    """Straight line over a 96-month tax life, sold at the end of a 48-month useful life: the half of the basis left
    is deducted at the sale, so the taxable gain is the proceeds − 500,000."""
    fin = _fin(debt_share=0.0, tax_rate=0.25, tax_life_months=96)
    cf = cash_flows(
        fin,
        revenue=np.full(MONTHS, 50_000.0),
        opex=np.zeros(MONTHS),
        capex_payments=_payments(),
        capex_total=1_000_000.0,
        go_live=0.0,
        life_months=48,
        residual_share=0.2,
        end_of_life="shutdown",
    )
    assert cf.tax_depreciation[0, :48].sum() == pytest.approx(500_000.0) and not cf.tax_depreciation[0, 48:].any()
    assert cf.taxable_income[0, 48] == pytest.approx(50_000.0 + 200_000.0 - 500_000.0)
    assert cf.depreciation[0, :48].sum() == pytest.approx(1_000_000.0)  # the book's life is the useful life


def test_the_credit_spread_adds_to_the_interest_rate() -> None:
    spread = _fin(interest_rate=0.08, credit_spread=0.04, grace_months=0)
    all_in = _fin(interest_rate=0.12, grace_months=0)
    a, b = debt_schedule(spread, _payments(), 0), debt_schedule(all_in, _payments(), 0)
    np.testing.assert_allclose(a.interest, b.interest, rtol=1e-12)
    assert finance.all_in_rate(spread) == pytest.approx(0.12)


def test_a_loan_sized_on_contracted_revenue() -> None:
    """Take-or-pay contracts paying 30,000 a month net of their opex for 24 months from month 3, 12 %/yr, DSCR
    1.25: the loan is the PV of 24,000 a month over those 24 months, compounded back over the 3 months of IDC."""
    fin = _fin(
        debt_share=1.0,
        interest_rate=0.12,
        grace_months=0,
        sizing="contracted_revenue",
        amortization="sculpted",
        target_dscr=1.25,
        upfront_fee_rate=0.0,
    )
    contracted = np.where((np.arange(MONTHS) >= 3) & (np.arange(MONTHS) < 27), 30_000.0, 0.0)
    debt = debt_schedule(fin, _payments(), 3, contracted_cfads=contracted[None, :])
    r = 0.01
    at_start = 24_000.0 * (1 - (1 + r) ** -24) / r
    assert debt.drawn_usd[0] == pytest.approx(at_start / (1 + r) ** 3, rel=1e-12)
    np.testing.assert_allclose(debt.debt_service[0, 3:27], 24_000.0, rtol=1e-9)  # sculpted on the contracts
    assert debt.balance[0, 26] == pytest.approx(0.0, abs=1e-6)  # repaid within the contracts' term


def test_llcr_of_a_sculpted_loan_is_its_dscr_at_every_period() -> None:
    """Sculpted at 1.30 on constant CFADS: the PV of the CFADS left over the balance left is 1.30 at every period."""
    fin = _fin(
        debt_share=0.9, interest_rate=0.08, grace_months=0, amortization="sculpted", tax_rate=0.0, target_dscr=1.3
    )
    cf, *_ = _project(fin, 20_000.0)
    table = finance.llcr_table(cf, 3)
    assert table.shape == (1, 5)
    np.testing.assert_allclose(table[0], 1.3, rtol=1e-9)
    assert llcr(cf, 3)[0] == pytest.approx(table[0, 0])
