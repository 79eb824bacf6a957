"""Storage sizing: reference values (article, WEKA formula), invariants and properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neoplan
from neoplan.design.costs import total_usd
from neoplan.design.storage import (
    BACKEND_WARNING,
    NFS_WARNING,
    checkpoint_tb,
    checkpoint_write_s,
    default_storage_catalogue,
    design_storage,
    gpus_per_frontend_unit,
    net_efficiency,
    pick_model,
    plugged_port_gbps,
    port_capped,
    size_storage,
    stripe_data_blocks,
)
from neoplan.inputs.hardware import Storage
from neoplan.inputs.loading import load_scenario
from neoplan.inputs.pricebook import default_price_book

BOOK = default_price_book()
CATALOGUE = default_storage_catalogue()
DIST = pick_model(CATALOGUE, "licensed")
NFS = pick_model(CATALOGUE, "self_built")


def sized(gpus: int = 1024, rack_power_kw: float = 41.0, **storage: object):
    return size_storage(Storage(**storage), BOOK, gpus=gpus, rack_power_kw=rack_power_kw)


# --- reference values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sections",
    [{"base": "reference"}, {"base": "optimized", "fabric": {"frontend": {"match_storage_ports": True}}}],
)
def test_article_1024_h100_two_pb_is_eight_servers_at_250_to_400_gbyte_s(sections: dict) -> None:
    """8 storage servers on ports as fast as their 2×200GbE NICs (the reference's 200G front end, or 200G-class
    front-end switches) deliver the article's 250-400 GB/s."""
    design = design_storage(load_scenario(sections), BOOK)
    assert design.usable_pb == 2.0
    assert design.servers == 8
    assert 250 <= design.read_gbyte_per_s <= 400
    assert design.meets_target
    assert design.network == "frontend"
    assert design.warnings == ()


def test_weka_net_capacity_formula_by_hand() -> None:
    # 8 failure domains, N+2, one virtual hot spare: stripe 5+2, net = 0.9 × 7/8 × 5/7.
    assert stripe_data_blocks(DIST, 8) == 5
    assert net_efficiency(DIST, 8) == pytest.approx(0.9 * 7 / 8 * 5 / 7)
    # 16 servers: stripe min(16, 16 − 2 − 1) = 13.
    assert stripe_data_blocks(DIST, 16) == 13
    assert net_efficiency(DIST, 16) == pytest.approx(0.9 * 15 / 16 * 13 / 15)
    # the stripe caps at 16 data blocks.
    assert stripe_data_blocks(DIST, 40) == 16


def test_default_drive_count_and_free_bays_by_hand() -> None:
    design = sized()
    raw_needed_tb = 2000 / (0.9 * 7 / 8 * 5 / 7)  # 3,555.6 TB
    per_server = math.ceil(raw_needed_tb / (8 * 30.72))  # 14.47 → 15
    assert design.drives_per_server == per_server == 15
    assert design.drives == 120
    assert design.free_bays == 8 * 24 - 120
    assert design.raw_tb == pytest.approx(120 * 30.72)
    assert design.headroom_tb > 1000  # room to grow by more than 1 PB without new servers


def test_checkpoint_of_70b_at_14_bytes_per_param() -> None:
    assert checkpoint_tb(70) == pytest.approx(0.98)
    design = sized(checkpoint_params_billion=70)
    assert design.write_gbyte_per_s == pytest.approx(8 * 20)
    assert design.checkpoint_write_s == pytest.approx(980 / 160)
    assert checkpoint_write_s(1.0, 0.0) == math.inf
    assert checkpoint_write_s(0.0, 0.0) == 0.0


def test_slow_checkpoint_warns() -> None:
    design = sized(checkpoint_params_billion=10_000)  # 140 TB at 160 GB/s = 875 s
    assert design.checkpoint_write_s == pytest.approx(140_000 / 160)
    assert any("checkpoint" in w for w in design.warnings)


# --- cost lines ---------------------------------------------------------------------------------


def test_perpetual_licence_is_capex_priced_per_usable_tb() -> None:
    design = sized()
    keys = {line.key: line for line in design.lines}
    assert keys["storage_licence_perpetual_tb"].quantity == 2000
    assert keys["storage_licence_perpetual_tb"].total_usd == 2000 * BOOK.price("storage_licence_perpetual_tb")
    assert keys[DIST.server_price_key].quantity == 8
    assert keys[DIST.drive_price_key].quantity == 120
    assert all(line.category == "storage" for line in design.lines)
    assert design.capex_usd == pytest.approx(total_usd(list(design.lines)))
    assert design.licence_usd_per_year == 0.0
    # the article: most of the storage cost is the software licence
    assert keys["storage_licence_perpetual_tb"].total_usd > design.hardware_capex_usd


def test_yearly_licence_is_opex_not_capex() -> None:
    design = sized(licence_term="yearly")
    assert "storage_licence_perpetual_tb" not in {line.key for line in design.lines}
    assert design.licence_usd_per_year == pytest.approx(2000 * BOOK.price("storage_licence_tb_year"))
    assert design.capex_usd == pytest.approx(design.hardware_capex_usd)


def test_self_built_nfs_has_no_licence_needs_more_servers_and_warns() -> None:
    design = sized(vendor_class="self_built")
    assert design.model.key == NFS.key
    assert design.licence_usd_per_year == 0.0
    assert {line.key for line in design.lines} == {NFS.server_price_key, NFS.drive_price_key}
    assert NFS_WARNING in design.warnings
    # 256 GB/s target at 12 GB/s per NFS server
    assert design.servers_for_throughput == math.ceil(256 / 12)
    assert design.servers >= design.servers_for_throughput
    assert design.meets_target


# --- network and ports --------------------------------------------------------------------------


def test_frontend_ports_and_oob() -> None:
    design = sized()
    assert (design.frontend_ports, design.backend_ports, design.oob_ports) == (16, 0, 8)
    assert design.port_gbps == 200


def test_backend_storage_warns_and_moves_the_ports() -> None:
    design = sized(network="backend")
    assert BACKEND_WARNING in design.warnings
    assert "GPU 0" in BACKEND_WARNING
    assert (design.frontend_ports, design.backend_ports, design.oob_ports) == (0, 16, 8)


def test_target_above_frontend_bandwidth_warns() -> None:
    scenario = load_scenario({"base": "optimized", "storage": {"target_gbps_per_gpu": 30}})
    design = design_storage(scenario, BOOK)  # 2 × 100 GbE per 8 GPUs = 25 Gbit/s per GPU
    assert any("front-end bandwidth" in w for w in design.warnings)
    assert design.meets_target  # the storage side is sized for it: 3,840 GB/s at 25 GB/s each (100G ports)
    assert design.servers == math.ceil(1024 * 30 / 8 / 25)


# --- storage throughput is capped by the ports it plugs into (issue #15) ------------------------------------


def test_optimized_storage_on_100g_ports_is_capped_and_sized_so_the_floor_holds() -> None:
    """The optimized preset's 2×200GbE storage servers on 100G front-end ports: 8 servers give at most
    8 × 2 × 100 / 8 = 200 GB/s, below the article's 250 GB/s floor; servers are added until the 256 GB/s target
    (1,024 GPUs × 2 Gbit/s) holds, and a warning names the cap."""
    design = design_storage(load_scenario("optimized"), BOOK)
    assert design.port_gbps == 200  # the NIC
    per_server = 2 * 100 / 8  # GB/s through two 100G ports
    assert design.servers == math.ceil(1024 * 2 / 8 / per_server) == 11
    assert design.read_gbyte_per_s == pytest.approx(11 * per_server) == 275
    assert design.read_gbyte_per_s >= 250  # the article's floor
    assert design.port_capped and design.wired_port_gbps == 100
    assert "run at 100G" in design.port_note() and "25 GB/s each" in design.port_note()
    assert not any("below the target" in w for w in design.warnings)  # sized, so nothing to warn about


@pytest.mark.parametrize(
    ("frontend", "backend_gbps", "expected"),
    [
        ({"port_gbps": 100}, 400, 100.0),
        ({"port_gbps": 100, "match_storage_ports": True}, 400, 200.0),
        ({"port_gbps": 400}, 400, 400.0),
    ],
)
def test_the_port_speed_storage_plugs_into(frontend: dict, backend_gbps: int, expected: float) -> None:
    scenario = load_scenario({"base": "optimized", "fabric": {"frontend": frontend, "nic_gbps": backend_gbps}})
    assert plugged_port_gbps(scenario, 200) == expected
    on_backend = load_scenario({"base": "optimized", "storage": {"network": "backend"}})
    assert plugged_port_gbps(on_backend, 200) == 400.0


def test_a_port_as_fast_as_the_nic_caps_nothing() -> None:
    assert port_capped(DIST, None) is DIST
    assert port_capped(DIST, 400) is DIST
    slow = port_capped(DIST, 100)
    assert slow.port_gbps == 100 and slow.server_read_gbyte_per_s == min(DIST.read_gbyte_per_s, 25)


def test_the_model_evaluates_the_capped_storage_and_its_ports() -> None:
    r = neoplan.evaluate(load_scenario("optimized"))
    assert r.storage.servers == 11 and r.fabric.frontend.storage_ports == 22
    fast = neoplan.evaluate(load_scenario({"base": "optimized", "fabric": {"frontend": {"match_storage_ports": True}}}))
    assert fast.storage.servers == 8 and fast.fabric.frontend.switch_gbps == 200
    assert fast.fabric.frontend.storage_port_gbps == 200


def test_racks_hold_the_servers_with_space_left() -> None:
    design = sized()
    assert design.racks == 1
    assert design.rack_units == 16
    assert design.free_rack_units == 38 - 16
    assert design.power_kw == pytest.approx(8 * DIST.power_kw)


def test_zero_capacity_means_no_storage() -> None:
    design = sized(usable_pb=0)
    assert design.servers == design.drives == design.racks == 0
    assert design.capex_usd == 0
    assert any("no shared storage" in w for w in design.warnings)


def test_explicit_server_model() -> None:
    design = size_storage(Storage(), BOOK, gpus=1024, rack_power_kw=41, server_model="nvme_1u10_dist")
    assert design.model.rack_units == 1
    assert design.installed_net_tb >= 2000
    assert design.drives_per_server <= design.model.drive_bays


# --- bad inputs ---------------------------------------------------------------------------------


def test_negative_capacity_is_rejected_naming_the_field() -> None:
    with pytest.raises(ValueError, match="usable_pb"):
        Storage(usable_pb=-1)
    unchecked = Storage.model_construct(**{**Storage().model_dump(), "usable_pb": -1.0})
    with pytest.raises(ValueError, match=r"storage\.usable_pb must be ≥ 0"):
        size_storage(unchecked, BOOK, gpus=1024, rack_power_kw=41)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"bytes_per_param": 0}, "bytes_per_param"),
        ({"rack_power_kw": 0}, "facility.rack_power_kw"),
        ({"gpus": -8}, "cluster.gpus"),
        ({"server_model": "nope"}, "storage.server_model"),
        ({"server_model": "nfs_2u24"}, "storage.server_model"),
    ],
)
def test_bad_arguments_name_the_field(kwargs: dict[str, object], field: str) -> None:
    args: dict[str, object] = {"gpus": 1024, "rack_power_kw": 41.0, **kwargs}
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        size_storage(Storage(), BOOK, **args)  # type: ignore[arg-type]


def test_catalogue_prices_exist_in_the_book() -> None:
    for model in CATALOGUE.values():
        assert model.server_price_key in BOOK
        assert model.drive_price_key in BOOK
    for vendor_class in ("licensed", "self_built"):
        assert pick_model(CATALOGUE, vendor_class).default


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    usable_pb=st.floats(0.01, 40),
    servers=st.integers(1, 512),
    target=st.floats(0, 20),
    min_servers=st.integers(1, 32),
    vendor_class=st.sampled_from(["licensed", "self_built"]),
    network=st.sampled_from(["frontend", "backend"]),
)
def test_sizing_invariants(
    usable_pb: float, servers: int, target: float, min_servers: int, vendor_class: str, network: str
) -> None:
    storage = Storage(
        usable_pb=usable_pb,
        target_gbps_per_gpu=target,
        min_servers=min_servers,
        vendor_class=vendor_class,
        network=network,
    )
    design = size_storage(storage, BOOK, gpus=servers * 8, rack_power_kw=41)
    assert design.servers >= min_servers
    assert design.installed_net_tb >= design.usable_tb - 1e-6
    assert design.max_net_tb >= design.installed_net_tb - 1e-6
    assert design.drives_per_server <= design.model.drive_bays
    assert design.free_bays >= 0
    assert design.meets_target
    assert design.free_rack_units >= 0
    assert design.racks * 41 >= design.power_kw - 1e-9
    assert design.frontend_ports + design.backend_ports == design.servers * design.model.network_ports
    assert design.capex_usd == pytest.approx(total_usd(list(design.lines)))
    numbers = [design.capex_usd, design.read_gbyte_per_s, design.checkpoint_write_s, design.net_efficiency]
    assert all(math.isfinite(x) and x >= 0 for x in numbers)


@settings(max_examples=40, deadline=None)
@given(a=st.floats(0.01, 20), b=st.floats(0.01, 20))
def test_more_capacity_never_costs_less(a: float, b: float) -> None:
    small, large = sorted((a, b))
    d_small, d_large = sized(usable_pb=small), sized(usable_pb=large)
    assert d_large.servers >= d_small.servers
    assert d_large.capex_usd >= d_small.capex_usd - 1e-6


def test_front_end_bandwidth_per_gpu_counts_the_tray_of_a_rack_scale_system() -> None:
    """An NVL72 rack's front-end ports are per compute tray (4 GPUs), not per 72-GPU node."""
    nvl = load_scenario(
        {
            "base": "optimized",
            "prices_as_of": "2026-11",
            "facility": {"rack_power_kw": 140},
            "cluster": {"gpus": 1296, "gpu_model": "gb200-nvl72", "gpus_per_node": 72},
            "storage": {"target_gbps_per_gpu": 20},
        }
    )
    assert gpus_per_frontend_unit(nvl) == 4
    design = design_storage(nvl, BOOK)  # 2 × 100 GbE per tray = 50 Gbit/s per GPU ≥ 20
    assert not any("front-end bandwidth" in w for w in design.warnings)
    assert gpus_per_frontend_unit(load_scenario("optimized")) == 8
