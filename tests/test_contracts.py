"""The contract book as sold (neoplan.economics.contracts, neoplan.economics.revenue): take-or-pay with a term and a
prepayment, spot on idle hours and hot spares, contracted revenue by credit, the named books, the inputs' checks, and
every workload × platform × latency evaluating or refused with a reason.

Reference values are worked by hand from the conventions of ``neoplan/economics/revenue.py``: a mean month holds
8,766 / 12 = 730.5 hours; the go-live month earns pro rata; committed hours are billed from go-live whether used or
not; a prepayment arrives in the delivery month and its share of each first-term bill is settled from it.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_revenue import HOURS, pricing, timeline

import neoplan
from neoplan.economics import contracts, inference, revenue
from neoplan.economics.contracts import Book, Line
from neoplan.economics.market import PricePath
from neoplan.finance.irr_notes import sign_changes
from neoplan.inputs import profiles
from neoplan.inputs.books import contract_books
from neoplan.inputs.loading import scenario_from_dict
from neoplan.inputs.pricebook import default_platforms


def test_a_five_year_take_or_pay_with_prepayment_by_hand() -> None:
    """10 GPUs, 80 % on a 60-month take-or-pay at half the $2 headline ($1.00), 20 % prepaid, with an investment-grade
    customer; go-live (and delivery) at month 1, 72 months, no decline, 10 % SLA credits."""
    book = Book((Line("take_or_pay", 0.8, 60, 0.5, None, 0.2, "investment_grade"),), spot_share_of_idle=0.0)
    d = revenue.dates(timeline(go_live_month=1.0, horizon_months=72))
    s = revenue.revenue_schedule(pricing(), 10, d, book=book)
    month = 10 * HOURS * 0.8 * 1.00  # 5,844 GPU-hours × $1.00 = $5,844 a month
    assert s.committed_usd[0] == 0 and s.committed_usd[1:] == pytest.approx([month] * 71)
    assert s.revenue_usd[1] == pytest.approx(month * 0.9)
    # the first term is months 1 … 60: its value $350,640; 20 % of it ($70,128) arrives with the hardware (month 1)
    first_term = 60 * month
    assert s.prepayment_received_usd[1] == pytest.approx(0.2 * first_term) == pytest.approx(70_128.0)
    assert np.count_nonzero(s.prepayment_received_usd) == 1
    # … and each first-term bill is 20 % smaller: $1,168.80 a month settled from it, $0 after the term
    assert s.prepaid_revenue_usd[1:61] == pytest.approx([0.2 * month] * 60) and not s.prepaid_revenue_usd[61:].any()
    assert s.prepaid_revenue_usd.sum() == pytest.approx(s.prepayment_received_usd.sum(), rel=1e-12)
    # lenders count the first term only, by credit: the renewal (month 61 on) is not contracted at close
    by_credit = revenue.contracted_revenue_by_credit(s)
    assert by_credit["investment_grade"][1:61] == pytest.approx([month] * 60)
    assert not by_credit["investment_grade"][61:].any() and not by_credit["sub_investment_grade"].any()


def test_a_prepayment_moves_cash_earlier_not_revenue_nor_its_total() -> None:
    """Through the whole model: the same book with and without a 20 % prepayment earns the same revenue and tax; the
    cash arrives earlier (NPV up), and over the horizon the same cash is collected. (No loan in either: a loan sized
    on the contracts lends less against bills the prepayment has already paid, and the cash waterfall of any loan
    moves with the cash.)"""
    book = [{"kind": "take_or_pay", "share": 0.9, "term_months": 60, "counterparty": "investment_grade"}]
    same_loan = {"sizing": "capex_share", "debt_share": 0.0}
    plain = neoplan.evaluate(
        scenario_from_dict({"base": "gb200_nvl72_18rack", "pricing": {"contracts": book}, "financing": same_loan})
    )
    prepaid_book = [{**book[0], "prepayment_share": 0.2}]
    paid = neoplan.evaluate(
        scenario_from_dict(
            {"base": "gb200_nvl72_18rack", "pricing": {"contracts": prepaid_book}, "financing": same_loan}
        )
    )
    a, b = plain.ops.cash, paid.ops.cash
    np.testing.assert_allclose(b.revenue, a.revenue, rtol=1e-12)
    np.testing.assert_allclose(b.taxable_income, a.taxable_income, rtol=1e-9, atol=1e-3)
    assert b.revenue_collected.sum() == pytest.approx(a.revenue_collected.sum(), rel=1e-12)
    delivery = int(paid.ops.dates.delivery_month)
    received = paid.ops.revenue.prepayment_received_usd[delivery]
    first_term = paid.ops.revenue.committed_usd[: delivery + 1 + 60].sum()  # go-live month on, 60 months
    assert received == pytest.approx(0.2 * paid.ops.revenue.contracted_investment_grade_usd.sum(), rel=1e-12)
    assert received == pytest.approx(0.2 * first_term, rel=0.05)
    assert b.revenue_collected[0, delivery] - a.revenue_collected[0, delivery] == pytest.approx(received, rel=1e-9)
    assert paid.kpis["npv_usd"] > plain.kpis["npv_usd"]


def test_spot_on_idle_hours_and_hot_spares_raises_revenue_by_the_hand_computed_amount() -> None:
    """10 sellable GPUs + 2 spare GPUs; 60 % reserved and 20 % on demand are billed, so 12 × 730.5 − 8 × 730.5 =
    2,922 GPU-hours a month are idle; half sell at spot, half the $2 headline: +1,461 h × $1.00 = $1,461 gross a
    month, $1,314.90 net of the 10 % SLA credits."""
    p = pricing(ramp_months=0)
    lines = (Line("reserved", 0.6, 12, 0.75), Line("on_demand", 0.2))
    d = revenue.dates(timeline(go_live_month=1.0))
    path = PricePath.flat(0.0)

    def sold(share: float) -> revenue.RevenueSchedule:
        book = Book(lines, spot_share_of_idle=share, spot_multiple=0.5)
        return revenue.sales_schedule(p, 10, d, book=book, spare_gpus=2, price_path=path)

    none, half = sold(0.0), sold(0.5)
    assert not none.spot_gpu_hours.any()
    assert (half.spot_gpu_hours - none.spot_gpu_hours)[1:] == pytest.approx([1461.0] * 35)
    assert (half.revenue_usd - none.revenue_usd)[1:] == pytest.approx([1314.9] * 35)
    assert half.revenue_usd[0] == none.revenue_usd[0] == 0  # nothing before go-live
    assert (half.used_gpu_hours - none.used_gpu_hours)[5] == pytest.approx(1461.0)  # spot hours are used (power)
    assert half.spot_usd_per_gpu_hour[5] == pytest.approx(1.0, rel=1e-12)


def test_spot_on_idle_lifts_every_preset() -> None:
    for name in ("optimized", "gb200_nvl72_18rack"):
        own = neoplan.evaluate(neoplan.load_scenario(name))
        none = neoplan.evaluate(scenario_from_dict({"base": name, "pricing": {"spot_share_of_idle": 0.0}}))
        assert own.kpis["npv_usd"] > none.kpis["npv_usd"]
        assert own.ops.revenue.spot_gpu_hours.sum() > 0 == none.ops.revenue.spot_gpu_hours.sum()


def test_committed_capacity_bills_its_share_whatever_the_use_and_on_demand_takes_the_rest() -> None:
    """A book of 50 % take-or-pay (36 months), 10 % spot and 30 % on demand: at 90 % use on demand sells 30 %, spot
    10 %; at 40 % use the take-or-pay still bills 50 % (40 % used), nothing else sells."""
    lines = (Line("take_or_pay", 0.5, 36, 0.7), Line("spot", 0.1, multiple=0.5), Line("on_demand", 0.3))
    book = Book(lines)
    d = revenue.dates(timeline(go_live_month=1.0))
    full = revenue.revenue_schedule(pricing(ramp_months=0), 10, d, book=book, utilization=0.9)
    cap = 10 * HOURS
    assert (full.committed_gpu_hours[3], full.spot_gpu_hours[3], full.on_demand_gpu_hours[3]) == pytest.approx(
        (0.5 * cap, 0.1 * cap, 0.3 * cap)
    )
    low = revenue.revenue_schedule(pricing(ramp_months=0), 10, d, book=book, utilization=0.4)
    assert low.sold_gpu_hours[3] == pytest.approx(0.5 * cap) and low.used_gpu_hours[3] == pytest.approx(0.4 * cap)


def test_a_contract_starting_later_bills_from_its_start_and_renews_on_its_own_clock() -> None:
    late = Book((Line("reserved", 0.5, 12, 0.75, start_month=6),))
    d = revenue.dates(timeline(go_live_month=1.0))
    s = revenue.revenue_schedule(pricing(price_decline_per_year=0.19), 10, d, book=late, utilization=0.5)
    assert not s.committed_gpu_hours[:7].any() and s.committed_gpu_hours[7] > 0
    # signed at the market of its start (half a year of 19 %: × 0.9), renewed 12 months on (month 19) at the market
    # then (a year and a half: × 0.9³)
    assert s.reserved_usd_per_gpu_hour[7] == s.reserved_usd_per_gpu_hour[18] == pytest.approx(1.5 * 0.9, rel=1e-12)
    assert s.reserved_usd_per_gpu_hour[19] == pytest.approx(1.5 * 0.9**3, rel=1e-12)


# --- the inputs ------------------------------------------------------------------------------------------------------


def test_a_book_name_stands_for_its_contracts_and_a_saved_scenario_lists_them() -> None:
    s = scenario_from_dict({"base": "optimized", "pricing": {"contracts": "hyperscale_offtake"}})
    assert [c.kind for c in s.pricing.contracts] == [r.kind for r in contract_books()["hyperscale_offtake"]]
    again = neoplan.parse_scenario(s.to_yaml())
    assert again.pricing.contracts == s.pricing.contracts
    assert s.pricing.steady_utilization == pytest.approx(0.95)


@pytest.mark.parametrize(
    ("contracts", "message"),
    [
        ("nope", "must be a list of contracts or one of the books neocloud_2024, "),
        ([{"kind": "take_or_pay", "share": 0.8, "term_months": 60}, {"kind": "on_demand", "share": 0.3}],
         "pricing.contracts: the shares must sum to at most 100 %, got 110 %"),
        ([{"kind": "on_demand", "share": 0.3, "term_months": 12}], "a on_demand contract has no term"),
        ([{"kind": "reserved", "share": 0.3}], "term_months of a reserved contract must be ≥ 1, got 0"),
        ([{"kind": "reserved", "share": 0.3, "term_months": 12, "prepayment_share": 0.1}],
         "only a take_or_pay contract is prepaid"),
        ([{"kind": "on_demand", "share": 0.3, "usd_per_gpu_hour": 2.0}], "an on_demand contract pays the headline"),
        ([{"kind": "spot", "share": 0.3, "counterparty": "AAA"}], "investment_grade"),
        ([{"kind": "swap", "share": 0.3}], "take_or_pay"),
    ],
)  # fmt: skip
def test_a_bad_contract_is_refused_in_one_line_naming_the_field(contracts: object, message: str) -> None:
    with pytest.raises(neoplan.ScenarioError) as caught:
        scenario_from_dict({"base": "optimized", "pricing": {"contracts": contracts}})
    text = str(caught.value)
    assert text.startswith("pricing.contracts") and message in text and "\n" not in text, text


def test_the_shorthand_is_the_book_when_no_contracts_are_given() -> None:
    s = scenario_from_dict({"base": "optimized", "pricing": {"contracts": None, "utilization": 0.85}})
    book = contracts.book_of(s)
    assert [(line.kind, line.term_months) for line in book.lines] == [("reserved", 24), ("on_demand", 0)]
    assert book.lines[0].share == 0.6 and book.lines[1].share == pytest.approx(0.25)
    assert s.pricing.steady_utilization == 0.85


def test_the_platform_switch_keeps_the_book_and_unpins_its_prices() -> None:
    pinned = [{"kind": "take_or_pay", "share": 0.8, "term_months": 48, "usd_per_gpu_hour": 2.1}]
    s = scenario_from_dict({"base": "optimized", "pricing": {"contracts": pinned}})
    moved = profiles.with_platform(s, "b200-sxm")
    (c,) = moved.pricing.contracts
    assert (c.kind, c.share, c.term_months, c.usd_per_gpu_hour) == ("take_or_pay", 0.8, 48, None)


# --- IRR notes -----------------------------------------------------------------------------------------------------


def test_sign_changes_count_material_months_only() -> None:
    assert sign_changes(np.array([-100.0, 0.0, 50.0, 60.0])) == 1
    assert sign_changes(np.array([-100.0, 50.0, -1e-9, 60.0])) == 1  # rounding is no change of sign
    assert sign_changes(np.array([-100.0, 80.0, -30.0, 60.0])) == 3


def test_a_plan_with_sponsor_support_notes_its_equity_irr() -> None:
    r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    assert any(w.startswith("Sponsor support") for w in r.warnings)
    assert r.irr_notes["equity_irr"].startswith("not meaningful: equity puts in")
    assert r.to_dict()["irr_notes"] == r.irr_notes


# --- every workload × platform × latency -----------------------------------------------------------------------------


def test_every_workload_platform_and_latency_evaluates_or_is_refused_with_a_reason() -> None:
    """The whole table: a plan serving any workload on any platform at any latency either evaluates (and its JSON
    contract is complete) or is refused with a one-line ScenarioError naming the field; never an internal error."""
    base = neoplan.load_scenario("optimized")
    evaluated = refused = 0
    for platform in default_platforms():
        on = profiles.with_platform(base, platform).model_dump(mode="json")
        for workload in inference.workloads():
            for latency in inference.SERVING_SCENARIOS:
                pricing = {**on["pricing"], "sell": "tokens", "workload": workload, "serving_scenario": latency}
                try:
                    s = scenario_from_dict({**on, "base": None, "pricing": pricing})
                except neoplan.ScenarioError as exc:
                    text = str(exc)
                    assert text.startswith(("pricing.workload", "pricing.serving_scenario")) and "\n" not in text
                    refused += 1
                    continue
                d = neoplan.evaluate(s).to_dict()
                assert d["serving"]["interactivity"] and d["usd_per_million_tokens"] is not None
                evaluated += 1
    assert evaluated >= 70 and refused >= 1
