"""Facility: racks and rack power, management, installation, power, colocation and energy."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neoplan.design.costs import total_usd
from neoplan.design.facility import (
    BUSY_POWER_SHARE,
    HOURS_PER_YEAR,
    IDLE_POWER_SHARE,
    colo_usd_per_year,
    design_facility,
    energy_kwh_per_year,
    node_average_kw,
    rack_power_warning,
)
from neoplan.design.node import node_price_usd
from neoplan.design.storage import design_storage
from neoplan.inputs.hardware import Facility
from neoplan.inputs.loading import load_scenario
from neoplan.inputs.pricebook import default_platforms, default_price_book
from neoplan.inputs.scenario import Scenario

BOOK = default_price_book()
H100 = default_platforms()["h100-sxm"]


def scenario(**sections: object) -> Scenario:
    return load_scenario({"base": "optimized", **sections})


def designed(sc: Scenario | None = None, **kwargs: object):
    sc = sc or scenario()
    storage = design_storage(sc, BOOK)
    args: dict[str, object] = {
        "network_power_kw": 60.0,
        "network_racks": 6,
        "storage_power_kw": storage.power_kw,
        "storage_racks": storage.racks,
        "storage_servers": storage.servers,
        **kwargs,
    }
    return design_facility(sc, BOOK, **args)  # type: ignore[arg-type]


# --- racks --------------------------------------------------------------------------------------


def test_four_hgx_fit_a_41_kw_rack_five_do_not() -> None:
    assert H100.node_max_power_kw == 10.2
    assert rack_power_warning(4, 10.2, 41.0) is None
    warning = rack_power_warning(5, 10.2, 41.0)
    assert warning is not None
    assert "facility.servers_per_rack" in warning and "at most 4" in warning
    four = designed(scenario(facility={"servers_per_rack": 4}))
    five = designed(scenario(facility={"servers_per_rack": 5}))
    assert four.rack_fits and four.warnings == ()
    assert not five.rack_fits and five.warnings == (warning,)
    assert four.compute_rack_kw == pytest.approx(40.8)
    # enforced: the fifth server does not go in, so five asked per rack build the same racks as four
    assert five.servers_per_rack == 4 and five.compute_racks == four.compute_racks == 32
    assert five.compute_rack_kw == pytest.approx(40.8) and five.compute_rack_kw <= five.rack_power_kw


def test_rack_counts_for_1024_h100() -> None:
    design = designed()
    assert design.compute_racks == 128 // 4
    assert design.storage_racks == 1
    assert design.management_racks == 1
    assert design.racks == 32 + 6 + 1 + 1
    assert design.pdus == 2 * design.racks


def test_hot_spares_take_rack_space_and_power() -> None:
    design = designed(scenario(cluster={"hot_spare_share": 0.05}))
    assert design.spare_servers == math.ceil(128 * 0.05)
    assert design.compute_racks == math.ceil((128 + 7) / 4)
    assert design.compute_peak_kw == pytest.approx(135 * 10.2)


def test_management_has_three_nodes_two_with_connectx() -> None:
    design = designed()
    lines = {line.key: line for line in design.lines}
    assert lines["mgmt_node_cpu"].quantity == 3
    assert lines["nic_backend_400g"].quantity == 2
    assert lines["firewall_pair"].quantity == 1
    assert {line.category for line in design.lines} <= {"management", "other"}
    assert design.capex_usd == pytest.approx(total_usd(list(design.lines)))


def test_installation_and_burn_in_by_hand() -> None:
    sc = scenario()
    design = designed(sc, storage_servers=8)  # the facility's arithmetic, whatever the storage sizing gives
    lines = {line.key: line for line in design.lines}
    assert lines["install_server"].quantity == 128 + 8 + 3  # compute, storage, management
    assert lines["install_rack"].quantity == design.racks
    assert lines["cluster_burn_in_server_week"].quantity == pytest.approx(128 * sc.timeline.integration_burn_in_weeks)
    assert lines["site_burn_in_server_day"].quantity == pytest.approx(128 * sc.timeline.onsite_burn_in_days)


@pytest.mark.parametrize("preset", ["reference", "optimized"])
def test_management_racks_and_install_are_a_small_share(preset: str) -> None:
    sc = load_scenario(preset)
    design = designed(sc)
    per_server = design.capex_per_server_usd()
    node = node_price_usd(sc.node, sc.fabric, H100, BOOK)
    assert 1000 < per_server < 5000  # "small share of capex": a few $k per server at most
    assert per_server / node < 0.02


def test_ports_added_to_the_networks() -> None:
    design = designed()
    assert design.frontend_ports == 3 * 2 + 2 * 2  # management nodes and firewalls
    assert design.backend_ports == 2  # the UFM nodes
    assert design.oob_ports == 3 + 2 + design.pdus


# --- power --------------------------------------------------------------------------------------


def test_average_node_power_by_utilization() -> None:
    assert node_average_kw(10.2, 0.0) == pytest.approx(10.2 * IDLE_POWER_SHARE)
    assert node_average_kw(10.2, 1.0) == pytest.approx(10.2 * BUSY_POWER_SHARE)
    design = designed(utilization=0.5)
    assert design.compute_avg_kw == pytest.approx(128 * node_average_kw(10.2, 0.5))
    assert design.compute_peak_kw == pytest.approx(128 * 10.2)


def test_it_load_mw_and_kw_per_rack() -> None:
    design = designed(storage_power_kw=8 * 1.6)  # 8 storage servers of 1.6 kW
    mgmt_kw = design.management_kw
    assert design.it_peak_kw == pytest.approx(128 * 10.2 + 60 + 8 * 1.6 + mgmt_kw)
    assert design.it_peak_mw == pytest.approx(design.it_peak_kw / 1000)
    assert design.facility_peak_kw == pytest.approx(design.it_peak_kw * 1.3)
    assert design.kw_per_rack == pytest.approx(design.it_peak_kw / design.racks)
    # network, storage and management add well under the ~10% of server power quoted in BRIEF.md §3
    assert design.it_peak_kw / design.compute_peak_kw < 1.12


def test_colocation_is_on_peak_it_kw() -> None:
    design = designed()
    assert design.colo_usd_per_year == pytest.approx(design.it_peak_kw * 174 * 12)  # us-average as of 2024-10
    assert colo_usd_per_year(1000, 184) == pytest.approx(2_208_000)


def test_pue_one_makes_facility_energy_equal_it_energy() -> None:
    design = designed(scenario(facility={"pue": 1.0}))
    assert design.facility_energy_kwh_per_year == pytest.approx(design.it_energy_kwh_per_year)
    assert design.energy_usd_per_year == pytest.approx(design.it_energy_kwh_per_year * 0.08)
    at_1_3 = designed(scenario(facility={"pue": 1.3}))
    assert at_1_3.facility_energy_kwh_per_year == pytest.approx(1.3 * at_1_3.it_energy_kwh_per_year)


def test_energy_by_hand() -> None:
    assert energy_kwh_per_year(1000, 1.3) == pytest.approx(1000 * 1.3 * HOURS_PER_YEAR)
    design = designed()
    assert design.energy_usd_per_year == pytest.approx(design.it_avg_kw * 1.3 * 8766 * 0.08)  # 365.25 d × 24 h
    assert energy_kwh_per_year(1.0) / 12 == 730.5  # a month of energy has the hours of a month of GPU-hours


def test_electricity_in_colo_costs_nothing_extra() -> None:
    design = designed(scenario(facility={"electricity_in_colo": True}))
    assert design.energy_usd_per_year == 0.0
    assert design.facility_energy_kwh_per_year > 0


# --- bad inputs ---------------------------------------------------------------------------------


def test_pue_below_one_is_rejected_naming_the_field() -> None:
    with pytest.raises(ValueError, match="pue"):
        Facility(pue=0.9)
    sc = scenario()
    bad = sc.model_copy(update={"facility": sc.facility.model_copy(update={"pue": 0.5})})  # skips validation
    with pytest.raises(ValueError, match=r"facility\.pue must be ≥ 1"):
        design_facility(bad, BOOK)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"utilization": 1.5}, "utilization"),
        ({"network_power_kw": -1.0}, "network_power_kw"),
        ({"network_racks": -1}, "network_racks"),
        ({"storage_power_kw": float("nan")}, "storage_power_kw"),
        ({"management_nodes": 2}, "management_nodes"),
        ({"busy_power_share": 0.1}, "busy_power_share"),
    ],
)
def test_bad_arguments_name_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        design_facility(scenario(), BOOK, **kwargs)  # type: ignore[arg-type]


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    servers=st.integers(1, 2048),
    per_rack=st.integers(1, 8),
    pue=st.floats(1.0, 2.5),
    utilization=st.floats(0, 1),
    network_kw=st.floats(0, 2000),
    spare=st.floats(0, 0.2),
)
def test_power_invariants(
    servers: int, per_rack: int, pue: float, utilization: float, network_kw: float, spare: float
) -> None:
    sc = scenario(
        cluster={"gpus": servers * 8, "hot_spare_share": spare},
        facility={"pue": pue, "servers_per_rack": per_rack},
    )
    design = design_facility(sc, BOOK, utilization=utilization, network_power_kw=network_kw, network_racks=2)
    assert design.it_avg_kw <= design.it_peak_kw + 1e-9
    assert design.facility_energy_kwh_per_year == pytest.approx(pue * design.it_energy_kwh_per_year)
    assert design.compute_racks * min(per_rack, 4) >= servers + design.spare_servers  # 4 × 10.2 kW fit 41 kW
    assert design.servers_per_rack == min(per_rack, 4)
    assert design.compute_rack_kw <= design.rack_power_kw + 1e-9
    assert design.rack_fits == (design.warnings == ())
    assert design.pdus == 2 * design.racks
    assert design.capex_usd == pytest.approx(total_usd(list(design.lines)))
    assert all(math.isfinite(x) and x >= 0 for x in (design.colo_usd_per_year, design.energy_usd_per_year))


@settings(max_examples=40, deadline=None)
@given(u1=st.floats(0, 1), u2=st.floats(0, 1))
def test_energy_rises_with_utilization_colo_does_not(u1: float, u2: float) -> None:
    low, high = sorted((u1, u2))
    d_low, d_high = designed(utilization=low), designed(utilization=high)
    assert d_high.energy_usd_per_year >= d_low.energy_usd_per_year - 1e-6
    assert d_high.colo_usd_per_year == pytest.approx(d_low.colo_usd_per_year)


# --- cooling: the air limit and a colocation-supplied liquid plant (issue 25) ----------------------------------------


def test_air_cooled_racks_above_the_air_limit_warn() -> None:
    import neoplan

    dense = neoplan.evaluate(
        neoplan.load_scenario({"base": "b200_1024", "facility": {"rack_power_kw": 60, "servers_per_rack": 4}})
    )
    assert any("air-cooled compute racks of 57.2 kW exceed the 41 kW" in w for w in dense.warnings)
    shipped = neoplan.evaluate(neoplan.load_scenario("b200_1024"))  # two B200 a rack: 28.6 kW
    assert shipped.facility.compute_rack_kw == pytest.approx(28.6) and not any(
        "air-cooled" in w for w in shipped.warnings
    )
    assert not any("air-cooled" in w for w in designed().warnings)  # the article's 4 × 10.2 kW H100 rack
    liquid = neoplan.evaluate(neoplan.load_scenario("gb200_nvl72_18rack"))  # 132 kW, but liquid cooled
    assert not any("air-cooled" in w for w in liquid.warnings)


def test_a_colocation_supplied_liquid_plant_replaces_the_cdu_capex_by_a_premium() -> None:
    import neoplan

    own = neoplan.evaluate(neoplan.load_scenario("gb200_nvl72_18rack"))
    colo = neoplan.evaluate(
        neoplan.load_scenario({"base": "gb200_nvl72_18rack", "facility": {"cooling_plant": "colocation"}})
    )
    keys = {line.key for line in own.capex_lines}
    assert {"cdu_per_kw", "liquid_loop_per_rack"} <= keys
    assert not {"cdu_per_kw", "liquid_loop_per_rack"} & {line.key for line in colo.capex_lines}  # paid once
    assert colo.facility.cooling_kw == 0.0 < own.facility.cooling_kw  # the colo's pumps, not IT load
    premium = 0.15 * colo.facility.compute_peak_kw
    assert colo.facility.colo_premium_kw == pytest.approx(premium)
    assert colo.facility.colo_usd_per_year == pytest.approx(
        colo_usd_per_year(colo.facility.it_peak_kw + premium, colo.scenario.facility.colo_usd_per_kw_month)
    )
    air = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "facility": {"cooling_plant": "colocation"}}))
    assert air.facility.colo_premium_kw == 0.0  # an air-cooled platform pays no liquid premium
