"""Every preset is of one date and inside the sourced ranges of its platform: its hardware book, rental market, price
curve and site all as of its ``prices_as_of`` (no preset opens with a vintage warning), its capex per GPU within
``data/capex_per_gpu.csv``, its rents within the range their sources span, its IT power per GPU within
``data/it_power_per_gpu.csv``, its storage by the platform's rule."""

from __future__ import annotations

import csv
import math

import pytest

import neoplan
from neoplan.economics import market
from neoplan.inputs.benchmarks import capex_bands
from neoplan.inputs.platforms import platform_defaults
from neoplan.inputs.presets import preset_names
from neoplan.inputs.pricebook import DATA_DIR, months_apart, price_curves, rental_contracts, rental_market
from neoplan.inputs.regions import region_values, site_density

PRESETS = preset_names()
RESULTS = {name: neoplan.evaluate(neoplan.load_scenario(name)) for name in PRESETS}
with (DATA_DIR / "it_power_per_gpu.csv").open(encoding="utf-8") as fh:
    IT_POWER = {row["platform"]: row for row in csv.DictReader(fh)}


def test_the_current_platforms_have_presets_of_their_own() -> None:
    wanted = {"gb300_nvl72_18rack": "gb300-nvl72", "b300_1024": "b300-sxm", "h200_1024_2026": "h200-sxm"}
    for name, platform in wanted.items():
        s = RESULTS[name].scenario
        assert (s.cluster.gpu_model, s.prices_as_of) == (platform, "2026-11"), name
    assert RESULTS["h200_1024"].scenario.prices_as_of == "2024-10"  # the same platform bought in 2024


@pytest.mark.parametrize("name", PRESETS)
def test_no_preset_warns_of_its_vintage(name: str) -> None:
    assert not [w for w in RESULTS[name].warnings if w.startswith("prices_as_of")]


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_is_of_one_date(name: str) -> None:
    """Book, market (every rental row and curve row it reads), site: all of the preset's own date."""
    s = RESULTS[name].scenario
    as_of, key = s.prices_as_of, s.cluster.gpu_model
    assert rental_market(key, as_of) == as_of
    rows = [row for (platform, _), row in rental_contracts(as_of).items() if platform == key]
    assert len(rows) >= 4 and all(months_apart(row.date, as_of) <= 14 for row in rows), [r.date for r in rows]
    curve = price_curves(as_of)[key]  # past years' rows are history; none may be dated after the book (hindsight)
    assert all(row.date[:7] <= as_of for row in curve.rows), [r.date for r in curve.rows]
    site = region_values(s.facility.region, as_of, site_density(s.model_dump(mode="json")))
    assert s.facility.electricity_usd_per_kwh == site["facility.electricity_usd_per_kwh"].value
    assert s.facility.colo_usd_per_kw_month == site["facility.colo_usd_per_kw_month"].value
    assert s.facility.pue == site["facility.pue"].value and s.financing.tax_rate == site["financing.tax_rate"].value


@pytest.mark.parametrize("name", PRESETS)
def test_every_presets_capex_per_gpu_is_within_its_sourced_range(name: str) -> None:
    r = RESULTS[name]
    band = capex_bands()[(r.scenario.cluster.gpu_model, r.scenario.prices_as_of)]
    per_gpu = r.capex_total_usd / r.gpus
    assert band.low_usd_per_gpu <= per_gpu <= band.high_usd_per_gpu, (name, round(per_gpu))


@pytest.mark.parametrize("name", PRESETS)
def test_every_presets_rents_are_within_the_range_their_sources_span(name: str) -> None:
    """The headline within its market's on-demand range; each committed contract's first price within the contract
    range of its term (the range interpolated like the price)."""
    r = RESULTS[name]
    s = r.scenario
    key, as_of = s.cluster.gpu_model, s.prices_as_of
    on_demand = market.on_demand_price(key, as_of)
    assert on_demand.low_usd_per_gpu_hour <= s.pricing.usd_per_gpu_hour <= on_demand.high_usd_per_gpu_hour
    committed = [c for c in r.contract_book() if c["kind"] in ("take_or_pay", "reserved")]
    assert committed, name
    for c in committed:
        contract = market.contract_price(key, c["term_months"], as_of)
        price = c["usd_per_gpu_hour"]
        assert contract.low_usd_per_gpu_hour <= price <= contract.high_usd_per_gpu_hour, (name, c["term_months"], price)


@pytest.mark.parametrize("name", PRESETS)
def test_every_presets_it_power_per_gpu_is_within_the_published_range(name: str) -> None:
    r = RESULTS[name]
    row = IT_POWER[r.scenario.cluster.gpu_model]
    kw_per_gpu = r.facility.it_peak_kw / r.gpus
    low, high = float(row["it_kw_per_gpu_low"]), float(row["it_kw_per_gpu_high"])
    assert low * 0.9 <= kw_per_gpu <= high * 1.1, (name, kw_per_gpu)  # ±10 % of the public rules of thumb


@pytest.mark.parametrize("name", ["gb300_nvl72_18rack", "b300_1024", "h200_1024_2026", "gb200_nvl72_18rack"])
def test_the_current_presets_store_by_their_platforms_rule(name: str) -> None:
    s = RESULTS[name].scenario
    rule = platform_defaults(s.cluster.gpu_model)["storage.usable_pb"]
    assert math.isclose(s.storage.usable_pb, rule.for_gpus(s.cluster.gpus), abs_tol=0.05), name
    assert rule.source.startswith("SemiAnalysis") and "Bernstein" in rule.source


def test_the_readme_presets_table_is_the_models() -> None:
    """The README's presets block is what ``python -m neoplan.analysis.presets_table`` makes from the model now."""
    from neoplan.analysis.presets_table import END, START, presets_markdown

    text = (DATA_DIR.parent / "README.md").read_text(encoding="utf-8")
    block = text[text.index(START) : text.index(END) + len(END)]
    assert block == presets_markdown(), (
        "README is stale: run python -m neoplan.analysis.presets_table --write README.md"
    )


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_meets_its_covenant_in_its_own_base_case(name: str) -> None:
    """Issue 37: no lender signs a loan that breaches in the base case; sized on the preset's own contracts, every
    preset's minimum DSCR is at or above its covenant and its cash waterfall counts no breach and no payment default."""
    r = RESULTS[name]
    fin, k = r.scenario.financing, r.to_dict()
    assert k["min_dscr"] >= fin.covenant_dscr, (name, k["min_dscr"])
    assert k["covenant_breaches"] == 0 and k["payment_default_months"] == 0, name
    assert 0 < k["debt_usd"] <= fin.max_debt_share * r.capex_total_usd * (1 + 1e-9), name
