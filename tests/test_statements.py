"""Financial statements (neoplan.finance.statements): the yearly P&L adds up to the monthly accounts, the debt balance
rolls forward, labels cover every category, and reference values of the optimized preset."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import neoplan
from neoplan.design.costs import CAPEX_CATEGORIES
from neoplan.economics.opex import OPEX_CATEGORIES
from neoplan.finance import statements as st

GOLDEN = Path(__file__).resolve().parent / "golden"
VARIANTS: dict[str, Any] = {
    "optimized": "optimized",
    "reference": "reference",
    "h100_256": "h100_256",
    "short_horizon_65": {"base": "optimized", "timeline": {"horizon_months": 65}},
    "horizon_13": {"base": "optimized", "timeline": {"horizon_months": 13}},
    "horizon_71": {"base": "optimized", "timeline": {"horizon_months": 71}},
    "late_go_live": {"base": "h100_256", "timeline": {"horizon_months": 16, "delivery_lead_months": 14}},
    "no_debt": {"base": "optimized", "financing": {"sizing": "capex_share", "debt_share": 0.0}},
    "sculpted": {"base": "optimized", "financing": {"sizing": "capex_share", "amortization": "sculpted"}},
    "loan_outlives_horizon": {
        "base": "optimized",
        "financing": {"sizing": "capex_share", "amortization": "straight_line", "term_months": 120},
    },
    "waterfall": {  # a reserve drawn and refilled, lock-ups, breaches, sweeps and payment defaults
        "base": "optimized",
        "financing": {"sizing": "capex_share", "dsra_months": 6, "cash_sweep_share": 0.5},
    },
    "tranches": {
        "base": "gb200_nvl72_18rack",
        "financing": {
            "tranches": [
                {"name": "senior", "kind": "delayed_draw"},
                {"name": "vendor", "kind": "vendor", "share": 0.15},
            ]
        },
    },
    "phased": {
        "base": "b200_1024",
        "timeline": {"phases": [{"share": 0.4, "delay_months": 0}, {"share": 0.6, "delay_months": 6}]},
    },
}
"""Presets and edge cases: a short last year, go-live late in the horizon, no debt, a payoff at the horizon."""
MONEY_FLOWS = {  # P&L row → monthly_table column and the sign the P&L shows it with
    "revenue_usd": ("revenue_usd", 1),
    "ebitda_usd": ("ebitda_usd", 1),
    "depreciation_usd": ("depreciation_usd", -1),
    "ebit_usd": ("ebit_usd", 1),
    "interest_usd": ("interest_usd", -1),
    "fees_usd": ("fees_usd", -1),
    "tax_usd": ("tax_usd", -1),
    "net_income_usd": ("net_income_usd", 1),
    "project_fcf_usd": ("project_fcf_usd", 1),
    "equity_fcf_usd": ("equity_fcf_usd", 1),
}


@pytest.fixture(scope="module", params=list(VARIANTS), ids=list(VARIANTS))
def result(request: pytest.FixtureRequest) -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario(VARIANTS[request.param]))


@pytest.fixture(scope="module")
def optimized() -> neoplan.Result:
    """The optimized preset with its loan a 60 % share of capex: hand-checkable figures (the preset's own loan is
    sized on its contracts: :func:`test_the_preset_lends_on_its_contracts`)."""
    return neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "financing": {"sizing": "capex_share"}}))


def _atol(*frames: pd.DataFrame) -> float:
    """Absolute tolerance for sums of money: a millionth of a cent per dollar of the largest figure."""
    scale = max(float(np.nanmax(np.abs(f.select_dtypes("number").to_numpy()))) for f in frames)
    return 1e-9 * max(scale, 1.0)


# --- labels ---------------------------------------------------------------------------------------
def test_labels_cover_every_category(result: neoplan.Result) -> None:
    assert tuple(st.CAPEX_LABELS) == CAPEX_CATEGORIES
    assert set(result.capex_table()["category"]) <= set(st.CAPEX_LABELS)
    assert set(result.capex_usd) - {"total"} == set(st.CAPEX_LABELS)
    assert tuple(st.OPEX_LABELS) == OPEX_CATEGORIES
    assert set(result.ops.opex_by_category) <= set(st.OPEX_LABELS)
    assert list(st.PNL_LABELS) == st.PNL_ROWS and set(st.PNL_BOLD) <= set(st.PNL_ROWS)
    debt_columns = set(st.debt_by_month(result).columns) | set(st.debt_by_year(result).columns)
    assert debt_columns - {"month"} == set(st.DEBT_LABELS)
    for labels in (st.CAPEX_LABELS, st.OPEX_LABELS, st.PNL_LABELS, st.DEBT_LABELS):
        assert len(set(labels.values())) == len(labels)  # one display name per key: tables can be keyed by it


def test_year_labels_name_every_project_year(result: neoplan.Result) -> None:
    months = result.ops.dates.months
    labels = st.year_labels(result)
    assert len(labels) == math.ceil(months / 12)
    assert labels[0].startswith("Y1")
    short = months % 12
    assert labels[-1] == (f"Y{len(labels)} ({short} mo)" if short else f"Y{len(labels)}")
    years = st.year_of_month(months)
    assert years[0] == 1 and years[-1] == len(labels) and np.all(np.diff(years) >= 0)
    assert list(st.pnl_by_year(result).index) == [*labels, "Total"]
    assert list(st.debt_by_year(result).index) == [*labels, "Total"]


def test_operating_years_cover_the_months_after_go_live(result: neoplan.Result) -> None:
    dates = result.ops.dates
    years = st.operating_years(result)
    assert [y for y, _ in years] == list(range(1, len(years) + 1))
    assert sum(m for _, m in years) == pytest.approx(dates.months - dates.go_live_month)
    assert all(0 < m <= 12 for _, m in years) and all(m == 12 for _, m in years[:-1])
    table = st.opex_by_year(result)
    assert list(table.columns) == [st.operating_year_label(y, m) for y, m in years]
    assert list(table.index) == [*st.OPEX_LABELS.values(), "Total"]


# --- profit and loss ------------------------------------------------------------------------------
def test_pnl_by_year_sums_to_the_monthly_totals(result: neoplan.Result) -> None:
    pnl = st.pnl_by_year(result)
    monthly = result.monthly_table()
    monthly["year"] = st.year_of_month(len(monthly))
    by_year = monthly.groupby("year").sum()
    atol = _atol(pnl, monthly)
    years = pnl.drop(index="Total")
    for row, (column, sign) in MONEY_FLOWS.items():
        np.testing.assert_allclose(years[row].to_numpy(), sign * by_year[column].to_numpy(), atol=atol, err_msg=row)
        assert pnl.loc["Total", row] == pytest.approx(sign * monthly[column].sum(), abs=atol), row
        assert pnl.loc["Total", row] == pytest.approx(years[row].sum(), abs=atol), row
    opex = years["cost_of_revenue_usd"] + years["other_opex_usd"]
    np.testing.assert_allclose(opex.to_numpy(), -by_year["opex_usd"].to_numpy(), atol=atol)


def test_pnl_rows_add_up_down_the_page(result: neoplan.Result) -> None:
    p = st.pnl_by_year(result)
    atol = _atol(p)
    np.testing.assert_allclose(p.revenue_usd + p.cost_of_revenue_usd, p.gross_profit_usd, atol=atol)
    np.testing.assert_allclose(p.gross_profit_usd + p.other_opex_usd, p.ebitda_usd, atol=atol)
    np.testing.assert_allclose(p.ebitda_usd + p.depreciation_usd, p.ebit_usd, atol=atol)
    below = p.ebit_usd + p.interest_usd + p.fees_usd + p.gain_on_sale_usd + p.tax_usd
    np.testing.assert_allclose(below, p.net_income_usd, atol=max(atol, 0.01))  # the gain is rounded to cents
    assert (p.cost_of_revenue_usd <= 0).all() and (p.depreciation_usd <= 0).all() and (p.interest_usd <= 0).all()
    earning = p.revenue_usd > 0
    np.testing.assert_allclose(p.gross_margin[earning], (p.gross_profit_usd / p.revenue_usd)[earning])
    np.testing.assert_allclose(p.net_margin[earning], (p.net_income_usd / p.revenue_usd)[earning])
    assert p.ebitda_margin[~earning].isna().all()  # no revenue, no margin (not ±inf)


def test_pnl_labels_say_what_the_rows_hold(optimized: neoplan.Result) -> None:
    """Defect 6: "Interest (incl. capitalised)" left out the $0.62 M of interest during construction, which is
    capitalised into the asset and depreciated with it: the rows now say so, and add up to the debt's interest."""
    p, c = st.pnl_by_year(optimized), optimized.ops.cash
    assert c.costs is not None
    idc = float(c.costs.idc_usd[0])
    assert idc == pytest.approx(623_840.84, abs=0.01)
    assert "incl. capitalised" not in st.PNL_LABELS["interest_usd"] and "IDC" in st.PNL_LABELS["depreciation_usd"]
    assert -p.loc[st.TOTAL, "interest_usd"] == pytest.approx(float(c.debt.interest.sum()) - idc, rel=1e-12)
    idc_depreciated = float(c.costs.idc_depreciation.sum()) + float(c.costs.idc_book_at_sale.sum())
    assert idc_depreciated == pytest.approx(idc, rel=1e-12)  # all of it depreciated or written off at the sale
    hardware = float((c.depreciation - c.costs.idc_depreciation).sum())
    assert -p.loc[st.TOTAL, "depreciation_usd"] == pytest.approx(hardware + float(c.costs.idc_depreciation.sum()))


def test_the_debt_table_shows_the_sweep_and_the_reserve() -> None:
    r = neoplan.evaluate(
        neoplan.load_scenario(
            {"base": "optimized", "financing": {"sizing": "capex_share", "term_months": 120, "dsra_months": 6}}
        )
    )
    m = st.debt_by_month(r)
    assert m.sweep_usd.iloc[-1] == pytest.approx(r.ops.cash.residual[0, -1])  # the sale repays what it can
    assert m.payoff_usd.iloc[-1] > 0  # the rest, at the horizon
    assert m.reserve_funded_usd.iloc[0] > 0 and m.reserve_draw_usd.sum() > 0  # the reserve pays debt service …
    left = m.reserve_funded_usd.sum() - m.reserve_draw_usd.sum() + m.reserve_topup_usd.sum()
    assert m.reserve_released_usd.iloc[-1] == pytest.approx(left)  # … and what is left goes back at the horizon


def test_pnl_by_year_is_a_fresh_copy(optimized: neoplan.Result) -> None:
    first = st.pnl_by_year(optimized)
    first.loc["Y1", "revenue_usd"] = -1.0
    assert st.pnl_by_year(optimized).loc["Y1", "revenue_usd"] > 0


# --- debt -----------------------------------------------------------------------------------------
def test_debt_balance_rolls_forward_month_by_month(result: neoplan.Result) -> None:
    d = st.debt_by_month(result)
    atol = _atol(d)
    opening = np.concatenate([[0.0], d.balance_usd.to_numpy()[:-1]])
    prepaid = d.cash_sweep_usd + d.sweep_usd + d.payoff_usd  # the waterfall's sweep, the sale's, the horizon's
    closing = opening + d.draws_usd + d.interest_capitalized_usd - d.principal_usd - prepaid
    np.testing.assert_allclose(closing, d.balance_usd, atol=atol)
    np.testing.assert_allclose(d.interest_capitalized_usd + d.interest_paid_usd, d.interest_accrued_usd, atol=atol)
    np.testing.assert_allclose(d.interest_paid_usd + d.principal_usd, d.debt_service_usd, atol=atol)
    assert (d.balance_usd >= -atol).all()
    assert d.balance_usd.iloc[-1] == pytest.approx(0.0, abs=atol)  # paid off by the horizon at the latest


def test_debt_by_year_rolls_forward_and_sums_the_months(result: neoplan.Result) -> None:
    y = st.debt_by_year(result)
    m = st.debt_by_month(result)
    atol = _atol(y, m)
    years = y.drop(index="Total")
    opening = np.concatenate([[0.0], years.balance_end_usd.to_numpy()[:-1]])
    money_out = years.principal_usd + years.cash_sweep_usd + years.sweep_usd + years.payoff_usd
    closing = opening + years.draws_usd + years.interest_capitalized_usd - money_out
    np.testing.assert_allclose(closing, years.balance_end_usd, atol=atol)
    flows = [c for c in m.columns if c not in ("month", *st.STOCKS)]
    for column in flows:
        assert y.loc["Total", column] == pytest.approx(m[column].sum(), abs=atol), column
        assert y.loc["Total", column] == pytest.approx(years[column].sum(), abs=atol), column
    assert y.loc["Total", "balance_end_usd"] == m.balance_usd.iloc[-1]


# --- capex and opex -------------------------------------------------------------------------------
def test_capex_by_category_adds_up(result: neoplan.Result) -> None:
    table = st.capex_by_category(result)
    assert list(table.category) == [*st.CAPEX_LABELS.values(), "Total"]
    parts = table.iloc[:-1]
    assert parts.capex_usd.sum() == pytest.approx(result.capex_total_usd)
    assert table.capex_usd.iloc[-1] == result.capex_usd["total"]
    assert parts.share.sum() == pytest.approx(1.0)


def test_opex_by_year_total_is_the_sum_of_categories(result: neoplan.Result) -> None:
    table = st.opex_by_year(result)
    np.testing.assert_allclose(table.iloc[:-1].sum().to_numpy(), table.loc["Total"].to_numpy(), rtol=1e-12)
    for (year, _), column in zip(st.operating_years(result), table.columns, strict=True):
        assert table.loc["Total", column] == pytest.approx(result.opex_for_year(year)["total"])


# --- reference values: the optimized preset ------------------------------------------------------
def test_the_preset_lends_on_its_contracts() -> None:
    """The optimized preset's loan as the default sizing makes it: sculpted to 1.30× on the contracted CFADS, every
    year's DSCR at least the target, repaid by the month the first contracts end."""
    r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    debt = st.debt_by_year(r)
    assert debt.loc["Total", "draws_usd"] == pytest.approx(r.debt_usd) and 0 < r.debt_usd < 0.65 * r.capex_total_usd
    cover = st.cover_by_year(r)
    assert (cover["dscr"] >= r.scenario.financing.target_dscr - 1e-9).all()
    term = max(c.term_months for c in r.scenario.pricing.contracts or () if c.kind == "take_or_pay")
    contracts_end = r.ops.dates.go_live_month + term  # the book's 3-year take-or-pay
    assert int(cover["months"].iloc[-1].split("–")[1]) < contracts_end


def test_optimized_reference_values(optimized: neoplan.Result) -> None:
    """Hand-checkable figures of the optimized preset (72 months, 60 % debt at 11 %, 2 % fee, IDC capitalised)."""
    pnl, debt = st.pnl_by_year(optimized), st.debt_by_year(optimized)
    capex = st.capex_by_category(optimized).set_index("category").capex_usd
    assert st.year_labels(optimized) == ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6"]
    assert capex["Compute"] == 32_819_200.0 and capex["Back-end network"] == 3_482_880.0
    assert capex["Total"] == 38_656_796.0
    assert debt.loc["Total", "draws_usd"] == pytest.approx(0.6 * 38_656_796.0)  # debt share × capex
    assert debt.loc["Total", "fee_usd"] == pytest.approx(0.02 * 0.6 * 38_656_796.0)  # upfront fee on the loan
    assert debt.loc["Total", "interest_capitalized_usd"] == pytest.approx(623_840.84, abs=0.01)
    assert debt.loc["Y1", "balance_end_usd"] == pytest.approx(23_430_671.41, abs=0.01)
    assert debt.loc["Y5", "balance_end_usd"] == pytest.approx(0.0, abs=1e-6)  # 60-month term ends in month 59
    # issue 36: the neocloud_2024 book in the market of 2024-10 (70 % 3-year take-or-pay at $1.85, 20 % on demand at
    # $2.99, half the idle hours at spot, $1.50), prices along the Hopper curve as forecast in 2024-10, the customers'
    # losses (churn after the first renewal, the acceptance test)
    assert pnl.loc["Y1", "revenue_usd"] == pytest.approx(10_230_859.60, abs=0.01)
    assert pnl.loc["Total", "revenue_usd"] == pytest.approx(70_010_984.34, abs=0.01)
    opex = st.opex_by_year(optimized)
    assert list(opex.columns)[-1] == "Year 6 (7.6 mo)"
    g = optimized.ops.dates.go_live_month  # operating year 2 runs from month g + 12: 12 − g months in project year 2
    escalated = (1.03 * (12 - g) + 1.03**2 * g) / 12  # opex rises 3 % a project year
    assert opex.loc["Staff", "Year 2"] == pytest.approx(901_120.0 * escalated, rel=1e-12)
    golden = json.loads((GOLDEN / "optimized.json").read_text(encoding="utf-8"))  # the pinned evaluate --json
    assert pnl.loc["Total", "gross_margin"] == pytest.approx(golden["gross_margin"], rel=1e-9)
    assert pnl.loc["Total", "ebitda_margin"] == pytest.approx(golden["ebitda_margin"], rel=1e-9)


def test_old_import_paths_still_work() -> None:
    from neoplan.charts import finance, site

    assert finance.pnl_by_year is st.pnl_by_year and finance.debt_by_year is st.debt_by_year
    assert finance.PNL_LABELS is st.PNL_LABELS and finance.DEBT_LABELS is st.DEBT_LABELS
    assert site.CAPEX_LABELS is st.CAPEX_LABELS and site.OPEX_LABELS is st.OPEX_LABELS
    assert site.capex_category_table is st.capex_by_category and site.opex_by_year_table is st.opex_by_year


def test_charts_draw_the_statements(optimized: neoplan.Result) -> None:
    """The margin chart draws the P&L statement it is given; the opex chart draws the opex table."""
    from neoplan.charts import finance, site

    pnl = st.pnl_by_year(optimized)
    drawn = finance.margin_figure(optimized, pnl)
    assert drawn.to_dict() == finance.margin_figure(optimized).to_dict()
    revenue = next(t for t in drawn.data if t.name == "revenue")
    assert list(revenue.x) == st.year_labels(optimized)
    np.testing.assert_array_equal(revenue.y, pnl.drop(index="Total").revenue_usd.to_numpy())
    opex = st.opex_by_year(optimized)
    bars = {t.name: t for t in site.opex_by_year_figure(optimized).data}
    assert list(bars["Staff"].x) == list(opex.columns)
    np.testing.assert_array_equal(bars["Colocation"].y, opex.loc["Colocation"].to_numpy())
    np.testing.assert_array_equal(bars["total"].y, opex.loc["Total"].to_numpy())  # the label above each bar


def test_tco_by_source_splits_capital_by_capex_and_adds_up_to_tco(optimized: neoplan.Result) -> None:
    """Capital split over the capex categories in the capex's proportions, the other components as they are; the
    rows add up to TCO per sold GPU-hour."""
    table = st.tco_by_source(optimized)
    tco = optimized.tco_breakdown_usd_per_gpu_hour
    capital = table[table["component"] == "capital"]
    capex = optimized.capex_usd
    shown = [c for c in st.CAPEX_LABELS if capex[c] > 0]
    assert list(capital["source"]) == [st.CAPEX_LABELS[c] for c in shown]
    assert capital["usd_per_gpu_hour"].tolist() == pytest.approx(
        [tco["capital"] * capex[c] / capex["total"] for c in shown], rel=1e-12
    )
    assert capital["usd_per_gpu_hour"].sum() == pytest.approx(tco["capital"], rel=1e-12)
    rest = table[table["component"] != "capital"].set_index("component")["usd_per_gpu_hour"].to_dict()
    assert rest == {k: v for k, v in tco.items() if k != "capital"}
    assert table["usd_per_gpu_hour"].sum() == pytest.approx(optimized.kpis["tco_usd_per_gpu_hour"], rel=1e-12)
