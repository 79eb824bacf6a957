"""The design stage (:mod:`neoplan.design.cluster`): one function from scenario to node, storage, fabric and site."""

from __future__ import annotations

import pytest

import neoplan
from neoplan.design import sizing as design_module
from neoplan.design.cluster import Design
from neoplan.design.node import compute_servers
from neoplan.design.sizing import design
from neoplan.model import economics

PRESETS = ("optimized", "reference", "b200_1024", "gb200_nvl72_18rack")


@pytest.mark.parametrize("preset", PRESETS)
def test_evaluate_is_the_economics_of_the_design(preset: str) -> None:
    scenario = neoplan.load_scenario(preset)
    plan = design(scenario)
    assert isinstance(plan, Design)
    direct, via = neoplan.evaluate(scenario).to_dict(), economics(plan).to_dict()
    assert direct.keys() == via.keys()
    for key in ("capex_usd", "npv_usd", "tco_usd_per_gpu_hour", "racks", "servers"):
        assert via[key] == pytest.approx(direct[key], rel=1e-12)


@pytest.mark.parametrize("share", [0.0, 0.03, 0.05, 0.07, 0.1])
def test_every_module_sees_the_server_count_the_design_made(share: float) -> None:
    scenario = neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 800, "hot_spare_share": share}})
    plan = design(scenario)
    servers, spares = compute_servers(100, share)
    assert (plan.servers, plan.spare_servers) == (servers, spares)
    assert (plan.facility.servers, plan.facility.spare_servers) == (servers, spares)
    assert plan.fabric.backend.endpoints == (servers + spares) * scenario.fabric.nics_per_node
    compute = [ln for ln in plan.capex_lines if ln.category == "compute"]
    assert {ln.quantity for ln in compute if ln.key == plan.node_lines[0].key} == {
        plan.node_lines[0].quantity * (servers + spares)
    }


def test_capex_lines_are_node_fabric_storage_and_site() -> None:
    plan = design(neoplan.load_scenario("b200_1024"))
    parts = len(plan.node_lines) + len(plan.fabric.lines) + len(plan.storage.lines) + len(plan.facility.lines)
    assert len(plan.capex_lines) == parts
    assert plan.capex_usd == pytest.approx(
        plan.installed_servers * sum(ln.total_usd for ln in plan.node_lines)
        + plan.fabric.capex_usd()
        + plan.storage.capex_usd
        + plan.facility.capex_usd,
        rel=1e-12,
    )
    assert plan.it_peak_kw == plan.facility.it_peak_kw > 0


def test_an_impossible_fabric_is_bad_input() -> None:
    bad = neoplan.load_scenario(
        {"base": "optimized", "fabric": {"topology": "tor"}, "facility": {"servers_per_rack": 16, "rack_power_kw": 200}}
    )
    with pytest.raises(neoplan.ScenarioError, match=r"fabric\.topology 'tor'"):
        design_module.design(bad)
