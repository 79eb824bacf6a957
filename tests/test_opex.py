"""Yearly opex: reference values, invariants (AI Enterprise, PUE, warranty, scaling) and properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neoplan.costs import priced
from neoplan.facility import design_facility
from neoplan.node import node_lines
from neoplan.opex import (
    OPEX_CATEGORIES,
    OpexBasis,
    hardware_capex_usd,
    opex_basis,
    opex_for_year,
    opex_schedule,
    software_usd_per_year,
    staff_usd_per_year,
    steady_state_opex,
)
from neoplan.pricebook import default_platforms, default_price_book
from neoplan.scenario import Scenario, load_scenario
from neoplan.storage import design_storage

BOOK = default_price_book()
H100 = default_platforms()["h100-sxm"]
BACKEND_PER_SERVER_USD = 37_000.0  # stand-in for the fabric's share until fabric.py lands


def scenario(base: str = "optimized", **sections: object) -> Scenario:
    return load_scenario({"base": base, **sections})


def basis_for(sc: Scenario) -> OpexBasis:
    """Size storage and facility for ``sc``; node + a per-server back end stand in for the rest of capex."""
    storage = design_storage(sc, BOOK)
    servers = sc.cluster.servers
    facility = design_facility(
        sc,
        BOOK,
        network_power_kw=0.45 * servers,
        network_racks=math.ceil(servers / 20),
        storage_power_kw=storage.power_kw,
        storage_racks=storage.racks,
        storage_servers=storage.servers,
    )
    node = node_lines(sc.node, sc.fabric, H100, BOOK)
    lines = [priced(BOOK, ln.key, ln.quantity * servers, "compute", ln.item) for ln in node]
    lines += list(storage.lines) + list(facility.lines)
    capex = sum(ln.total_usd for ln in lines) + BACKEND_PER_SERVER_USD * servers
    hardware = hardware_capex_usd(lines, BOOK) + BACKEND_PER_SERVER_USD * servers
    return opex_basis(sc, facility=facility, storage=storage, capex_usd=capex, hardware_capex_usd=hardware)


# --- reference values ---------------------------------------------------------------------------


def test_dropping_ai_enterprise_saves_8_x_4500_per_server_year() -> None:
    with_aie = scenario(opex={"ai_enterprise": True})
    without = scenario(opex={"ai_enterprise": False})
    saving = opex_for_year(with_aie, BOOK, basis_for(with_aie), 1)["total"]
    saving -= opex_for_year(without, BOOK, basis_for(without), 1)["total"]
    assert BOOK.price("nvidia_ai_enterprise_gpu_year") == 4500
    assert saving == pytest.approx(128 * 8 * 4500)


def test_ai_enterprise_covers_hot_spares_too() -> None:
    sc = scenario(opex={"ai_enterprise": True}, cluster={"hot_spare_share": 0.05})
    software = software_usd_per_year(sc, BOOK, basis_for(sc))
    assert software["ai_enterprise"] == pytest.approx((128 + 7) * 8 * 4500)


def test_staff_by_hand() -> None:
    assert staff_usd_per_year(1024, 4.0, 220_000) == pytest.approx(1.024 * 4 * 220_000)
    sc = scenario()
    assert opex_for_year(sc, BOOK, basis_for(sc), 1)["staff"] == pytest.approx(901_120)


def test_power_colo_insurance_transit_come_through() -> None:
    sc = scenario()
    basis = basis_for(sc)
    year = opex_for_year(sc, BOOK, basis, 1)
    assert year["power"] == basis.energy_usd_per_year
    assert year["colocation"] == basis.colo_usd_per_year
    assert year["insurance"] == pytest.approx(0.005 * basis.capex_usd)
    assert year["transit"] == pytest.approx(15_000 * 12)
    assert year["sga"] == 0.0
    assert year["total"] == pytest.approx(sum(year[c] for c in OPEX_CATEGORIES))


def test_pue_one_power_cost_is_it_energy_times_price() -> None:
    sc = scenario(facility={"pue": 1.0})
    storage = design_storage(sc, BOOK)
    facility = design_facility(sc, BOOK, storage_power_kw=storage.power_kw, storage_racks=storage.racks)
    basis = opex_basis(sc, facility=facility, storage=storage, capex_usd=1e7, hardware_capex_usd=1e7)
    power = opex_for_year(sc, BOOK, basis, 1)["power"]
    assert power == pytest.approx(facility.it_energy_kwh_per_year * sc.facility.electricity_usd_per_kwh)


# --- warranty and schedule ----------------------------------------------------------------------


def test_hardware_support_starts_after_the_warranty() -> None:
    sc = scenario(node={"warranty_years": 3})
    basis = basis_for(sc)
    years = opex_schedule(sc, BOOK, basis, 6)
    assert [y["hardware_support"] for y in years[:3]] == [0.0, 0.0, 0.0]
    for y in years[3:]:
        assert y["hardware_support"] == pytest.approx(0.04 * basis.hardware_capex_usd)
    assert steady_state_opex(sc, BOOK, basis) == years[3]


def test_no_warranty_means_support_from_year_one() -> None:
    sc = scenario(node={"warranty_years": 0})
    assert opex_for_year(sc, BOOK, basis_for(sc), 1)["hardware_support"] > 0


def test_sga_follows_revenue() -> None:
    sc = scenario()
    basis = basis_for(sc)
    revenue = [10e6, 20e6]
    years = opex_schedule(sc, BOOK, basis, 2, revenue_usd_by_year=revenue)
    assert [y["sga"] for y in years] == pytest.approx([0.05 * r for r in revenue])
    with pytest.raises(ValueError, match="revenue_usd_by_year"):
        opex_schedule(sc, BOOK, basis, 3, revenue_usd_by_year=revenue)


# --- software -----------------------------------------------------------------------------------


def test_ufm_subscription_only_when_subscribed_and_ufm() -> None:
    sc = scenario()
    basis = basis_for(sc)
    assert software_usd_per_year(sc, BOOK, basis)["ufm"] == 0.0
    subscribed = software_usd_per_year(sc, BOOK, basis, ufm_subscription=True)["ufm"]
    assert subscribed == pytest.approx(1024 * BOOK.price("ufm_enterprise_subscription_endpoint_year"))
    opensm = scenario(fabric={"subnet_manager": "opensm"})
    assert software_usd_per_year(opensm, BOOK, basis_for(opensm), ufm_subscription=True)["ufm"] == 0.0


def test_yearly_storage_licence_is_software_opex() -> None:
    sc = scenario(storage={"licence_term": "yearly"})
    basis = basis_for(sc)
    assert basis.storage_licence_usd_per_year == pytest.approx(2000 * BOOK.price("storage_licence_tb_year"))
    assert opex_for_year(sc, BOOK, basis, 1)["software"] == pytest.approx(basis.storage_licence_usd_per_year)


def test_hardware_capex_leaves_out_licences_and_services() -> None:
    sc = scenario()
    storage = design_storage(sc, BOOK)
    facility = design_facility(sc, BOOK, storage_power_kw=storage.power_kw, storage_racks=storage.racks)
    lines = list(storage.lines) + list(facility.lines)
    left_out = [ln for ln in lines if BOOK.row(ln.key).category in ("software", "services")]
    assert {ln.key for ln in left_out} >= {"storage_licence_perpetual_tb", "install_server", "site_burn_in_server_day"}
    assert hardware_capex_usd(lines, BOOK) == pytest.approx(
        sum(ln.total_usd for ln in lines) - sum(ln.total_usd for ln in left_out)
    )


# --- scaling ------------------------------------------------------------------------------------


def test_opex_scales_with_gpu_count() -> None:
    small, large = scenario(cluster={"gpus": 1024}), scenario(cluster={"gpus": 2048})
    opex_small = steady_state_opex(small, BOOK, basis_for(small))
    opex_large = steady_state_opex(large, BOOK, basis_for(large))
    assert opex_large["staff"] == pytest.approx(2 * opex_small["staff"])
    for category in ("power", "colocation", "hardware_support", "insurance"):
        assert 1.9 * opex_small[category] < opex_large[category] <= 2.0 * opex_small[category] + 1e-6
    assert opex_large["transit"] == opex_small["transit"]  # a fixed site cost
    assert 1.9 * opex_small["total"] < opex_large["total"] < 2.0 * opex_small["total"]


# --- bad inputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("year", "revenue", "field"),
    [(0, 0.0, "year"), (1, -1.0, "revenue_usd"), (1, float("inf"), "revenue_usd")],
)
def test_bad_year_or_revenue_names_the_field(year: int, revenue: float, field: str) -> None:
    sc = scenario()
    with pytest.raises(ValueError, match=field):
        opex_for_year(sc, BOOK, basis_for(sc), year, revenue_usd=revenue)


def test_bad_capex_names_the_field() -> None:
    sc = scenario()
    storage = design_storage(sc, BOOK)
    facility = design_facility(sc, BOOK)
    with pytest.raises(ValueError, match="hardware_capex_usd"):
        opex_basis(sc, facility=facility, storage=storage, capex_usd=1.0, hardware_capex_usd=2.0)
    with pytest.raises(ValueError, match="capex_usd"):
        opex_basis(sc, facility=facility, storage=storage, capex_usd=-1.0, hardware_capex_usd=0.0)


def test_negative_staff_input_is_rejected_by_the_scenario() -> None:
    with pytest.raises(ValueError, match="staff_fte_per_1000_gpus"):
        scenario(opex={"staff_fte_per_1000_gpus": -1})


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    servers=st.integers(1, 512),
    base=st.sampled_from(["reference", "optimized"]),
    year=st.integers(1, 10),
    revenue=st.floats(0, 1e9),
    ai_enterprise=st.booleans(),
    licence_term=st.sampled_from(["perpetual", "yearly"]),
)
def test_opex_is_finite_non_negative_and_sums(
    servers: int, base: str, year: int, revenue: float, ai_enterprise: bool, licence_term: str
) -> None:
    sc = scenario(
        base,
        cluster={"gpus": servers * 8},
        opex={"ai_enterprise": ai_enterprise},
        storage={"licence_term": licence_term},
    )
    out = opex_for_year(sc, BOOK, basis_for(sc), year, revenue_usd=revenue, ufm_subscription=True)
    assert set(out) == {*OPEX_CATEGORIES, "total"}
    assert all(math.isfinite(v) and v >= 0 for v in out.values())
    assert out["total"] == pytest.approx(sum(out[c] for c in OPEX_CATEGORIES))
