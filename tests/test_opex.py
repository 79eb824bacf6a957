"""Opex: reference values, invariants (AI Enterprise, PUE, warranty, scaling), monthly opex and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neoplan
from neoplan.design.costs import priced
from neoplan.design.facility import design_facility
from neoplan.design.node import node_lines
from neoplan.design.storage import design_storage
from neoplan.economics import revenue
from neoplan.economics.opex import (
    OPEX_CATEGORIES,
    OpexBasis,
    colo_usd_per_year,
    hardware_capex_usd,
    monthly_opex,
    opex_basis,
    opex_for_year,
    power_usd_per_year,
    software_usd_per_year,
    staff_usd_per_year,
)
from neoplan.inputs.loading import load_scenario
from neoplan.inputs.pricebook import default_platforms, default_price_book
from neoplan.inputs.scenario import Scenario
from neoplan.timebase import HOURS_PER_MONTH, HOURS_PER_YEAR

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
    years = [opex_for_year(sc, BOOK, basis, y) for y in range(1, 7)]
    assert [y["hardware_support"] for y in years[:3]] == [0.0, 0.0, 0.0]
    for y in years[3:]:
        assert y["hardware_support"] == pytest.approx(0.04 * basis.hardware_capex_usd)
    assert years[4] == years[3]  # the run rate after the warranty


def test_no_warranty_means_support_from_year_one() -> None:
    sc = scenario(node={"warranty_years": 0})
    assert opex_for_year(sc, BOOK, basis_for(sc), 1)["hardware_support"] > 0


def test_sga_follows_revenue() -> None:
    sc = scenario()
    basis = basis_for(sc)
    revenue = [10e6, 20e6]
    years = [opex_for_year(sc, BOOK, basis, y + 1, revenue_usd=r) for y, r in enumerate(revenue)]
    assert [y["sga"] for y in years] == pytest.approx([0.10 * r for r in revenue])  # CoreWeave 14 %, 7 % (estimate)


# --- software -----------------------------------------------------------------------------------


def test_ufm_subscription_only_when_subscribed_and_ufm() -> None:
    sc = scenario()
    basis = basis_for(sc)
    assert software_usd_per_year(sc, BOOK, basis)["ufm"] == 0.0
    subscribed = software_usd_per_year(sc, BOOK, basis, ufm_subscription=True)["ufm"]
    assert subscribed == pytest.approx(1024 * BOOK.price("ufm_enterprise_subscription_endpoint_year"))
    opensm = scenario(fabric={"subnet_manager": "opensm"})
    assert software_usd_per_year(opensm, BOOK, basis_for(opensm), ufm_subscription=True)["ufm"] == 0.0
    ethernet = scenario(fabric={"topology": "spectrum_x", "oversubscription": 1.0})  # RoCE: no subnet manager
    assert software_usd_per_year(ethernet, BOOK, basis_for(ethernet), ufm_subscription=True)["ufm"] == 0.0


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
    after_warranty = small.node.warranty_years + 1  # the run rate, hardware support in
    opex_small = opex_for_year(small, BOOK, basis_for(small), after_warranty)
    opex_large = opex_for_year(large, BOOK, basis_for(large), after_warranty)
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


# --- one home: monthly opex, power and colocation -----------------------------------------------


def test_facility_bills_are_the_opex_functions() -> None:
    sc = scenario(facility={"pue": 1.25})
    f = design_facility(sc, BOOK)
    usd_per_kwh = sc.facility.electricity_usd_per_kwh
    assert f.energy_usd_per_year == power_usd_per_year(f.it_avg_kw, 1.25, usd_per_kwh)
    assert f.energy_usd_per_year == pytest.approx(f.it_avg_kw * 1.25 * HOURS_PER_YEAR * usd_per_kwh, rel=1e-12)
    assert f.colo_usd_per_year == colo_usd_per_year(f.it_peak_kw, sc.facility.colo_usd_per_kw_month)
    assert power_usd_per_year(100.0, 1.3, 0.08, in_colo=True) == 0.0


def _monthly(sc: Scenario, util: float, **drivers: float) -> dict[str, np.ndarray]:
    d = revenue.delayed(revenue.dates(sc.timeline), np.zeros(1))  # one case, as the engine passes it
    years = np.ones(19)  # operating years 1 … 19
    table = {"staff": 1.2e6 * years, "hardware_support": np.arange(1.0, 20.0) * 1e5}
    table |= {"software": 2.4e5 * years, "insurance": 1.2e5 * years, "transit": 1.8e5 * years}
    one = {k: np.array([v]) for k, v in drivers.items()}
    return monthly_opex(
        sc,
        d,
        opex_usd_per_year=table,
        it_idle_kw=100.0,
        it_busy_kw=500.0,
        it_peak_kw=600.0,
        utilization_by_month=np.full((1, d.months), util),
        electricity_usd_per_kwh=one.get("usd_per_kwh", np.array([0.1])),
        pue=one.get("pue", np.array([1.2])),
        colo_usd_per_kw_month=np.array([150.0]),
        capex_multiple=one.get("capex_multiple", np.array([1.0])),
    )


def test_monthly_opex_in_a_full_month_of_service_is_a_twelfth_of_the_year() -> None:
    sc = scenario(opex={"escalation_per_year": 0.0})
    d = revenue.dates(sc.timeline)
    m = int(np.ceil(d.go_live_month)) + 1  # a whole month in service, in operating year 1
    out = _monthly(sc, 0.5)
    assert out["power"][0, m] == pytest.approx(power_usd_per_year(100.0 + 0.5 * 400.0, 1.2, 0.1) / 12)
    assert out["colocation"][0, m] == pytest.approx(colo_usd_per_year(600.0, 150.0) / 12)
    assert out["staff"][0, m] == pytest.approx(1.2e6 / 12)
    assert out["hardware_support"][0, m] == pytest.approx(1e5 / 12)  # operating year 1 = index 0
    assert out["hardware_support"][0, m + 12] == pytest.approx(2e5 / 12)
    assert out["transit"][0, 0] == 0.0 and out["power"][0, 0] == 0.0  # nothing runs before the site does
    assert all(v.shape == (1, d.months) for v in out.values())


def test_monthly_opex_burn_in_runs_at_full_load_and_capex_multiple_scales_linked_costs() -> None:
    sc = scenario(timeline={"site_install_weeks": 8})
    d = revenue.dates(sc.timeline)
    idle = _monthly(sc, 0.0)
    burn_in = int(np.ceil(d.install_start_month))  # a whole month installed before go-live
    assert burn_in + 1 < d.go_live_month
    assert idle["power"][0, burn_in] == pytest.approx(power_usd_per_year(500.0, 1.2, 0.1) / 12)
    double = _monthly(sc, 0.0, capex_multiple=2.0)
    for k in ("hardware_support", "insurance"):
        assert double[k] == pytest.approx(2 * idle[k])
    for k in ("power", "colocation", "staff", "software", "transit"):
        assert np.array_equal(double[k], idle[k])


def test_opensm_costs_engineering_time_instead_of_the_ufm_licence() -> None:
    """The article: OpenSM with a thin REST wrapper saves the UFM licence but costs engineering time."""
    sc = scenario(fabric={"subnet_manager": "opensm"}, opex={"opensm_engineering_fte": 0.25})
    software = software_usd_per_year(sc, BOOK, basis_for(sc))
    assert software["opensm_engineering"] == pytest.approx(0.25 * sc.opex.staff_loaded_cost_usd)
    ufm = scenario()
    assert software_usd_per_year(ufm, BOOK, basis_for(ufm))["opensm_engineering"] == 0.0
    ethernet = scenario(fabric={"topology": "spectrum_x", "subnet_manager": "opensm"})
    assert software_usd_per_year(ethernet, BOOK, basis_for(ethernet))["opensm_engineering"] == 0.0  # no IB


def test_monthly_opex_escalates_by_project_year() -> None:
    flat, rising = scenario(opex={"escalation_per_year": 0.0}), scenario(opex={"escalation_per_year": 0.04})
    a, b = _monthly(flat, 0.5), _monthly(rising, 0.5)
    for category in a:
        np.testing.assert_allclose(b[category][0, :12], a[category][0, :12])  # project year 1: today's prices
        np.testing.assert_allclose(b[category][0, 12:24], 1.04 * a[category][0, 12:24])
        np.testing.assert_allclose(b[category][0, 36:48], 1.04**3 * a[category][0, 36:48])


def test_power_in_the_go_live_month_is_pro_rated_once() -> None:
    """Defect 5: the go-live month's used GPU-hours already count only the part of the month after go-live; power
    multiplied them by that share again ($8.6–15.7 k missing per preset). Idle draw from install, full load in
    burn-in, used share after go-live: idle × installed share + (busy − idle) × (used share + burn-in share)."""
    r = neoplan.evaluate(scenario())
    d, b, f = r.ops.dates, r.basis, r.scenario.facility
    assert b is not None
    m = int(np.floor(d.go_live_month))
    used = r.ops.revenue.used_gpu_hours[m] / (r.scenario.cluster.gpus * HOURS_PER_MONTH)
    installed, live = float(d.install_share[m]), float(d.live_share[m])
    assert 0 < live < 1 and used > 0
    per_kw = f.pue * f.electricity_usd_per_kwh * HOURS_PER_YEAR / 12
    expected = (b.it_idle_kw * installed + (b.it_busy_kw - b.it_idle_kw) * (used + installed - live)) * per_kw
    assert r.ops.opex_by_category["power"][m] == pytest.approx(expected, rel=1e-12)
