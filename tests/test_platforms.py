"""Blackwell platforms, the dated price book, rack power enforced and liquid cooling (issue #15)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neoplan
from neoplan.design.facility import effective_servers_per_rack
from neoplan.design.node import backend_nics_per_node
from neoplan.errors import DataError, ScenarioError
from neoplan.inputs.hardware import Fabric, Facility
from neoplan.inputs.platforms import plan_switch
from neoplan.inputs.pricebook import (
    BOOK_DATES,
    PriceBookError,
    book_differences,
    default_platforms,
    default_rentals,
    months_apart,
    price_book,
    read_price_book,
)

ROOT = Path(__file__).resolve().parent.parent
PLATFORMS = default_platforms()
NEW = ("b200-sxm", "b300-sxm", "gb200-nvl72", "gb300-nvl72")


def _scenario(model: str, gpus: int | None = None, **sections: dict) -> neoplan.Scenario:
    p = PLATFORMS[model]
    cluster = {"gpu_model": model, "gpus_per_node": p.gpus_per_node, "gpus": gpus or p.gpus_per_node * 16}
    facility = {"rack_power_kw": 140.0} if p.rack_scale else {}
    return neoplan.load_scenario(
        {"base": "optimized", "prices_as_of": "2026-11", "cluster": cluster, "facility": facility, **sections}
    )


# --- the catalogue ------------------------------------------------------------------------------------------


def test_new_platform_ids_and_facts() -> None:
    assert set(NEW) <= set(PLATFORMS)
    for key in NEW:
        p = PLATFORMS[key]
        assert p.gpus_per_node == p.compute_trays * p.gpus_per_tray
        assert p.gpu_power_w * p.gpus_per_node < p.node_max_power_kw * 1000
        assert p.source and p.date
    for key in ("gb200-nvl72", "gb300-nvl72"):
        p = PLATFORMS[key]
        assert p.rack_scale and p.liquid_cooled and p.gpus_per_node == 72
        assert (p.compute_trays, p.gpus_per_tray, p.switch_trays) == (18, 4, 9)
        assert 120 <= p.node_max_power_kw <= 140
        assert p.scaleout_nics_per_node == 72 and p.bmc_ports_per_node == 27
    assert PLATFORMS["gb300-nvl72"].scaleout_nic_gbps == PLATFORMS["b300-sxm"].scaleout_nic_gbps == 800
    assert not PLATFORMS["b200-sxm"].rack_scale and PLATFORMS["b200-sxm"].cooling == "air"


# --- the dated book -----------------------------------------------------------------------------------------


def test_2026_book_is_the_base_with_overrides() -> None:
    old, new = price_book("2024-10"), price_book("2026-11")
    assert (old.as_of, new.as_of) == ("2024-10", "2026-11") and BOOK_DATES == ("2024-10", "2026-11")
    assert set(old.rows) < set(new.rows)
    changed = {k for k in old.rows if old.row(k).price_usd != new.row(k).price_usd}
    assert {"ram_ddr5_64gb", "nvme_7_68tb", "storage_nvme_30_72tb", "cpu_top"} <= changed
    assert new.price("ram_ddr5_64gb") > 3 * old.price("ram_ddr5_64gb")  # TrendForce: DRAM up steeply in 2026
    for key in changed | (set(new.rows) - set(old.rows)):
        row = new.row(key)
        assert row.file.startswith("2026-11/") and row.date >= "2025" and len(row.source) > 30, key
    assert new.row("gpu_baseboard_hgx_h100") == old.row("gpu_baseboard_hgx_h100")  # untouched rows carry over
    # the top-bin Xeon sits within 55-85 % of its $10,710 list price in the market book
    assert 0.55 * 10_710 <= new.price("cpu_top") <= 0.85 * 10_710


def test_book_differences_list_changed_and_new_rows() -> None:
    old, new = price_book("2024-10"), price_book("2026-11")
    diff = {key: (before, row.price_usd) for key, before, row in book_differences(old, new)}
    assert diff["ram_ddr5_64gb"] == (260.0, 950.0)
    assert diff["gpu_rack_gb200_nvl72"][0] is None  # new in 2026-11
    assert "gpu_baseboard_hgx_h100" not in diff and book_differences(new, new) == []


def test_book_folders_override_in_date_order(tmp_path: Path) -> None:
    head = "key,category,description,unit,price_usd,date,source,basis\n"
    (tmp_path / "a.csv").write_text(head + "x,c,d,u,10,2024-10,src,estimate\n", encoding="utf-8")
    for folder, price in (("2025-06", 20), ("2026-11", 30)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.csv").write_text(head + f"x,c,d,u,{price},{folder},src,estimate\n", encoding="utf-8")
    assert [read_price_book(tmp_path, d).price("x") for d in ("2024-10", "2025-12", "2026-11")] == [10, 20, 30]
    with pytest.raises(PriceBookError, match="prices_as_of"):
        read_price_book(tmp_path, "2023-01")
    (tmp_path / "2026-11" / "b.csv").write_text(head + "x,c,d,u,1,2026-11,src,estimate\n", encoding="utf-8")
    with pytest.raises(
        DataError, match=r"2026-11/b\.csv row 2, column 'key': key 'x' already defined in 2026-11/a\.csv"
    ):
        read_price_book(tmp_path, "2026-11")


def test_scenario_book_date_changes_the_price_and_defaults_to_2024_10() -> None:
    assert neoplan.Scenario().prices_as_of == "2024-10"
    old = neoplan.evaluate(neoplan.load_scenario("optimized"))
    new = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "prices_as_of": "2026-11"}))
    assert old.node_capex_usd == pytest.approx(256_400.0)  # the calibration target holds on the 2024-10 book
    dimms = 16
    assert new.node_capex_usd - old.node_capex_usd == pytest.approx(
        dimms * (950 - 260) + 4 * (2400 - 850) + 2 * (300 - 180)
    )
    with pytest.raises(ScenarioError, match="prices_as_of"):
        neoplan.load_scenario({"prices_as_of": "2025-01"})


def test_rental_date_far_from_the_book_warns() -> None:
    """A plan rents in the market of its own book date; one the market of that date does not rent (no B200 rented in
    2024-10) takes the nearest market's price, and the result says how far apart the two dates are."""
    assert months_apart("2024-10", "2026-10") == 24 and months_apart("2026-11", "2026-10-03") == 1
    for as_of in ("2024-10", "2026-11"):
        h100 = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "prices_as_of": as_of}))
        assert not any(w.startswith("prices_as_of") for w in h100.warnings)
    b200 = _scenario("b200-sxm", 1024).model_copy(update={"prices_as_of": "2024-10"})
    warned = [w for w in neoplan.evaluate(b200).warnings if w.startswith("prices_as_of")]
    assert len(warned) == 1 and "20 months apart (the 2024-10 market rents no b200-sxm)" in warned[0]
    assert "choose prices_as_of 2026-11" in warned[0]
    assert set(NEW) <= set(default_rentals())


def test_platform_missing_from_an_old_book_is_a_clear_error() -> None:
    s = _scenario("gb200-nvl72").model_copy(update={"prices_as_of": "2024-10"})
    with pytest.raises(ScenarioError, match=r"prices_as_of must be 2026-11 \(the 2024-10 book has no price for it\)"):
        neoplan.evaluate(s)


# --- rack power and nodes -----------------------------------------------------------------------------------


def test_b200_at_41_kw_needs_more_racks_than_h100() -> None:
    h100 = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "prices_as_of": "2026-11"}))
    b200 = neoplan.evaluate(_scenario("b200-sxm", 1024, facility={"rack_power_kw": 41.0}))
    assert h100.gpus == b200.gpus == 1024
    assert (h100.facility.servers_per_rack, b200.facility.servers_per_rack) == (4, 2)
    assert b200.facility.compute_racks == 2 * h100.facility.compute_racks == 64
    assert b200.facility.compute_rack_kw <= 41.0 and any("at most 2 servers" in w for w in b200.warnings)
    assert b200.facility.racks > h100.facility.racks


def test_rack_power_below_one_node_is_an_error() -> None:
    facility = Facility(rack_power_kw=100.0)
    with pytest.raises(ScenarioError, match=r"facility\.rack_power_kw must be ≥ 132"):
        effective_servers_per_rack(facility, PLATFORMS["gb200-nvl72"])
    with pytest.raises(ScenarioError, match=r"facility\.rack_power_kw"):
        effective_servers_per_rack(Facility(rack_power_kw=10.0), PLATFORMS["h100-sxm"])


@pytest.mark.parametrize("model", ["gb200-nvl72", "gb300-nvl72"])
def test_nvl72_rack_is_one_liquid_cooled_node(model: str) -> None:
    r = neoplan.evaluate(_scenario(model, 1296))
    f = r.facility
    assert (r.servers, f.servers_per_rack, f.compute_racks) == (18, 1, 18)
    assert 120 <= f.compute_rack_kw <= 140
    assert f.liquid_heat_kw == pytest.approx(18 * PLATFORMS[model].node_max_power_kw * 0.85)
    assert f.cooling_kw == pytest.approx(f.liquid_heat_kw * 0.02)
    keys = {ln.key: ln.quantity for ln in f.lines}
    assert keys["cdu_per_kw"] == pytest.approx(f.liquid_heat_kw) and keys["liquid_loop_per_rack"] == 18
    assert keys["rack_42u"] == f.racks - 18  # the NVL72 rack comes with the system
    node = {ln.key: ln.quantity for ln in r.node_lines}
    assert node[PLATFORMS[model].baseboard_price_key] == 1 and node["nic_backend_400g"] == 72
    assert "cpu_mid" not in node and "ram_ddr5_64gb" not in node  # Grace and its memory are in the rack
    assert r.to_dict()["gpus"] == 1296 and r.kpis["tco_usd_per_gpu_hour"] > 0


def test_gpus_per_node_72_only_for_rack_scale() -> None:
    with pytest.raises(ScenarioError, match=r"cluster\.gpus_per_node must be 8 .*72 only for rack-scale"):
        neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 1152, "gpus_per_node": 72}}))
    bad = _scenario("gb200-nvl72").model_copy(deep=True)
    bad.cluster.gpus_per_node = 8
    with pytest.raises(ScenarioError, match=r"cluster\.gpus_per_node must be 72"):
        neoplan.evaluate(bad)


def test_backend_nics_follow_the_rails() -> None:
    nvl = PLATFORMS["gb200-nvl72"]
    assert backend_nics_per_node(Fabric(nics_per_node=8), nvl) == 72
    assert backend_nics_per_node(Fabric(nics_per_node=4), PLATFORMS["b200-sxm"]) == 4


@pytest.mark.parametrize("model", ["gb200-nvl72", "gb300-nvl72"])
def test_a_rack_scale_tray_fixes_its_nics(model: str) -> None:
    """Issue 34: "4 NICs per 8 GPUs" on an NVL72 bought half the NICs but kept the fabric and 400G per GPU (NPV
    $0.92 M → $1.89 M). Refused, naming the field and why; the platform switch sets the tray's count, saying why."""
    s = _scenario(model)
    four = s.model_copy(update={"fabric": s.fabric.model_copy(update={"nics_per_node": 4})})
    with pytest.raises(ScenarioError, match=r"fabric\.nics_per_node must be 8 on the .*NVL72.*one per GPU.*got 4"):
        neoplan.evaluate(four)
    hgx = neoplan.load_scenario({"base": "optimized", "fabric": {"nics_per_node": 4}})
    switch = plan_switch(hgx.model_dump(mode="json"), model)
    assert switch.values["fabric.nics_per_node"] == 8
    assert "back-end NICs per 8 GPUs 4 → 8G" not in switch.note() and "4 → 8: each compute tray" in switch.note()


@settings(max_examples=25, deadline=None)
@given(
    model=st.sampled_from(sorted(PLATFORMS)),
    nodes=st.integers(1, 40),
    rack_kw=st.floats(5, 300),
    per_rack=st.integers(1, 32),
    book=st.sampled_from(BOOK_DATES),
)
def test_any_platform_book_and_rack_power_evaluates_or_names_the_field(
    model: str, nodes: int, rack_kw: float, per_rack: int, book: str
) -> None:
    p = PLATFORMS[model]
    s = neoplan.load_scenario(
        {
            "base": "optimized",
            "prices_as_of": book,
            "cluster": {"gpu_model": model, "gpus_per_node": p.gpus_per_node, "gpus": nodes * p.gpus_per_node},
            "facility": {"rack_power_kw": rack_kw, "servers_per_rack": per_rack},
        }
    )
    try:
        r = neoplan.evaluate(s)
    except ScenarioError as exc:
        assert str(exc).startswith(("facility.rack_power_kw", "prices_as_of", "cluster.", "fabric.")), str(exc)
        return
    f = r.facility
    assert f.compute_rack_kw <= rack_kw + 1e-6
    assert f.servers_per_rack == (1 if p.rack_scale else min(per_rack, int(rack_kw / p.node_max_power_kw + 1e-9)))
    assert f.compute_racks * f.servers_per_rack >= r.servers + r.spare_servers
    assert (f.cooling_kw > 0) == p.liquid_cooled
    assert r.book.as_of == book and r.capex_usd["total"] > 0


# --- presets and the CLI ------------------------------------------------------------------------------------


def test_presets_evaluate() -> None:
    b200 = neoplan.evaluate(neoplan.load_scenario("b200_1024"))
    gb200 = neoplan.evaluate(neoplan.load_scenario("gb200_nvl72_18rack"))
    assert (b200.gpus, b200.platform.key, b200.scenario.prices_as_of) == (1024, "b200-sxm", "2026-11")
    assert (gb200.gpus, gb200.facility.compute_racks, gb200.scenario.prices_as_of) == (1296, 18, "2026-11")
    assert b200.scenario.pricing.usd_per_gpu_hour == default_rentals()["b200-sxm"].usd_per_gpu_hour
    assert gb200.scenario.pricing.usd_per_gpu_hour == default_rentals()["gb200-nvl72"].usd_per_gpu_hour
    assert b200.facility.compute_rack_kw <= b200.scenario.facility.rack_power_kw


def test_cli_evaluates_a_rack_scale_file(tmp_path: Path) -> None:
    path = tmp_path / "gb300.yaml"
    path.write_text(_scenario("gb300-nvl72", 1152).to_yaml(), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "neoplan", "evaluate", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "GB300" in out.stdout and "1,152" in out.stdout


# --- the Compute node page -----------------------------------------------------------------------------------


def test_page_switches_to_an_nvl72_rack_and_its_book() -> None:
    from conftest import page_path, run_page
    from test_user_text import shown  # Markdown as it reads on screen

    at = run_page(page_path("compute_node"))
    assert not at.exception and not at.error, [e.value for e in at.error]
    book = ("Price book (hardware prices as of)", "prices_as_of")
    assert not any(shown(w.value).startswith(book) for w in at.warning)  # one vintage: no date warning
    at.selectbox(key="compute_node.platform").set_value("gb200-nvl72").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    from ui.state import SCENARIO

    sc = at.session_state[SCENARIO]
    assert (sc.cluster.gpu_model, sc.cluster.gpus_per_node, sc.cluster.gpus) == ("gb200-nvl72", 72, 1080)
    assert sc.prices_as_of == "2026-11" and sc.facility.rack_power_kw >= 132
    assert any("per NVL72 rack" in h.value for h in at.subheader)
    assert any(e.label.startswith("What the 2026-11 book changes") for e in at.expander)
    assert not any("Price book" in shown(w.value) for w in at.warning)  # the 2026-11 book is near the 2026 rental


def test_compare_page_lists_the_design_inputs_that_differ() -> None:
    from conftest import page_path, run_page

    at = run_page(page_path("compare"))
    at.multiselect(key="compare.chosen").set_value(["optimized", "gb200_nvl72_18rack"]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    design = at.dataframe[1].value.set_index("")
    assert design.loc["GPU platform ≠", "gb200_nvl72_18rack"].startswith("NVIDIA GB200 NVL72")
    assert design.loc["Hardware prices as of ≠"].tolist() == ["2024-10", "2026-11"]
    assert design.loc["Cooling ≠", "optimized"] == "air"
    assert design.loc["Cooling ≠", "gb200_nvl72_18rack"].startswith("liquid")
