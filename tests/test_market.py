"""Contract prices by term and the price path by generation (neoplan.economics.market): reference values from the data
rows, the path's conventions, the averages the stress driver uses, and one source of truth for the presets' prices."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neoplan
from neoplan.economics import market, revenue
from neoplan.economics.market import PricePath
from neoplan.errors import DataError
from neoplan.inputs import pricebook
from neoplan.inputs.presets import preset_names

ROWS = pricebook.rental_contracts()


def _price(platform: str, contract: str) -> float:
    return ROWS[(platform, contract)].usd_per_gpu_hour


# --- contract prices -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("term", "contract"), [(12, "reserved_1y"), (36, "reserved_3y"), (0, "on_demand")])
def test_a_term_of_a_row_takes_that_row(term: int, contract: str) -> None:
    price = market.contract_price("h100-sxm", term)
    row = ROWS[("h100-sxm", contract)]
    assert (price.usd_per_gpu_hour, price.low_usd_per_gpu_hour, price.high_usd_per_gpu_hour) == (
        row.usd_per_gpu_hour,
        row.low_usd_per_gpu_hour,
        row.high_usd_per_gpu_hour,
    )
    assert price.basis == row.basis and row.source in price.source


def test_a_two_year_term_is_the_geometric_mean_of_the_one_and_three_year_prices() -> None:
    price = market.contract_price("h100-sxm", 24)
    assert price.usd_per_gpu_hour == pytest.approx(math.sqrt(2.65 * 1.90), rel=1e-12)  # $2.24
    assert price.low_usd_per_gpu_hour == pytest.approx(math.sqrt(1.90 * 1.50), rel=1e-12)
    assert price.basis == "estimate" and "interpolated geometrically" in price.source


def test_short_terms_lie_between_on_demand_and_one_year_long_ones_hold_the_longest_row() -> None:
    six = market.contract_price("b200-sxm", 6).usd_per_gpu_hour
    assert six == pytest.approx(5.30 * (4.25 / 5.30) ** 0.5, rel=1e-12)
    assert market.contract_price("b200-sxm", 60).usd_per_gpu_hour == _price("b200-sxm", "reserved_5y")
    four = market.contract_price("b200-sxm", 48)  # between the 3- and 5-year rows
    assert four.usd_per_gpu_hour == pytest.approx(3.05 * (2.78 / 3.05) ** 0.5, rel=1e-12)
    assert market.contract_price("b200-sxm", 84).usd_per_gpu_hour == _price("b200-sxm", "reserved_5y")
    held = market.contract_price("h100-sxm", 60)  # no five-year H100 row: the three-year price, held
    assert held.usd_per_gpu_hour == _price("h100-sxm", "reserved_3y") and "held at the 3-year price" in held.source


@settings(max_examples=60, deadline=None)
@given(platform=st.sampled_from(sorted(pricebook.default_rentals())), a=st.integers(0, 60), b=st.integers(0, 60))
def test_a_longer_commitment_never_costs_more(platform: str, a: int, b: int) -> None:
    short, long = sorted((a, b))
    assert market.contract_price(platform, long).usd_per_gpu_hour <= market.contract_price(
        platform, short
    ).usd_per_gpu_hour * (1 + 1e-12)


def test_the_reserved_multiple_is_the_contract_over_the_on_demand_row_unless_set() -> None:
    opt = neoplan.load_scenario({"base": "optimized", "pricing": {"contracts": None}})  # the shorthand, 24 months
    # 2024-10: the 2024-10 market's 1- and 3-year rows over its on demand
    assert market.reserved_multiple(opt) == pytest.approx(math.sqrt(2.55 * 1.85) / 2.99, rel=1e-12)
    today = neoplan.load_scenario({"base": "optimized", "prices_as_of": "2026-11", "pricing": {"contracts": None}})
    assert market.reserved_multiple(today) == pytest.approx(math.sqrt(2.65 * 1.90) / 2.81, rel=1e-12)
    own = neoplan.load_scenario({"base": "optimized", "pricing": {"contracts": None, "reserved_price_multiple": 0.9}})
    assert market.reserved_multiple(own) == 0.9
    low, high = market.reserved_multiple_range(own)
    table_low, table_high = market.reserved_multiple_range(opt)
    assert (low - 0.9, high - 0.9) == pytest.approx(
        (table_low - market.reserved_multiple(opt), table_high - market.reserved_multiple(opt))
    )


def test_a_books_multiple_is_the_share_weighted_multiple_of_its_committed_contracts() -> None:
    book = [
        {"kind": "take_or_pay", "share": 0.6, "term_months": 60},
        {"kind": "reserved", "share": 0.2, "term_months": 12},
        {"kind": "on_demand", "share": 0.1},
    ]
    s = neoplan.load_scenario({"base": "b200_1024", "pricing": {"contracts": book}})
    five, one = _price("b200-sxm", "reserved_5y") / 5.30, _price("b200-sxm", "reserved_1y") / 5.30
    assert market.reserved_multiple(s) == pytest.approx((0.6 * five + 0.2 * one) / 0.8, rel=1e-12)
    low, high = market.reserved_multiple_range(s)
    rows = ROWS[("b200-sxm", "reserved_5y")], ROWS[("b200-sxm", "reserved_1y")]
    assert low == pytest.approx((0.6 * rows[0].low_usd_per_gpu_hour + 0.2 * rows[1].low_usd_per_gpu_hour) / 0.8 / 5.30)
    assert high == pytest.approx(
        (0.6 * rows[0].high_usd_per_gpu_hour + 0.2 * rows[1].high_usd_per_gpu_hour) / 0.8 / 5.30
    )
    spot_only = neoplan.load_scenario({"base": "b200_1024", "pricing": {"contracts": [{"kind": "spot", "share": 0.5}]}})
    assert market.reserved_multiple(spot_only) == 1.0 and market.reserved_multiple_range(spot_only) == (1.0, 1.0)


@pytest.mark.parametrize("preset", preset_names())
def test_each_presets_headline_and_contract_prices_come_from_the_contracts_table(preset: str) -> None:
    """One source of truth: a preset's headline price is its platform's on-demand row; each committed contract of its
    book pays the table's contract price of its term (no price pinned in the preset)."""
    s = neoplan.load_scenario(preset)
    row = pricebook.default_rentals(s.prices_as_of)[s.cluster.gpu_model]  # the market of the preset's own date
    assert s.pricing.usd_per_gpu_hour == row.usd_per_gpu_hour
    assert s.pricing.price_decline_per_year is None and s.pricing.contracts is not None
    committed = [c for c in s.pricing.contracts if c.kind in ("take_or_pay", "reserved")]
    assert committed and all(c.usd_per_gpu_hour is None for c in committed)
    r = neoplan.evaluate(s)
    go_live = math.ceil(r.ops.dates.go_live_month)
    contract = sum(
        c.share * market.contract_price(s.cluster.gpu_model, c.term_months, s.prices_as_of).usd_per_gpu_hour
        for c in committed
    )
    contract /= sum(c.share for c in committed)
    price_factor = r.operations.price_factor if r.operations is not None else 1.0
    assert r.ops.revenue.reserved_usd_per_gpu_hour[go_live] == pytest.approx(contract * price_factor, rel=1e-12)


# --- the price path --------------------------------------------------------------------------------------------------


def test_a_flat_path_is_the_compounded_decline() -> None:
    years = np.array([0.0, 0.5, 1.0, 2.5])
    np.testing.assert_allclose(PricePath.flat(0.13).index(years), 0.87**years, rtol=1e-12)
    column = PricePath.flat(np.array([[0.1], [0.2]]))
    np.testing.assert_allclose(column.index(np.array([1.0, 2.0])), [[0.9, 0.81], [0.8, 0.64]], rtol=1e-12)


def test_the_curve_applies_each_rows_decline_during_its_year_of_age() -> None:
    """Age rows 1, 2, 3: −10 %, −20 %, −30 % a year; the last row continues, the first applies before age 1."""
    path = PricePath(1.5, tuple(math.log(1 - r) for r in (0.1, 0.2, 0.3)))
    assert path.index(0.5) == pytest.approx(0.9**0.5, rel=1e-12)  # age 1.5 → 2.0 in row 1
    assert path.index(1.5) == pytest.approx(0.9**0.5 * 0.8, rel=1e-12)  # then all of row 2
    assert path.index(3.5) == pytest.approx(0.9**0.5 * 0.8 * 0.7 * 0.7, rel=1e-12)  # row 3, then row 3 again
    young = PricePath(-1.0, path.log_kept)
    assert young.index(1.0) == pytest.approx(0.9, rel=1e-12)  # before age 1: the first row


def test_the_scenario_age_comes_from_the_book_date_and_the_go_live_month() -> None:
    opt = neoplan.load_scenario("optimized")  # 2024-10 book, go-live ~4.4 months later: February 2025
    go_live = revenue.dates(opt.timeline).go_live_month
    assert market.go_live_age_years(opt, go_live) == pytest.approx(2024 + 9 / 12 + go_live / 12 - 2023, rel=1e-12)
    b200 = neoplan.load_scenario("b200_1024")  # 2026-11 book, Blackwell first year 2025
    assert market.go_live_age_years(b200, go_live) == pytest.approx(2026 + 10 / 12 + go_live / 12 - 2025, rel=1e-12)


def test_a_hopper_build_of_2024_expects_the_curve_of_2024_10() -> None:
    """H100 live in 2025-02 on the 2024-10 market (data/markets/2024-10/price_curves.csv): the rest of 2025 at the
    −25 % forecast then, −15 % a year after; the same build priced in 2026-11 expects the 2026 curve instead."""
    opt = neoplan.load_scenario("optimized")
    go_live = revenue.dates(opt.timeline).go_live_month
    age = market.go_live_age_years(opt, go_live)  # ≈ 2.11 years since 1 January 2023
    years = market.span_years(go_live, opt.timeline.horizon_months, opt.timeline.useful_life_months)
    log_kept = (3 - age) * math.log(0.75) + (age + years - 3) * math.log(0.85)
    average = market.scenario_average_decline(opt, go_live)
    assert average == pytest.approx(1 - math.exp(log_kept / years), rel=1e-12)
    assert 0.15 < average < 0.18  # about Latent Space's halving over a life (13 %) and 2024's 40 % (2024-10-11)
    today = neoplan.load_scenario({"base": "optimized", "prices_as_of": "2026-11"})
    assert market.go_live_age_years(today, go_live) > 4  # 2027 on: −15 % a year (data/price_curves.csv)
    assert market.scenario_average_decline(today, go_live) == pytest.approx(0.15, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(start=st.floats(-2, 12), average=st.floats(-0.5, 0.9), years=st.floats(0.5, 10))
def test_a_tilted_curve_has_the_asked_average_and_the_curves_shape(start: float, average: float, years: float) -> None:
    curve = PricePath(start, tuple(math.log(1 - r) for r in pricebook.price_curves()["b200-sxm"].declines()))
    own = market.average_decline(curve, years)
    tilted = curve.tilted(average, own)
    assert market.average_decline(tilted, years) == pytest.approx(average, abs=1e-9)
    t = np.linspace(0, years, 7)
    ratio = tilted.index(t) / curve.index(t)
    np.testing.assert_allclose(ratio, ((1 - average) / (1 - own)) ** t, rtol=1e-9)


@pytest.mark.parametrize("preset", ["optimized", "b200_1024", "gb200_nvl72_18rack"])
def test_the_stress_range_of_the_decline_is_the_curves_low_and_high_rows(preset: str) -> None:
    s = neoplan.load_scenario(preset)
    go_live = revenue.dates(s.timeline).go_live_month
    low, high = market.decline_spread(s, go_live)
    assert low < market.scenario_average_decline(s, go_live) < high
    flat = neoplan.load_scenario({"base": preset, "pricing": {"price_decline_per_year": 0.2}})
    f_low, f_high = market.decline_spread(flat, go_live)
    assert (0.2 - f_low, f_high - 0.2) == pytest.approx(
        (market.scenario_average_decline(s, go_live) - low, high - market.scenario_average_decline(s, go_live))
    )


def test_an_estimated_on_demand_row_carries_its_range_a_quoted_index_does_not() -> None:
    assert market.on_demand_range(neoplan.load_scenario("optimized")) is None  # $2.99 of 2024-10, quoted
    gb200 = neoplan.load_scenario("gb200_nvl72_18rack")
    assert market.on_demand_range(gb200) == pytest.approx((4.54, 10.50))  # Spheron to CoreWeave list


# --- the data files ---------------------------------------------------------------------------------------------------


def _copy_with(tmp: Path, name: str, old: str, new: str) -> Path:
    path = tmp / name
    text = (pricebook.DATA_DIR / name).read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_a_curve_period_must_name_the_years_its_age_compares(tmp_path: Path) -> None:
    path = _copy_with(
        tmp_path,
        "price_curves.csv",
        "hopper,h100-sxm;h200-sxm,2023,2,2024-2025",
        "hopper,h100-sxm;h200-sxm,2023,2,2023-2024",
    )
    with pytest.raises(DataError, match=r"price_curves.csv row 3, column 'period': must be 'forward' or '2024-2025'"):
        pricebook.read_price_curves(path)


def test_a_contract_outside_its_own_range_is_refused(tmp_path: Path) -> None:
    path = _copy_with(
        tmp_path, "rental_contracts.csv", "h100-sxm,on_demand,0,2.81,2.40,", "h100-sxm,on_demand,0,2.81,2.90,"
    )
    with pytest.raises(DataError, match=r"rental_contracts.csv row 2, column 'low_usd_per_gpu_hour'"):
        pricebook.read_rental_contracts(path)


def test_every_platform_has_a_curve_and_an_on_demand_price() -> None:
    platforms = set(pricebook.default_platforms())
    assert set(pricebook.price_curves()) == platforms == set(pricebook.default_rentals())
    for curve in {c.generation: c for c in pricebook.price_curves().values()}.values():
        assert len(curve.rows) >= 5 and all(r.first_year == curve.first_year for r in curve.rows)


def test_the_manuals_presets_page_states_each_presets_project_irr_as_the_model_gives_it() -> None:
    """The project IRR row of the presets page (docs: Reference → Presets, generated while the site builds) is the
    model's, preset by preset, in the column of that preset."""
    import sys

    from neoplan import metrics

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs"))
    import gen_pages

    lines = gen_pages.presets_page().splitlines()
    header = next(line for line in lines if line.startswith("|  | "))
    row = next(line for line in lines if line.startswith("| Project IRR |"))
    columns = [c.strip() for c in header.strip("|").split("|")][1:]
    shown = [c.strip() for c in row.strip("|").split("|")][1:]
    assert columns == [gen_pages.code(name) for name in preset_names()]
    for preset, text in zip(preset_names(), shown, strict=True):
        irr = neoplan.evaluate(neoplan.load_scenario(preset)).kpis["project_irr"]
        assert text == metrics.text("project_irr", irr), preset


def test_the_next_generations_launch_is_a_step_after_go_live_and_the_stress_band_spans_its_range() -> None:
    """Blackwell (first volume year 2025) meets Rubin in volume on 2027-04 (age 2.25): a go-live before it sees the
    rents fall 20 % at once on top of the curve's ageing (2027: 10 %/yr); one after it has the step in its go-live
    price already. The Stress test's band takes the step's low and high (5 %, 35 %) with the curve's."""
    steps = pricebook.price_curves()["gb200-nvl72"].step_declines()
    assert steps == ((pytest.approx(2.25), 0.20),)
    path = PricePath(2.0, tuple(math.log(1 - r) for r in (-0.19, 0.10, 0.15)), steps=((2.25, math.log(0.8)),))
    assert path.index(0.2) == pytest.approx(0.9**0.2, rel=1e-12)  # before the step: the 2027 row's ageing
    assert path.index(0.5) == pytest.approx(0.8 * 0.9**0.5, rel=1e-12)  # the step on 2027-04, then ageing
    after = PricePath(2.5, path.log_kept, steps=path.steps)
    assert after.index(0.4) == pytest.approx(0.9**0.4, rel=1e-12)  # live after the launch: no step
    s = neoplan.load_scenario("gb200_nvl72_18rack")
    go_live = revenue.dates(s.timeline).go_live_month
    assert market.go_live_age_years(s, go_live) < 2.25  # the preset goes live before Rubin
    low, high = market.decline_spread(s, go_live)
    years = market.span_years(go_live, s.timeline.horizon_months, float(s.timeline.useful_life_months))
    low_path, high_path = (market.curve_path(s, go_live, c) for c in ("low_decline_per_year", "high_decline_per_year"))
    assert low_path.steps[0][1] == pytest.approx(math.log(0.95)) and high_path.steps[0][1] == pytest.approx(
        math.log(0.65)
    )
    assert (low, high) == pytest.approx(
        (market.average_decline(low_path, years), market.average_decline(high_path, years)), rel=1e-12
    )
    assert low < market.scenario_average_decline(s, go_live) < high
