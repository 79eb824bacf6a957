"""Finance engine: hand-worked cases, invariants, properties (numpy-financial style)."""

from __future__ import annotations

import numpy as np
import numpy_financial as npf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neoplan.finance import (
    cash_flows,
    debt_schedule,
    depreciation,
    dscr_by_period,
    irr_annual,
    min_dscr,
    monthly_rate,
    npv,
    payback_months,
    tax_with_loss_carry_forward,
)
from neoplan.scenario import Financing

MONTHS = 72


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
    tax = tax_with_loss_carry_forward(np.array([-100.0, 50.0, 80.0]), 0.25)
    np.testing.assert_allclose(tax, [0.0, 0.0, 7.5])


def test_depreciation_sums_to_capex_within_life() -> None:
    dep = depreciation(np.array([1_200.0]), 40, go_live=2.5, life_months=36)
    assert dep.sum() == pytest.approx(1_200.0)
    assert dep[0, :2].sum() == 0.0


def test_annuity_loan_matches_numpy_financial() -> None:
    fin = Financing(debt_share=1.0, interest_rate=0.12, term_months=60, grace_months=0, capitalize_idc=False,
                    upfront_fee_rate=0.0)
    debt = debt_schedule(fin, _payments(), first_operating_month=0)
    r = 0.12 / 12
    payment = -npf.pmt(r, 60, 1_000_000.0)
    service = debt.debt_service[0, :60]
    np.testing.assert_allclose(service, payment, rtol=1e-9)
    assert debt.principal.sum() == pytest.approx(1_000_000.0)
    assert service.sum() == pytest.approx(debt.principal.sum() + debt.interest_paid.sum())
    assert debt.balance[0, 59] == pytest.approx(0.0, abs=1e-6)
    np.testing.assert_allclose(debt.interest[0, :60], -npf.ipmt(r, np.arange(1, 61), 60, 1_000_000.0), rtol=1e-9)


def test_grace_and_capitalised_interest() -> None:
    fin = Financing(debt_share=0.5, interest_rate=0.12, term_months=60, grace_months=6, capitalize_idc=True)
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
    fin = Financing(debt_share=1.0, interest_rate=0.1, term_months=40, grace_months=0, amortization="straight_line",
                    capitalize_idc=False)
    debt = debt_schedule(fin, _payments(months=48), first_operating_month=0)
    np.testing.assert_allclose(debt.principal[0, :40], 1_000_000 / 40)


def _project(financing: Financing, monthly_ebitda: float = 40_000.0) -> tuple:
    months = MONTHS
    revenue = np.full(months, monthly_ebitda + 10_000.0)
    revenue[:3] = 0.0
    opex = np.full(months, 10_000.0)
    opex[:3] = 0.0
    pay = _payments(1_000_000.0, months)
    cf = cash_flows(financing, revenue=revenue, opex=opex, capex_payments=pay, capex_total=1_000_000.0, go_live=3.0,
                    life_months=60, residual_share=0.1)
    return cf, revenue, opex, pay


def test_all_equity_constant_cash_flow_by_hand() -> None:
    fin = Financing(debt_share=0.0, tax_rate=0.0)
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
    fin = Financing(debt_share=0.6, interest_rate=0.11, term_months=60, grace_months=6, amortization=amortization)
    cf, revenue, opex, pay = _project(fin)
    equity_in = np.maximum(-cf.equity_fcf, 0)
    distributions = np.maximum(cf.equity_fcf, 0)
    sources = revenue + cf.residual + cf.debt.draws + equity_in
    uses = (opex + pay + cf.debt.interest_paid + cf.debt.principal + cf.debt.payoff + cf.debt.fee + cf.tax
            + distributions)
    np.testing.assert_allclose(sources, uses, atol=1e-6)
    assert cf.debt.balance[0, -1] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("target", [1.3, 2.0])
def test_sculpted_service_holds_the_target_dscr(target: float) -> None:
    fin = Financing(debt_share=0.5, interest_rate=0.08, term_months=60, grace_months=0, amortization="sculpted",
                    target_dscr=target, tax_rate=0.0)
    cf, *_ = _project(fin)
    service = cf.debt.debt_service[0]
    paying = (np.arange(service.size) >= cf.debt.repay_start) & (cf.debt.balance[0] > 1e-6)
    np.testing.assert_allclose(cf.cfads[0, paying] / service[paying], target, rtol=1e-9)
    assert min_dscr(cf, 3)[0] == pytest.approx(target, rel=1e-6) or min_dscr(cf, 3)[0] > target
    # a loan that cannot be repaid from CFADS / target by maturity ends with a balloon at maturity
    heavy = Financing(debt_share=0.9, interest_rate=0.08, term_months=30, grace_months=0, amortization="sculpted",
                      target_dscr=target, tax_rate=0.0)
    cf2, *_ = _project(heavy)
    assert cf2.debt.balance[0, 29] == pytest.approx(0.0, abs=1e-6)
    assert cf2.debt.principal[0, 29] > cf2.debt.principal[0, 28]
    assert min_dscr(cf2, 3)[0] < target


def test_dscr_period_is_cut_at_maturity() -> None:
    fin = Financing(debt_share=0.5, interest_rate=0.08, term_months=20, grace_months=0, tax_rate=0.0)
    cf, *_ = _project(fin)
    starts, table = dscr_by_period(cf, 3)
    assert list(starts) == [3, 15]
    last = slice(15, 20)
    assert table[0, 1] == pytest.approx(cf.cfads[0, last].sum() / cf.debt.debt_service[0, last].sum())


def test_higher_rate_lowers_equity_irr() -> None:
    lo, *_ = _project(Financing(interest_rate=0.06))
    hi, *_ = _project(Financing(interest_rate=0.16))
    assert irr_annual(hi.equity_fcf[0]) < irr_annual(lo.equity_fcf[0])
    np.testing.assert_allclose(hi.project_fcf, lo.project_fcf)  # project cash flow ignores financing


def test_vectorised_cases_equal_one_by_one() -> None:
    fin = Financing()
    months = 48
    revenue = np.array([np.full(months, 30_000.0), np.full(months, 60_000.0)])
    opex = np.full(months, 5_000.0)
    pay = np.zeros(months)
    pay[0] = 800_000.0
    both = cash_flows(fin, revenue=revenue, opex=opex, capex_payments=pay, capex_total=800_000.0, go_live=2.0,
                      life_months=36, residual_share=0.0)
    for i in range(2):
        one = cash_flows(fin, revenue=revenue[i], opex=opex, capex_payments=pay, capex_total=800_000.0, go_live=2.0,
                         life_months=36, residual_share=0.0)
        np.testing.assert_allclose(both.equity_fcf[i], one.equity_fcf[0])


@settings(max_examples=40, deadline=None)
@given(
    ebitda=st.floats(5_000, 200_000),
    debt_share=st.floats(0, 0.9),
    rate=st.floats(0, 0.25),
    amortization=st.sampled_from(["annuity", "straight_line", "sculpted"]),
)
def test_debt_always_repaid_and_cash_balances(ebitda: float, debt_share: float, rate: float,
                                              amortization: str) -> None:
    fin = Financing(debt_share=debt_share, interest_rate=rate, amortization=amortization)
    cf, *_ = _project(fin, ebitda)
    total_out = cf.debt.principal.sum() + cf.debt.payoff.sum()
    assert total_out == pytest.approx(cf.debt.draws.sum() + cf.debt.interest_capitalized.sum(), rel=1e-9, abs=1e-6)
    assert np.all(cf.debt.balance >= -1e-6)
    assert np.all(np.isfinite(cf.equity_fcf))
    assert np.all(cf.tax >= 0)
