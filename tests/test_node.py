"""Compute-node BoM: calibration targets (BRIEF.md §5), line-item deltas, invariants, hot spares, overrides."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import evaluable_scenario_dicts, node_options

from neoplan import evaluate, load_scenario
from neoplan.design.node import DIMM_GB, NVME_DRIVE_TB, compute_servers, dimms, node_lines, node_price_usd, nvme_drives
from neoplan.errors import ScenarioError
from neoplan.inputs.hardware import Fabric, Node
from neoplan.inputs.loading import scenario_from_dict
from neoplan.inputs.pricebook import Platform, PriceBook, default_platforms, default_price_book

FAST = settings(max_examples=50, deadline=None)
OEM_NODE_USD = 270_000.0  # BRIEF.md §5: OEM-default HGX H100 server
OPTIMIZED_NODE_USD = 256_400.0  # BRIEF.md §5: the article's optimized server
SAVING_128_NODES_USD = 1_740_800.0  # 128 × $13,600 ≈ $1.74 M


@pytest.fixture(scope="module")
def book() -> PriceBook:
    return default_price_book()


@pytest.fixture(scope="module")
def h100() -> Platform:
    return default_platforms()["h100-sxm"]


def _price(node: Node | dict, fabric: Fabric | dict | None = None, book: PriceBook | None = None) -> float:
    node = node if isinstance(node, Node) else Node(**node)
    fabric = fabric if isinstance(fabric, Fabric) else Fabric(**(fabric or {}))
    return node_price_usd(node, fabric, default_platforms()["h100-sxm"], book or default_price_book())


# --- reference values ------------------------------------------------------------------------------------------


def test_oem_default_node_is_270k() -> None:
    result = evaluate(load_scenario("reference"))
    assert result.node_capex_usd == OEM_NODE_USD
    assert _price(Node(preset="oem_default")) == OEM_NODE_USD


def test_optimized_node_is_256k4() -> None:
    result = evaluate(load_scenario("optimized"))
    assert result.node_capex_usd == OPTIMIZED_NODE_USD
    assert result.oem_default_node_capex_usd == OEM_NODE_USD
    assert result.node_saving_vs_oem_usd == OEM_NODE_USD - OPTIMIZED_NODE_USD == 13_600


def test_128_nodes_save_1_74m() -> None:
    ref, opt = evaluate(load_scenario("reference")), evaluate(load_scenario("optimized"))
    assert ref.servers == opt.servers == 128
    saving = ref.capex_by_category()["compute"] - opt.capex_by_category()["compute"]
    assert saving == SAVING_128_NODES_USD
    assert saving == pytest.approx(1.74e6, rel=0.005)
    assert ref.capex_by_category()["compute"] == 128 * OEM_NODE_USD == 34_560_000


def test_dimm_and_drive_counts() -> None:
    assert DIMM_GB == 64
    assert NVME_DRIVE_TB == 7.68
    assert [dimms(tb) for tb in (0.25, 0.5, 1.0, 1.5, 2.0, 8.0)] == [4, 8, 16, 24, 32, 128]
    assert dimms(0.3) == 5  # rounds up to whole DIMMs
    assert [nvme_drives(tb) for tb in (0, 7.68, 15.36, 30.0, 30.72, 30.73)] == [0, 1, 2, 4, 4, 5]


# --- line-item deltas: unit price × count ----------------------------------------------------------------------


def test_ram_2tb_to_1tb_saves_16_dimms(book: PriceBook) -> None:
    oem = Node(preset="oem_default")
    delta = _price(oem) - _price(oem.model_copy(update={"ram_tb": 1.0}))
    assert delta == pytest.approx(16 * book.price("ram_ddr5_64gb"))
    assert delta > 0


def test_dpus_2_to_0_saves_two_dpus(book: PriceBook) -> None:
    with_dpus = Node(preset="optimized", dpus=2)  # optimized node keeps its plain front-end NIC
    without = Node(preset="optimized", dpus=0)
    assert _price(with_dpus) - _price(without) == pytest.approx(2 * book.price("dpu_bluefield3"))


def test_oem_node_without_dpus_needs_a_frontend_nic(book: PriceBook) -> None:
    oem = Node(preset="oem_default")
    swapped = Node(preset="oem_default", dpus=0, frontend_nics=1)
    fabric = Fabric(frontend={"port_gbps": 100})
    expected = 2 * book.price("dpu_bluefield3") - book.price("nic_frontend_2x100g")
    assert _price(oem, fabric) - _price(swapped, fabric) == pytest.approx(expected)


def test_cpu_top_to_mid_saves_two_sockets(book: PriceBook) -> None:
    top, mid = Node(preset="oem_default"), Node(preset="oem_default", cpu_tier="mid")
    assert _price(top) - _price(mid) == pytest.approx(2 * (book.price("cpu_top") - book.price("cpu_mid")))
    assert book.price("cpu_entry") < book.price("cpu_mid") < book.price("cpu_top")


@pytest.mark.parametrize(("nic_gbps", "key"), [(400, "nic_backend_400g"), (800, "nic_backend_800g")])
def test_four_backend_nics_instead_of_eight(book: PriceBook, nic_gbps: int, key: str) -> None:
    node = Node(preset="optimized")
    eight, four = Fabric(nics_per_node=8, nic_gbps=nic_gbps), Fabric(nics_per_node=4, nic_gbps=nic_gbps)
    assert _price(node, eight) - _price(node, four) == pytest.approx(4 * book.price(key))


def test_frontend_nic_follows_port_speed(book: PriceBook) -> None:
    node = Node(preset="optimized")
    p100 = _price(node, {"frontend": {"port_gbps": 100}})
    p200 = _price(node, {"frontend": {"port_gbps": 200}})
    assert p200 - p100 == pytest.approx(book.price("nic_frontend_2x200g") - book.price("nic_frontend_2x100g"))


def test_optimized_saving_is_the_sum_of_its_changes(book: PriceBook) -> None:
    """$13,600 = CPUs (top → mid) + RAM (2 → 1 TB) + DPUs (2 → 0) − one 2×100G front-end NIC."""
    expected = (
        2 * (book.price("cpu_top") - book.price("cpu_mid"))
        + 16 * book.price("ram_ddr5_64gb")
        + 2 * book.price("dpu_bluefield3")
        - book.price("nic_frontend_2x100g")
    )
    assert expected == pytest.approx(OEM_NODE_USD - OPTIMIZED_NODE_USD)


def test_warranty_years_scale_the_warranty_line(book: PriceBook) -> None:
    node = Node(preset="optimized")
    assert _price(node) - _price(node.model_copy(update={"warranty_years": 0})) == pytest.approx(
        node.warranty_years * book.price("node_warranty_year")
    )


# --- invariants ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["oem_default", "optimized"])
def test_node_price_is_the_sum_of_its_lines(book: PriceBook, h100: Platform, preset: str) -> None:
    lines = node_lines(Node(preset=preset), Fabric(), h100, book)
    assert lines
    assert node_price_usd(Node(preset=preset), Fabric(), h100, book) == pytest.approx(
        sum(ln.quantity * ln.unit_price_usd for ln in lines)
    )
    for ln in lines:
        assert ln.key in book
        assert ln.unit_price_usd == book.price(ln.key)
        assert ln.quantity > 0
        assert ln.total_usd == ln.quantity * ln.unit_price_usd
        assert ln.category == "compute"
        assert ln.basis in ("quoted", "estimate", "fitted")
    keys = [ln.key for ln in lines]
    assert len(keys) == len(set(keys))  # one line per price key
    assert h100.baseboard_price_key in keys


def test_bom_table_matches_lines() -> None:
    result = evaluate(load_scenario("optimized"))
    table = result.bom_table()
    assert len(table) == len(result.node_lines)
    assert table["total_usd"].sum() == pytest.approx(result.node_capex_usd)


@FAST
@given(node_options(), st.sampled_from([4, 8]), st.sampled_from([400, 800]), st.sampled_from([100, 200, 400]))
def test_node_price_positive_finite_and_summed(opts: dict, nics: int, gbps: int, port: int) -> None:
    book = default_price_book()
    node, fabric = Node(**opts), Fabric(nics_per_node=nics, nic_gbps=gbps, frontend={"port_gbps": port})
    lines = node_lines(node, fabric, default_platforms()["h100-sxm"], book)
    price = _price(node, fabric)
    assert math.isfinite(price)
    assert price > book.price("gpu_baseboard_hgx_h100")
    assert price == pytest.approx(sum(ln.total_usd for ln in lines))
    assert all(ln.key in book for ln in lines)


@FAST
@given(node_options(), st.floats(0.25, 8), st.floats(0.25, 8))
def test_node_price_monotone_in_ram(opts: dict, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert _price({**opts, "ram_tb": lo}) <= _price({**opts, "ram_tb": hi})


@FAST
@given(node_options(), st.floats(0, 500), st.floats(0, 500))
def test_node_price_monotone_in_nvme(opts: dict, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert _price({**opts, "nvme_tb": lo}) <= _price({**opts, "nvme_tb": hi})


@FAST
@given(node_options())
def test_preset_name_alone_does_not_change_the_price(opts: dict) -> None:
    """Only the preset differs, every line field is explicit: the preset name itself must not change the price."""
    assert _price({**opts, "preset": "oem_default"}) == _price({**opts, "preset": "optimized"})


# --- cluster compute capex and hot spares ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("share", "spares"),
    [(0.0, 0), (0.01, 2), (0.05, 7), (0.0625, 8), (0.1, 13), (0.5, 64)],
)
def test_hot_spares_add_whole_servers(share: float, spares: int) -> None:
    assert compute_servers(128, share) == (128, spares)
    result = evaluate(scenario_from_dict({"base": "optimized", "cluster": {"hot_spare_share": share}}))
    assert result.servers == 128
    assert result.spare_servers == spares
    assert result.gpus == 1024  # spares do not count as GPUs in service
    assert result.capex_by_category()["compute"] == pytest.approx((128 + spares) * OPTIMIZED_NODE_USD)


@settings(max_examples=15, deadline=None)
@given(evaluable_scenario_dicts())
def test_evaluate_over_valid_scenarios(data: dict) -> None:
    """No crash; compute capex = (servers + spares) × node price; capex total = sum of categories."""
    result = evaluate(scenario_from_dict(data))
    price = result.node_capex_usd
    assert math.isfinite(price) and price > 0
    assert result.servers == result.scenario.cluster.gpus // 8
    capex = result.capex_by_category()
    assert capex["compute"] == pytest.approx((result.servers + result.spare_servers) * price)
    assert capex["total"] == pytest.approx(sum(v for k, v in capex.items() if k != "total"))
    assert all(math.isfinite(v) and v >= 0 for v in capex.values())


# --- price overrides and platforms -----------------------------------------------------------------------------


def test_price_override_changes_node_price_by_count_times_delta(book: PriceBook) -> None:
    base = evaluate(load_scenario("optimized"))
    over = evaluate(scenario_from_dict({"base": "optimized", "prices": {"cpu_mid": book.price("cpu_mid") + 1000}}))
    assert over.node_capex_usd - base.node_capex_usd == pytest.approx(2 * 1000)
    assert over.capex_by_category()["compute"] - base.capex_by_category()["compute"] == pytest.approx(128 * 2000)
    line = next(ln for ln in over.node_lines if ln.key == "cpu_mid")
    assert line.basis == "override"
    assert default_price_book().price("cpu_mid") == book.price("cpu_mid")  # the shipped book is untouched


def test_ram_price_override(book: PriceBook) -> None:
    over = evaluate(scenario_from_dict({"base": "reference", "prices": {"ram_ddr5_64gb": 0}}))
    assert over.node_capex_usd == pytest.approx(OEM_NODE_USD - 32 * book.price("ram_ddr5_64gb"))


def test_unknown_price_override_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError, match="cpu_mdi"):
        evaluate(scenario_from_dict({"base": "optimized", "prices": {"cpu_mdi": 1}}))


def test_h200_platform_evaluates(book: PriceBook) -> None:
    result = evaluate(scenario_from_dict({"base": "optimized", "cluster": {"gpu_model": "h200-sxm"}}))
    assert result.platform.key == "h200-sxm"
    h200_board = book.price(default_platforms()["h200-sxm"].baseboard_price_key)
    expected = OPTIMIZED_NODE_USD - book.price("gpu_baseboard_hgx_h100") + h200_board
    assert result.node_capex_usd == pytest.approx(expected)
    assert result.node_capex_usd > OPTIMIZED_NODE_USD
    assert result.to_dict()["gpu_model"] == "h200-sxm"


def test_unknown_gpu_model_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError, match=r"cluster\.gpu_model"):
        evaluate(scenario_from_dict({"cluster": {"gpu_model": "a100-pcie"}}))


def test_gpus_per_node_must_match_the_platform() -> None:
    with pytest.raises(ScenarioError, match=r"cluster\.gpus_per_node"):
        evaluate(scenario_from_dict({"cluster": {"gpus": 1024, "gpus_per_node": 4}}))


def test_nvl72_rack_bom_by_hand() -> None:
    """One GB200 NVL72 node = the rack system + per-tray NICs, DPU, drives, integration and warranty."""
    from neoplan.inputs.pricebook import price_book

    book = price_book("2026-11")
    nvl = default_platforms()["gb200-nvl72"]
    node = Node(nvme_tb=15.0, dpus=1, frontend_nics=0, warranty_years=3)
    p = book.price
    expected = (
        p("gpu_rack_gb200_nvl72")
        + 18 * (2 * p("nvme_7_68tb") + 2 * p("nvme_boot_960gb") + 4 * p("nic_backend_400g"))
        + 18 * (p("dpu_bluefield3") + p("node_integration") + 3 * p("node_warranty_year"))
    )
    assert node_price_usd(node, Fabric(), nvl, book) == pytest.approx(expected)
    keys = {line.key for line in node_lines(node, Fabric(), nvl, book)}
    assert not keys & {"cpu_mid", "ram_ddr5_64gb", "node_chassis", "node_chassis_hgx_blackwell"}


def test_blackwell_hgx_uses_its_own_chassis() -> None:
    book = default_price_book()
    b200 = default_platforms()["b200-sxm"]
    keys = {line.key for line in node_lines(Node(), Fabric(), b200, book)}
    assert "node_chassis_hgx_blackwell" in keys and "node_chassis" not in keys
    assert book.price("node_chassis_hgx_blackwell") > book.price("node_chassis")
