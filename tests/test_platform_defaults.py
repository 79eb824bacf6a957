"""Platform profiles (issue 23): switching the platform brings its defaults (price book, rental price, rack power
and cooling, NIC generation and type, storage per GPU) except what the user set; in a file,
``cluster.platform_defaults: true`` does the same; an incompatible combination is refused with the fix."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import page_path
from streamlit.testing.v1 import AppTest

import neoplan
from neoplan.errors import ScenarioError
from neoplan.inputs.datafile import read_numbered
from neoplan.inputs.platforms import (
    DEFAULTS_FILE,
    FIELDS,
    DefaultRow,
    _resolve,
    default_table,
    plan_switch,
    platform_defaults,
)
from neoplan.inputs.pricebook import default_platforms, default_rentals
from ui.state import SCENARIO

pytestmark = pytest.mark.usefixtures("run_like_the_server")


def _get(data: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        data = data[part]
    return data


def _apply(data: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    out = neoplan.load_scenario(data).model_dump(mode="json")
    for path, value in values.items():
        *parents, leaf = path.split(".")
        node = out
        for part in parents:
            node = node[part]
        node[leaf] = value
    return neoplan.load_scenario(out).model_dump(mode="json")


# --- the table ---------------------------------------------------------------------------------------------------


def test_every_platform_has_every_default_with_its_source() -> None:
    table = default_table()
    assert set(table) == set(default_platforms())
    for key, defaults in table.items():
        assert set(defaults) == set(FIELDS), key
        for d in defaults.values():
            assert d.source and d.date and d.basis in ("quoted", "estimate", "fitted"), (key, d)


def test_references_follow_the_tables_they_name() -> None:
    for key, platform in default_platforms().items():
        d = platform_defaults(key)
        book = d["prices_as_of"].value  # the rent is the market's of the platform's own book date
        assert d["pricing.usd_per_gpu_hour"].value == default_rentals(book)[key].usd_per_gpu_hour
        assert d["pricing.usd_per_gpu_hour"].date == default_rentals(book)[key].date
        assert d["fabric.nic_gbps"].value == platform.scaleout_nic_gbps
        assert d["facility.rack_power_kw"].value >= platform.node_max_power_kw  # a rack feeds at least one node


def test_a_contract_price_can_be_the_default() -> None:
    """The one place another engineer changes to default to contract prices: ``@rental_contracts:<contract>``."""
    line, row = next(
        (n, r) for n, r in read_numbered(DEFAULTS_FILE, DefaultRow) if r.field == "pricing.usd_per_gpu_hour"
    )
    contract = row.model_copy(update={"value": "@rental_contracts:reserved_1y"})
    d = _resolve(contract, line, default_platforms()[row.platform], "2026-11")
    assert d.value == 2.65 and d.date == "2026-06" and "rental_contracts.csv" in d.source
    d = _resolve(contract, line, default_platforms()[row.platform], "2024-10")  # the 2024-10 market's row
    assert d.value == 2.55 and d.date == "2024-10"


# --- switching in the model ------------------------------------------------------------------------------------


OPTIMIZED = neoplan.load_scenario("optimized").model_dump(mode="json")


def test_h100_to_b200_to_gb200_brings_each_platforms_defaults() -> None:
    b200 = plan_switch(OPTIMIZED, "b200-sxm", baseline=OPTIMIZED)
    after_b200 = _apply(OPTIMIZED, b200.values)
    expected = {f: d.for_gpus(1024) for f, d in platform_defaults("b200-sxm").items()}
    assert {f: _get(after_b200, f) for f in FIELDS} == expected
    assert (_get(after_b200, "pricing.usd_per_gpu_hour"), _get(after_b200, "facility.rack_power_kw")) == (5.30, 30)
    assert "rental price $2.99/GPU-h → $5.30/GPU-h" in b200.note()
    assert "servers per rack 4 → 2" in b200.note()  # two air-cooled B200 a 30 kW rack
    gb200 = plan_switch(after_b200, "gb200-nvl72", baseline=OPTIMIZED)
    after_gb200 = _apply(after_b200, gb200.values)
    assert after_gb200["cluster"] == {
        **after_b200["cluster"],
        "gpu_model": "gb200-nvl72",
        "gpus_per_node": 72,
        "gpus": 1080,
    }
    assert _get(after_gb200, "facility.rack_power_kw") == 140 and _get(after_gb200, "pricing.usd_per_gpu_hour") == 6.45
    assert "cooling air → liquid" in gb200.note() and "GPUs 1,024 → 1,080: whole racks" in gb200.note()
    result = neoplan.evaluate(neoplan.load_scenario(after_gb200))
    assert result.platform.rack_scale and result.facility.rack_power_kw == 140


def test_the_users_own_values_stay_and_say_so() -> None:
    mine = _apply(OPTIMIZED, {"pricing.usd_per_gpu_hour": 3.50, "facility.rack_power_kw": 80.0})
    b200 = plan_switch(mine, "b200-sxm", baseline=OPTIMIZED)
    after = _apply(mine, b200.values)
    assert _get(after, "pricing.usd_per_gpu_hour") == 3.50 and _get(after, "facility.rack_power_kw") == 80.0
    assert "kept your rental price $3.50/GPU-h: you set it" in b200.note()
    assert _get(after, "prices_as_of") == "2026-11"  # not the user's: the platform's
    gb200 = plan_switch(after, "gb200-nvl72", baseline=OPTIMIZED)
    assert gb200.values["facility.rack_power_kw"] == 140  # a hard requirement wins over the user's 80 kW, saying why
    assert "draws up to 132 kW, so your value cannot stay" in gb200.note()
    assert "pricing.usd_per_gpu_hour" not in gb200.values


def test_back_to_h100_restores_its_defaults() -> None:
    b200 = _apply(OPTIMIZED, plan_switch(OPTIMIZED, "b200-sxm", baseline=OPTIMIZED).values)
    back = _apply(b200, plan_switch(b200, "h100-sxm", baseline=OPTIMIZED).values)
    assert _get(back, "prices_as_of") == "2024-10" and _get(back, "facility.rack_power_kw") == 41
    assert _get(back, "pricing.usd_per_gpu_hour") == 2.99  # the H100 of 2024-10, data/markets/2024-10/
    assert _get(back, "facility.servers_per_rack") == 4


def test_spectrum_x_prices_supernics_at_the_server() -> None:
    ib = neoplan.evaluate(neoplan.load_scenario("optimized"))
    spx = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "fabric": {"topology": "spectrum_x"}}))
    assert any("ConnectX-7" in line.item for line in ib.node_lines)
    assert any("SuperNIC" in line.item for line in spx.node_lines)
    assert not any("ConnectX-7 single-port" in line.item for line in spx.node_lines)


# --- in a file ---------------------------------------------------------------------------------------------------


def test_gb200_on_the_optimized_preset_with_the_switch_evaluates() -> None:
    s = neoplan.load_scenario({"base": "optimized", "cluster": {"gpu_model": "gb200-nvl72", "platform_defaults": True}})
    expected = {f: d.for_gpus(1080) for f, d in platform_defaults("gb200-nvl72").items()}
    assert {f: _get(s.model_dump(mode="json"), f) for f in FIELDS} == expected
    assert (s.cluster.gpus, s.cluster.gpus_per_node) == (1080, 72)
    result = neoplan.evaluate(s)
    assert result.kpis["npv_usd"] == result.kpis["npv_usd"]  # evaluates: a number


def test_the_files_own_keys_stay_as_written() -> None:
    s = neoplan.load_scenario(
        {
            "base": "optimized",
            "cluster": {"gpu_model": "b200-sxm", "platform_defaults": True, "gpus": 2048},
            "pricing": {"usd_per_gpu_hour": 4.0},
        }
    )
    assert (s.cluster.gpus, s.pricing.usd_per_gpu_hour, s.facility.rack_power_kw, s.prices_as_of) == (
        2048,
        4.0,
        30,
        "2026-11",
    )


def test_a_files_incompatible_value_is_refused_with_the_fix() -> None:
    with pytest.raises(
        ScenarioError, match=r"cluster\.gpus must be a multiple of cluster\.gpus_per_node \(72\): 1,008 or 1,080"
    ):
        neoplan.load_scenario(
            {"base": "optimized", "cluster": {"gpu_model": "gb200-nvl72", "platform_defaults": True, "gpus": 1024}}
        )
    s = neoplan.load_scenario(
        {
            "base": "optimized",
            "cluster": {"gpu_model": "gb200-nvl72", "platform_defaults": True},
            "facility": {"rack_power_kw": 41},
        }
    )
    with pytest.raises(ScenarioError, match=r"facility\.rack_power_kw must be ≥ 132"):
        neoplan.evaluate(s)


def test_without_the_switch_every_problem_is_named_at_once_with_the_switch_as_the_fix() -> None:
    with pytest.raises(ScenarioError) as err:
        neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "cluster": {"gpu_model": "gb200-nvl72"}}))
    message = str(err.value)
    for part in (
        "cluster.gpus_per_node must be 72",
        "prices_as_of must be 2026-11",
        "facility.rack_power_kw must be ≥ 132",
    ):
        assert part in message
    assert message.endswith("(or set cluster.platform_defaults: true to take the platform's defaults)")
    assert "\n" not in message


# --- in the app --------------------------------------------------------------------------------------------------


def _compute_node() -> AppTest:
    at = AppTest.from_file(page_path("app"), default_timeout=120)
    at.run()
    at.switch_page("pages/compute_node.py").run()
    assert not at.exception
    return at


def test_the_app_switch_brings_the_defaults_keeps_the_users_price_and_says_why() -> None:
    at = _compute_node()
    at.switch_page("pages/pricing.py").run()
    at.text_input(key="w.pricing.usd_per_gpu_hour").input("3.50").run()
    at.switch_page("pages/compute_node.py").run()
    at.selectbox(key="compute_node.platform").set_value("b200-sxm").run()
    s = at.session_state[SCENARIO]
    assert (s.cluster.gpu_model, s.prices_as_of, s.facility.rack_power_kw) == ("b200-sxm", "2026-11", 30)
    assert s.pricing.usd_per_gpu_hour == 3.50
    note = " ".join(i.value.replace("\\", "") for i in at.info)
    assert "rack power 41 kW → 30 kW" in note and "kept your rental price $3.50/GPU-h" in note
    at.selectbox(key="compute_node.platform").set_value("gb200-nvl72").run()
    s = at.session_state[SCENARIO]
    assert (s.cluster.gpus, s.cluster.gpus_per_node, s.facility.rack_power_kw) == (1080, 72, 140)
    assert not at.exception and not at.error, [e.value for e in at.error]
