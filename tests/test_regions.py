"""Regions (``data/regions.csv``): a site's power and colocation prices, PUE and tax rate by region and book date,
every row sourced; a scenario's own numbers win; the app's region choice sets them; a move to another book date or
platform moves the site with it."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from conftest import page_path, run_page

import neoplan
from neoplan.errors import DataError
from neoplan.inputs.pricebook import BOOK_DATES, assumed
from neoplan.inputs.profiles import vintage_changes, with_platform
from neoplan.inputs.regions import FIELDS, REGIONS_FILE, read_regions, region_values, regions

REGIONS = regions()


def test_the_regions_the_issue_names_are_in_the_table() -> None:
    for key in ("us-virginia", "us-texas", "nordics", "europe", "gulf", "asia-singapore"):
        assert key in REGIONS
    assert sum(key.startswith("us-") for key in REGIONS) >= 5


@pytest.mark.parametrize("region", sorted(REGIONS))
def test_every_region_row_is_sourced_dated_and_within_its_range(region: str) -> None:
    for as_of in BOOK_DATES:
        for density in ("standard", "high"):
            for field, v in region_values(region, as_of, density).items():
                assert len(v.source) >= 40 and v.basis in ("quoted", "estimate"), (region, field)
                assert v.date[:4] >= "2018" and v.date <= "2026-11", (region, field, v.date)
                assert (v.low is None or v.low <= v.value) and (v.high is None or v.value <= v.high), (region, field)
        site = region_values(region, as_of, "standard")
        assert 0.03 <= site["facility.electricity_usd_per_kwh"].value <= 0.30
        assert 80 <= site["facility.colo_usd_per_kw_month"].value <= 500
        assert 1.05 <= site["facility.pue"].value <= 1.8 and 0 <= site["financing.tax_rate"].value <= 0.35
        dense = region_values(region, as_of, "high")["facility.colo_usd_per_kw_month"].value
        assert dense > site["facility.colo_usd_per_kw_month"].value  # a hall for liquid-cooled racks costs more


def test_the_default_region_at_the_default_date_is_the_assumptions_site() -> None:
    """One source of truth: the Field defaults (data/assumptions.csv) are region us-average as of 2024-10."""
    site = region_values("us-average", "2024-10", "standard")
    for field in FIELDS:
        assert site[field].value == assumed(field), field
    s = neoplan.Scenario()
    assert (s.facility.region, s.facility.colo_usd_per_kw_month, s.financing.tax_rate) == ("us-average", 174.0, 0.25)


def test_a_region_fills_what_the_site_does_not_set_and_the_sites_own_numbers_win() -> None:
    s = neoplan.load_scenario({"base": "optimized", "facility": {"region": "nordics", "pue": 1.1}})
    nordic = region_values("nordics", "2024-10", "standard")
    assert s.facility.pue == 1.1  # the site's own
    assert s.facility.electricity_usd_per_kwh == nordic["facility.electricity_usd_per_kwh"].value
    assert s.facility.colo_usd_per_kw_month == nordic["facility.colo_usd_per_kw_month"].value
    assert s.financing.tax_rate == nordic["financing.tax_rate"].value
    with pytest.raises(neoplan.ScenarioError, match=r"facility\.region: must be one of us-average, .*got 'mars'"):
        neoplan.load_scenario({"base": "optimized", "facility": {"region": "mars"}})


def test_the_site_is_of_the_books_date_and_the_racks_density() -> None:
    h100 = neoplan.load_scenario({"base": "optimized", "prices_as_of": "2026-11"})
    assert (
        h100.facility.colo_usd_per_kw_month
        == region_values("us-average", "2026-11", "standard")["facility.colo_usd_per_kw_month"].value
    )  # CBRE H2 2025, not the H1 2024 rate of the 2024-10 book
    rack = neoplan.load_scenario("gb200_nvl72_18rack")  # 140 kW liquid-cooled racks
    assert (
        rack.facility.colo_usd_per_kw_month
        == region_values("us-average", "2026-11", "high")["facility.colo_usd_per_kw_month"].value
    )


def test_a_region_moves_the_results_the_way_its_numbers_say() -> None:
    base = neoplan.evaluate(neoplan.load_scenario("optimized"))
    europe = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "facility": {"region": "europe"}}))
    texas = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "facility": {"region": "us-texas"}}))
    assert europe.facility.energy_usd_per_year > 1.8 * base.facility.energy_usd_per_year  # $0.15 against $0.08
    assert europe.kpis["npv_usd"] < base.kpis["npv_usd"] < texas.kpis["npv_usd"]  # cheap power, no state tax


def test_moving_a_plan_to_another_date_moves_its_site_and_rent_but_not_the_users_numbers() -> None:
    plan = neoplan.load_scenario("optimized")
    moved = vintage_changes(plan, "2026-11")
    today = region_values("us-average", "2026-11", "standard")
    assert moved["facility.colo_usd_per_kw_month"] == today["facility.colo_usd_per_kw_month"].value
    assert moved["pricing.usd_per_gpu_hour"] == 2.81  # the 2026 market's H100 on demand, not 2024's $2.99
    own = neoplan.load_scenario({"base": "optimized", "facility": {"colo_usd_per_kw_month": 120.0}})
    assert "facility.colo_usd_per_kw_month" not in vintage_changes(own, "2026-11")
    b300 = with_platform(plan, "b300-sxm")  # 2026-11 book, 60 kW racks: the dense hall of 2026
    assert (
        b300.facility.colo_usd_per_kw_month
        == region_values("us-average", "2026-11", "high")["facility.colo_usd_per_kw_month"].value
    )


def test_a_region_without_a_field_at_a_date_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "regions.csv"
    shutil.copy(REGIONS_FILE, path)
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    kept = [r for r in rows if not (r[0] == "gulf" and r[3] == "facility.pue")]
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(kept)
    with pytest.raises(DataError, match=r"gulf has no facility\.pue row for 2024-10"):
        read_regions(path)


def test_choosing_a_region_in_the_app_sets_the_sites_numbers() -> None:
    at = run_page(page_path("storage_site"), **{"storage_site.tab": "Site & power"})
    assert not at.exception and not at.error
    at.selectbox(key="storage_site.region").set_value("nordics").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    from ui.state import SCENARIO

    s = at.session_state[SCENARIO]
    nordic = region_values("nordics", s.prices_as_of, "standard")
    assert s.facility.region == "nordics"
    assert (s.facility.pue, s.facility.electricity_usd_per_kwh, s.financing.tax_rate) == (
        nordic["facility.pue"].value,
        nordic["facility.electricity_usd_per_kwh"].value,
        nordic["financing.tax_rate"].value,
    )
