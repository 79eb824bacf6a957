"""Plan from power (:mod:`neoplan.design.sizing`): the largest design that fits ``facility.it_power_mw``."""

from __future__ import annotations

import csv
import itertools
import math

import pytest
from conftest import ROOT

import neoplan
from neoplan.design.cluster import design_at_count
from neoplan.design.sizing import design, with_gpus
from neoplan.errors import ScenarioError

H100 = {"base": "optimized"}
GB200 = {"base": "gb200_nvl72_18rack"}
B200 = {"base": "b200_1024"}
IT_POWER = {r["platform"]: r for r in csv.DictReader((ROOT / "data" / "it_power_per_gpu.csv").open(encoding="utf-8"))}


def power_plan(base: dict, mw: float, **sections: dict) -> neoplan.Scenario:
    data = {**base, **sections}
    data["cluster"] = {**data.get("cluster", {}), "size_by": "power"}
    data["facility"] = {**data.get("facility", {}), "it_power_mw": mw}
    return neoplan.load_scenario(data)


@pytest.mark.parametrize(
    ("base", "gpus", "compute_racks", "racks"), [(H100, 7288, 228, 270), (GB200, 5040, 70, 118)], ids=["h100", "gb200"]
)
def test_ten_mw_of_h100_and_of_gb200_nvl72(base: dict, gpus: int, compute_racks: int, racks: int) -> None:
    result = neoplan.evaluate(power_plan(base, 10))
    d = result.to_dict()
    assert (d["gpus"], result.facility.compute_racks, d["racks"]) == (gpus, compute_racks, racks)
    assert d["envelope_fill_share"] >= 0.90
    assert d["it_power_peak_kw"] <= 10_000.0 + 1e-6
    assert d["it_power_left_kw"] == pytest.approx(10_000.0 - d["it_power_peak_kw"], rel=1e-12)
    leftover = [w for w in d["warnings"] if w.startswith("Sized by power")]
    assert len(leftover) == 1 and "kW unused" in leftover[0] and "one more" in leftover[0]
    assert d["envelope"]["next_step_reason"] in leftover[0]


@pytest.mark.parametrize("base", [H100, GB200, B200], ids=["h100", "gb200", "b200"])
def test_the_design_is_the_largest_that_fits(base: dict) -> None:
    """The chosen count fits and one more node, designed for real, does not."""
    scenario = power_plan(base, 10)
    plan = design(scenario)
    unit = scenario.cluster.gpus_per_node
    bigger = design_at_count(with_gpus(scenario, plan.gpus + unit))
    assert plan.it_peak_kw <= 10_000.0 < bigger.it_peak_kw
    assert plan.envelope is not None and plan.envelope.next_used_kw == pytest.approx(bigger.it_peak_kw, rel=1e-12)


@pytest.mark.parametrize("base", [H100, GB200, B200], ids=["h100", "gb200", "b200"])
def test_twenty_mw_gives_about_twice_the_gpus_of_ten(base: dict) -> None:
    ten, twenty = design(power_plan(base, 10)).gpus, design(power_plan(base, 20)).gpus
    assert twenty / ten == pytest.approx(2.0, rel=0.02)


PLATFORMS = [
    ("h100-sxm", {"cluster": {"gpu_model": "h100-sxm", "gpus_per_node": 8}}),
    ("h200-sxm", {"cluster": {"gpu_model": "h200-sxm", "gpus_per_node": 8}, "prices_as_of": "2026-11"}),
    ("b200-sxm", {"cluster": {"gpu_model": "b200-sxm", "gpus_per_node": 8}, "prices_as_of": "2026-11"}),
    ("b300-sxm", {"cluster": {"gpu_model": "b300-sxm", "gpus_per_node": 8}, "prices_as_of": "2026-11"}),
    ("gb200-nvl72", {"cluster": {"gpu_model": "gb200-nvl72", "gpus_per_node": 72}, "prices_as_of": "2026-11"}),
    ("gb300-nvl72", {"cluster": {"gpu_model": "gb300-nvl72", "gpus_per_node": 72}, "prices_as_of": "2026-11"}),
]


@pytest.mark.parametrize(("platform", "data"), PLATFORMS, ids=[p for p, _ in PLATFORMS])
def test_it_power_per_gpu_of_the_sized_design_is_within_the_published_range(platform: str, data: dict) -> None:
    """Counted from first principles, the all-in IT kW per GPU lands inside data/it_power_per_gpu.csv's range."""
    rack_kw = 150.0 if platform.startswith("gb") else 60.0
    scenario = power_plan({"base": "optimized", **data}, 10, facility={"rack_power_kw": rack_kw})
    plan = design(scenario)
    kw_per_gpu = plan.it_peak_kw / plan.gpus
    row = IT_POWER[platform]
    assert float(row["it_kw_per_gpu_low"]) <= kw_per_gpu <= float(row["it_kw_per_gpu_high"])


def test_the_search_agrees_with_trying_every_count() -> None:
    scenario = power_plan(H100, 0.75, fabric={"topology": "reference"}, cluster={"hot_spare_share": 0.05})
    plan = design(scenario)
    fitting = [n for n in range(1, 80) if design_at_count(with_gpus(scenario, 8 * n)).it_peak_kw <= 750.0 + 1e-6]
    assert plan.servers == max(fitting)
    assert plan.spare_servers == math.ceil(plan.servers * 0.05) > 0  # the spares are in the envelope too
    assert plan.envelope is not None and plan.envelope.designs_tried < 12


@pytest.mark.parametrize("topology", ["reference", "tor", "vms", "modular", "spectrum_x"])
def test_peak_it_load_never_falls_as_nodes_are_added(topology: str) -> None:
    """The search's premise: load is non-decreasing in the node count."""
    scenario = neoplan.load_scenario({"base": "optimized", "fabric": {"topology": topology}})
    loads = [design_at_count(with_gpus(scenario, 8 * n)).it_peak_kw for n in range(1, 300, 7)]
    assert all(b >= a for a, b in itertools.pairwise(loads))


def test_an_envelope_too_small_for_one_node_names_the_field() -> None:
    with pytest.raises(ScenarioError, match=r"facility\.it_power_mw must be ≥ 0\.1\d\d MW to feed one rack"):
        design(power_plan(GB200, 0.1))


def test_a_power_plan_needs_an_envelope() -> None:
    with pytest.raises(ScenarioError, match=r"facility\.it_power_mw must be set"):
        neoplan.load_scenario({"base": "optimized", "cluster": {"size_by": "power"}})


def test_a_gpu_count_plan_has_no_envelope() -> None:
    d = neoplan.evaluate(neoplan.load_scenario("optimized")).to_dict()
    assert d["size_by"] == "gpus" and d["envelope"] is None and d["it_power_envelope_kw"] is None
