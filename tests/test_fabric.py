"""Tests of neoplan.design.fabric: reference values (BRIEF.md §2.3, §5), invariants, properties, errors."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import neoplan
from neoplan.design.costs import CAPEX_CATEGORIES, total_usd
from neoplan.design.fabric import (
    DESIGN_CHOICES,
    FabricError,
    backend_lines,
    cabled_servers,
    catalogue_item,
    default_network_catalogue,
    design_fabric,
    design_options,
    fat_tree,
    frontend_lines,
    size_backend,
    size_frontend,
    size_oob,
    topology_picture,
    with_scenario_design,
)
from neoplan.inputs.loading import scenario_from_dict
from neoplan.inputs.pricebook import default_price_book, price_book

BOOK = default_price_book()
CAT = default_network_catalogue()
RADIX = CAT["qm9700"].radix


def scenario(**sections):
    """A scenario on the reference preset with section overrides."""
    return scenario_from_dict({"base": "reference", **sections})


def backend_capex(servers: int = 128, **kw) -> float:
    return total_usd(backend_lines(size_backend(servers, **kw), BOOK))


# --- reference values -----------------------------------------------------------------------------


@pytest.mark.parametrize("topology", ["reference", "vms", "tor"])
def test_1024_gpus_non_blocking_has_32_leaves_and_16_spines(topology):
    b = size_backend(128, topology=topology, oversubscription=1.0)
    assert (b.leaf_switches, b.spine_switches, b.core_switches, b.tiers) == (32, 16, 0, 2)
    assert b.endpoints == 1024
    assert b.links_leaf_spine == 1024
    assert b.leaf_spine_links_per_pair == 2  # each leaf: 2 links to each of 16 spines


def test_1024_gpus_at_2_to_1_has_8_spines():
    b = size_backend(128, topology="vms", oversubscription=2.0)
    assert (b.leaf_switches, b.spine_switches) == (32, 8)
    assert b.leaf_uplinks == 16
    assert b.links_leaf_spine == 512


def test_1024_gpu_bill_of_materials_matches_the_article_structure():
    ref = size_backend(128, topology="reference")
    assert ref.transceivers_by_type == {"server_optic": 1024, "switch_optic": 1536}
    assert ref.cables_by_medium == {"fibre": 2048, "dac": 0, "dac_splitter": 0, "acc": 0}
    vms = size_backend(128, topology="vms")
    assert vms.transceivers_by_type == {"server_optic": 1024, "switch_optic": 512}
    assert vms.cables_by_medium == {"fibre": 1024, "dac": 512, "dac_splitter": 0, "acc": 0}
    vms2 = size_backend(128, topology="vms", oversubscription=2.0)
    assert vms2.leaf_switches + vms2.spine_switches == 40
    assert vms2.cables_by_medium["dac"] == 256
    tor = size_backend(128, topology="tor")
    assert tor.transceivers_by_type == {"server_optic": 0, "switch_optic": 1024}
    assert tor.cables_by_medium == {"fibre": 1024, "dac": 0, "dac_splitter": 512, "acc": 0}
    assert tor.network_racks < ref.network_racks  # ToR leaves live in the compute racks


@pytest.mark.parametrize(
    ("topology", "oversubscription", "target"),
    [("tor", 1.0, -0.348), ("vms", 1.0, -0.249), ("vms", 2.0, -0.316)],
)
def test_backend_savings_vs_reference_match_the_article(topology, oversubscription, target):
    ref = backend_capex(topology="reference")
    cost = backend_capex(topology=topology, oversubscription=oversubscription)
    assert cost / ref - 1 == pytest.approx(target, abs=0.010)


def test_reference_backend_per_server_is_in_the_intended_band():
    per_server = backend_capex(topology="reference") / 128
    # keeps the cluster-level $318k / $283k per server reachable ($40.1k since the wave-3 optics re-fit)
    assert 35_000 <= per_server <= 41_000


def test_modular_costs_more_than_vms_and_less_than_reference_at_1024():
    ref, vms, mod = (backend_capex(topology=t) for t in ("reference", "vms", "modular"))
    assert vms < mod < ref
    b = size_backend(128, topology="modular")
    assert (b.chassis, b.leaf_switches, b.spine_switches, b.liquid_cooled) == (1, 0, 0, True)


def test_acc_costs_more_than_dac_in_vms():
    assert backend_capex(topology="vms", leaf_spine_cable="acc") > backend_capex(topology="vms")
    b = size_backend(128, topology="vms", leaf_spine_cable="acc")
    assert b.cables_by_medium["acc"] == 512 and b.cables_by_medium["dac"] == 0


def test_prices_used_for_the_calibration_are_marked_fitted():
    for key in (
        "xcvr_ndr_osfp_400g_server",
        "xcvr_ndr_osfp_800g_twin",
        "dac_ndr_800g_twin",
        "dac_ndr_800g_splitter_2x400g",
    ):
        assert BOOK.row(key).basis == "fitted"
        assert "SemiAnalysis" in BOOK.row(key).source
    assert BOOK.row("ib_switch_qm9700").basis == "quoted"
    assert 36_000 <= BOOK.price("ib_switch_qm9700") <= 50_000  # BRIEF.md §3 public range


def test_every_catalogue_price_key_is_in_the_price_book():
    for item in CAT.values():
        assert item.price_key in BOOK, item.key
        assert BOOK.row(item.price_key).category in CAPEX_CATEGORIES


def test_switch_side_optic_is_twin_port_and_server_side_single():
    assert catalogue_item(CAT, role="switch_optic", family="ndr").links_per_unit == 2
    assert catalogue_item(CAT, role="server_optic", family="ndr").links_per_unit == 1
    assert CAT["qm9700"].radix == 64 and CAT["qm9700"].port_gbps == 400
    assert CAT["cs9500"].radix == 2048 and CAT["cs9500"].cooling == "liquid"
    assert CAT["q3400"].port_gbps == 800


# --- the whole fabric of the presets --------------------------------------------------------------


def test_design_fabric_reference_preset():
    d = design_fabric(scenario(), BOOK, frontend_extra_ports=22, oob_extra_ports=11)
    assert d.backend.leaf_switches == 32 and d.backend.spine_switches == 16
    assert d.capex_usd() == pytest.approx(sum(ln.total_usd for ln in d.lines))
    assert {ln.category for ln in d.lines} == {"backend_network", "frontend_network", "oob_network", "management"}
    ufm = [ln for ln in d.lines if ln.key == "ufm_licence_per_endpoint"]
    assert len(ufm) == 1 and ufm[0].quantity == 1024 and ufm[0].category == "management"
    assert d.frontend.gbps_per_gpu == 50 and d.frontend.switch_class == "spectrum"
    summary = d.to_dict()["backend"]
    for key in ("leaf_switches", "spine_switches", "core_switches", "transceivers", "cables", "capex_usd"):
        assert key in summary
    assert summary["capex_usd"] == pytest.approx(d.capex_usd("backend_network"))
    assert d.power_kw["backend"] > d.power_kw["frontend"] > d.power_kw["oob"] > 0


def test_optimized_preset_is_cheaper_in_every_network():
    ref = design_fabric(scenario(), BOOK, frontend_extra_ports=22)
    opt = design_fabric(scenario_from_dict({"base": "optimized"}), BOOK, frontend_extra_ports=22)
    for cat in ("backend_network", "frontend_network", "oob_network"):
        assert opt.capex_usd(cat) < ref.capex_usd(cat), cat
    assert opt.backend.spine_switches == 8
    assert opt.frontend.gbps_per_gpu == 25
    # the Spectrum 2x200G front end is a meaningful premium over generic 2x100G
    assert ref.capex_usd("frontend_network") > 2.5 * opt.capex_usd("frontend_network")


def test_opensm_drops_ufm_licences_and_warns_above_2048_gpus():
    small = design_fabric(scenario(fabric={"subnet_manager": "opensm"}), BOOK)
    assert small.capex_usd("management") == 0 and small.warnings == []
    big = design_fabric(scenario(cluster={"gpus": 4096}, fabric={"subnet_manager": "opensm"}), BOOK)
    assert any("UFM is a hard requirement" in w for w in big.warnings)


def test_hot_spares_are_cabled():
    assert cabled_servers(128, 0.05) == 135
    d = design_fabric(scenario(cluster={"hot_spare_share": 0.05}), BOOK)
    assert d.backend.endpoints == 135 * 8
    assert d.oob.bmc_ports == 135


def test_partial_last_su_gets_full_leaves_sized_for_a_full_su():
    b = size_backend(125, topology="reference")  # 1,000 GPUs: 3 full SUs + one of 29 servers
    assert b.scalable_units == 4 and b.leaf_switches == 32 and b.spine_switches == 16
    assert b.endpoints == 1000 and b.leaf_uplinks == 32
    assert b.transceivers_by_type["server_optic"] == 1000


def test_small_cluster_is_one_su_of_its_size():
    b = size_backend(16, topology="reference")  # 128 GPUs: 128 NICs do not fit on one 64-port switch
    assert b.leaf_switches == 8 and b.leaf_downlinks == 16
    assert b.spine_switches * b.leaf_spine_links_per_pair == b.leaf_uplinks == 16


@pytest.mark.parametrize("topology", ["reference", "vms", "modular", "spectrum_x"])
@pytest.mark.parametrize("oversubscription", [1.0, 2.0])
def test_a_cluster_whose_nics_fit_on_one_switch_gets_one_switch(topology, oversubscription):
    """4 servers × 8 NICs = 32 endpoints: one leaf, no rails, no spines (not 8 rail leaves + a spine)."""
    b = size_backend(4, topology=topology, oversubscription=oversubscription)
    if topology == "modular":
        assert (b.leaf_switches, b.chassis) == (0, 1)
        return
    assert (b.leaf_switches, b.spine_switches, b.tiers) == (1, 0, 1)
    assert b.links_leaf_spine == 0 and b.transceivers_by_type["server_optic"] == 32
    assert b.transceivers_by_type["switch_optic"] == 16  # 32 ports in twin-port modules
    eight = size_backend(8, topology=topology, oversubscription=oversubscription)  # 64 NICs = a full QM9700
    assert eight.leaf_switches == 1
    assert size_backend(9, topology="reference").leaf_switches == 8  # 72 NICs: rail leaves again


def test_third_tier_beyond_2048_endpoints():
    two = size_backend(256, topology="reference")
    three = size_backend(257, topology="reference")
    assert (two.tiers, two.leaf_switches, two.spine_switches) == (2, 64, 32)
    assert three.tiers == 3 and three.core_switches > 0


@pytest.mark.parametrize("base", ["reference", "optimized"])
def test_100k_gpus_work_with_a_tapered_core_and_a_warning(base):
    d = design_fabric(scenario_from_dict({"base": base, "cluster": {"gpus": 100_000}}), BOOK, frontend_extra_ports=200)
    b = d.backend
    assert b.tiers == 3 and b.endpoints == 100_000
    assert b.switch_ports_used <= b.switch_ports_available
    assert b.spine_taper > 1 and any("tapered" in w for w in d.warnings)
    assert math.isfinite(d.capex_usd())


def test_xdr_fabric_uses_800g_switch_and_optics():
    b = size_backend(128, topology="reference", nic_gbps=800, switch_model="q3400")
    assert b.leaf_switches == 32  # rail-optimized: still one leaf per rail per SU
    assert b.spine_switches * b.leaf_spine_links_per_pair == b.leaf_uplinks
    keys = {ln.key for ln in backend_lines(b, BOOK)}
    assert {"ib_switch_q3400", "xcvr_xdr_osfp_800g_server", "xcvr_xdr_osfp_1600g_twin"} <= keys


def test_frontend_counts_and_extra_ports():
    fe = size_frontend(128, ports_per_node=2, port_gbps=100, switch_class="generic")
    more = size_frontend(128, ports_per_node=2, port_gbps=100, switch_class="generic", extra_ports=40)
    assert fe.endpoints == 256 and more.endpoints == 296
    assert more.leaf_switches >= fe.leaf_switches
    assert fe.transceivers == 2 * fe.cables
    assert fe.cables == fe.links_server_leaf + fe.links_leaf_spine + fe.links_spine_core
    tiny = size_frontend(4, ports_per_node=2, port_gbps=100, switch_class="generic")
    assert (tiny.leaf_switches, tiny.spine_switches) == (1, 0)


def test_oob_has_a_port_per_bmc_switch_and_pdu():
    oob = size_oob(bmcs=139, managed_switches=90, pdus=76, switch_class="generic")
    assert oob.ports == 305 and oob.patch_cords == 305
    assert oob.access_switches == math.ceil(305 / 48)
    assert oob.aggregation_switches == 2 and oob.uplink_cables == 2 * oob.access_switches
    d_ref = design_fabric(scenario(), BOOK)
    d_gen = design_fabric(scenario(fabric={"oob": {"switch_class": "generic"}}), BOOK)
    assert d_ref.oob.ports == d_gen.oob.ports
    assert d_gen.capex_usd("oob_network") < d_ref.capex_usd("oob_network")


# --- trade-offs and picture -----------------------------------------------------------------------


def test_design_options_at_1024():
    opts = {o.name: o for o in design_options(scenario(), BOOK)}
    assert list(opts) == [name for name, *_ in DESIGN_CHOICES]
    assert opts["reference"].delta_vs_reference == 0
    assert opts["vms_2to1"].spine_switches == 8 and opts["vms"].spine_switches == 16
    assert opts["vms_2to1"].spine_gbps_per_gpu == pytest.approx(opts["vms"].spine_gbps_per_gpu / 2)
    assert opts["vms_2to1"].capex_usd < opts["vms"].capex_usd < opts["reference"].capex_usd
    assert opts["modular"].liquid_cooled and not opts["vms"].liquid_cooled
    assert any("multi-tenant" in c for c in opts["tor"].caveats)
    assert all(o.feasible for o in opts.values())


def test_design_options_flag_four_nics_and_infeasible_modular():
    opts = {o.name: o for o in design_options(scenario(cluster={"gpus": 100_000}, fabric={"nics_per_node": 4}), BOOK)}
    assert all(any("halve" in c for c in o.caveats) for o in opts.values())
    assert opts["reference"].injection_gbps_per_gpu == 200
    assert opts["modular"].feasible  # 50,000 endpoints fit under 2,048-port chassis spines
    opts8 = {o.name: o for o in design_options(scenario(cluster={"gpus": 100_000}), BOOK)}
    assert not opts8["modular"].feasible and "modular" in opts8["modular"].error
    assert opts8["vms_2to1"].feasible


@pytest.mark.parametrize("gpus", [32, 64, 1024, 4096])
@pytest.mark.parametrize("topology", ["reference", "tor", "modular", "spectrum_x"])
def test_topology_picture_is_consistent(gpus, topology):
    b = size_backend(gpus // 8, topology=topology)
    pic = topology_picture(b, max_per_tier=12, servers_shown=4)
    ids = {n["id"] for n in pic["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids for e in pic["edges"])
    for tier, shown in pic["shown"].items():
        assert sum(n["tier"] == tier for n in pic["nodes"]) == shown <= max(12, 4)
    assert pic["totals"]["leaf"] == b.leaf_switches
    if b.leaf_switches:  # every server shown reaches a leaf with all its NICs (when its leaves are drawn)
        per_server = {}
        for e in pic["edges"]:
            if e["source"].startswith("server"):
                per_server[e["source"]] = per_server.get(e["source"], 0) + e["links"]
        assert per_server and set(per_server.values()) <= set(range(1, b.nics_per_node + 1))
        assert per_server.get("server0") == b.nics_per_node or b.leaf_switches > 12
    assert pic["edges"], "a picture with nodes must show how they connect"


# --- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"oversubscription": 0.5}, "fabric.oversubscription"),
        ({"nic_gbps": 800, "switch_model": "qm9700"}, "fabric.nic_gbps"),
        ({"switch_model": "nope"}, "fabric.switch_model"),
        ({"servers_per_su": 40}, "fabric.servers_per_su"),
        ({"topology": "tor", "servers_per_rack": 8}, "facility.servers_per_rack"),
        ({"topology": "ring"}, "fabric.topology"),
    ],
)
def test_impossible_inputs_name_the_field(kwargs, field):
    with pytest.raises(FabricError, match=field.replace(".", r"\.")):
        size_backend(128, **kwargs)


def test_too_many_gpus_name_the_cluster_field():
    with pytest.raises(FabricError, match=r"cluster\.gpus"):
        size_backend(16_384, topology="reference")  # 131,072 endpoints > 3 tiers of 64 ports at any taper


def test_fat_tree_refuses_an_overfull_leaf():
    with pytest.raises(FabricError, match="ports"):
        fat_tree(8, 48, 1.0, 64)


# --- properties -----------------------------------------------------------------------------------

K3_OVER_4 = RADIX**3 // 4  # non-blocking 3-tier limit [endpoints]

designs = st.sampled_from(
    [
        ("reference", 1.0),
        ("vms", 1.0),
        ("vms", 2.0),
        ("tor", 1.0),
        ("modular", 1.0),
        ("vms", 3.0),
        ("reference", 1.5),
        ("tor", 2.0),
        ("spectrum_x", 1.0),
        ("spectrum_x", 2.0),
    ]
)


def check_invariants(b):
    """Every NIC cabled once; ports fit; every leaf/spine pair and spine/core pair balanced."""
    assert sum(b.server_links_by_medium.values()) == b.endpoints == b.links_server_leaf
    if b.topology == "tor":
        assert b.cables_by_medium["dac_splitter"] * 2 >= b.endpoints
        assert b.cables_by_medium["dac_splitter"] * 2 < b.endpoints + 2 * b.leaf_switches
        assert b.transceivers_by_type["server_optic"] == 0
    else:
        assert b.transceivers_by_type["server_optic"] == b.endpoints
    assert b.switch_ports_used <= b.switch_ports_available
    t = b.tree
    radix = CAT[b.items["switch"]].radix
    if t is not None and t.tiers >= 2:
        spine_radix = CAT["cs9500"].radix if b.chassis else radix
        assert t.leaf_uplinks == t.spines_per_pod * t.leaf_spine_links  # same links to every spine
        assert t.leaf_downlinks + t.leaf_uplinks <= radix
        assert max(t.spine_downlinks()) + t.spine_uplinks <= spine_radix
        assert t.leaf_uplinks * 1.0 >= t.leaf_downlinks / b.oversubscription - 1e-9
        assert b.links_leaf_spine == t.leaves * t.leaf_uplinks == sum(t.spine_downlinks())
    if t is not None and t.tiers == 3:
        assert t.spine_uplinks == t.cores_per_group * t.spine_core_links  # same links to every core
        assert t.core_ports_used <= radix
        assert b.links_spine_core == t.cores * t.core_ports_used
    if t is not None and t.tiers == 2:
        assert t.leaves <= (CAT["cs9500"].radix if b.chassis else radix)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    servers=st.integers(min_value=1, max_value=12_500),
    design=designs,
    nics=st.sampled_from([4, 8]),
    su=st.sampled_from([16, 32]),
)
def test_invariants_hold_for_any_size(servers, design, nics, su):
    topology, os_ratio = design
    try:
        b = size_backend(servers, topology=topology, oversubscription=os_ratio, nics_per_node=nics, servers_per_su=su)
    except FabricError as exc:
        leaves = math.ceil(servers / 4) if topology == "tor" else math.ceil(servers / min(su, servers)) * nics
        assert topology != "spectrum_x" and leaves > RADIX * RADIX // 2, exc  # only beyond 3 tiers of leaves
        assert "cluster.gpus" in str(exc)
        return
    check_invariants(b)
    assert b.endpoints == servers * nics


@settings(max_examples=150, deadline=None)
@given(
    servers=st.integers(min_value=1, max_value=K3_OVER_4 // 16),
    design=designs,
    nics=st.sampled_from([4, 8]),
    su=st.sampled_from([8, 16, 32]),
)
def test_doubling_gpus_never_lowers_any_count(servers, design, nics, su):
    """Up to the non-blocking 3-tier limit; beyond it the spine→core taper trades cores for reach."""
    topology, os_ratio = design
    kw = {"topology": topology, "oversubscription": os_ratio, "nics_per_node": nics, "servers_per_su": su}
    try:
        a = size_backend(servers, **kw)
        b = size_backend(2 * servers, **kw)
    except FabricError:
        assume(False)  # beyond three tiers (small SUs mean many leaves)
    assume(b.spine_taper == 1)
    fields = (
        "leaf_switches",
        "spine_switches",
        "core_switches",
        "links_leaf_spine",
        "links_spine_core",
        "transceivers",
        "cables",
        "network_racks",
        "endpoints",
    )
    if topology == "modular":  # the chassis becomes a spine tier above 2,048 endpoints: compare total boxes
        fields = ("transceivers", "cables", "endpoints", "line_cards")
        assert a.chassis + a.leaf_switches <= b.chassis + b.leaf_switches
    for name in fields:
        assert getattr(b, name) >= getattr(a, name), name
    assert b.power_kw >= a.power_kw
    assert total_usd(backend_lines(b, BOOK)) >= total_usd(backend_lines(a, BOOK))


@settings(max_examples=60, deadline=None)
@given(servers=st.integers(min_value=1, max_value=8192), design=designs)
def test_four_nics_halve_the_backend_endpoints(servers, design):
    topology, os_ratio = design
    eight = size_backend(servers, topology=topology, oversubscription=os_ratio, nics_per_node=8)
    four = size_backend(servers, topology=topology, oversubscription=os_ratio, nics_per_node=4)
    assert four.endpoints * 2 == eight.endpoints
    assert four.injection_gbps_per_gpu * 2 == eight.injection_gbps_per_gpu


@settings(max_examples=40, deadline=None)
@given(
    gpus=st.integers(min_value=1, max_value=4096).map(lambda n: 8 * n),
    topology=st.sampled_from(["reference", "tor", "vms", "modular"]),
    fe=st.sampled_from([(100, "generic"), (200, "spectrum"), (200, "generic"), (400, "spectrum")]),
    oob=st.sampled_from(["generic", "spectrum"]),
)
def test_design_fabric_total_is_the_sum_of_lines(gpus, topology, fe, oob):
    s = scenario(
        cluster={"gpus": gpus},
        fabric={
            "topology": topology,
            "frontend": {"port_gbps": fe[0], "switch_class": fe[1]},
            "oob": {"switch_class": oob},
        },
    )
    d = design_fabric(s, BOOK, frontend_extra_ports=10, oob_extra_ports=5)
    assert d.capex_usd() == pytest.approx(sum(ln.total_usd for ln in d.lines))
    assert all(ln.quantity > 0 and ln.unit_price_usd >= 0 for ln in d.lines)
    assert sum(d.capex_usd(c) for c in CAPEX_CATEGORIES) == pytest.approx(d.capex_usd())
    assert all(math.isfinite(v) and v > 0 for v in d.power_kw.values())
    assert d.oob.ports == d.oob.bmc_ports + d.oob.switch_ports + d.oob.pdu_ports


@pytest.mark.parametrize(
    ("topology", "oversubscription", "expected"), [("vms", 2.0, "vms_2to1"), ("tor", 2.0, "yours")]
)
def test_the_scenarios_own_design_is_among_the_options(topology: str, oversubscription: float, expected: str) -> None:
    """A standard design is named; any other gets an option of its own, priced like the scenario's back end."""
    import neoplan

    s = neoplan.load_scenario(
        {"base": "optimized", "fabric": {"topology": topology, "oversubscription": oversubscription}}
    )
    result = neoplan.evaluate(s)
    options, chosen = with_scenario_design(s, result.fabric.backend, BOOK, design_options(s, BOOK))
    mine = next(o for o in options if o.name == chosen)
    assert chosen == expected
    assert mine.capex_usd == pytest.approx(result.capex_usd["backend_network"], rel=0.02)
    assert mine.spine_switches == result.fabric.backend.spine_switches


# --- issue #15: Spectrum-X, generations, NVL72 per tray, OOB per rack, front-end choices ----------------------------

# NVIDIA DGX SuperPOD B300 Spectrum-4 Ethernet RA (docs.nvidia.com/dgx-superpod/reference-architecture/
# scalable-infrastructure-b300/latest, dgx-superpod-architecture.html, Table 3 "Larger DGX SuperPOD component counts",
# read 2026-12-01): Spectrum-X compute fabric, ConnectX-8 SuperNICs, each GPU 2×400GbE on two planes (network-fabrics
# .html), SU = 64 nodes = 512 GPUs, rail-aligned, 1:1. Leaf + spine switches per size, all two tiers:
SPECTRUM_X_RA = {512: (16, 8), 1024: (32, 16), 2048: (64, 32), 4096: (128, 64), 8192: (256, 128)}


@pytest.mark.parametrize(("gpus", "counts"), sorted(SPECTRUM_X_RA.items()))
def test_spectrum_x_800g_matches_nvidias_multiplane_reference_architecture(gpus, counts):
    b = size_backend(gpus // 8, topology="spectrum_x", nic_gbps=800)
    assert (b.leaf_switches, b.spine_switches, b.core_switches, b.tiers, b.planes) == (*counts, 0, 2, 2)
    assert b.items["switch"] == "sn5600_2x400g" and b.injection_gbps_per_gpu == 800
    assert b.links_server_leaf == 2 * gpus  # 2 × 400G per GPU, one per plane (the RA: "2x 400GbE ... two planes")
    assert b.links_leaf_spine == 2 * gpus  # 1:1: as many 400G uplinks as downlinks (the RA's 800G cables × 2)
    assert b.transceivers_by_type == {"server_optic": gpus, "switch_optic": (2 * gpus + 4 * gpus) // 2}
    assert b.switch_ports_used <= b.switch_ports_available == (b.leaf_switches + b.spine_switches) * 128


@pytest.mark.parametrize(("gpus", "counts"), sorted(SPECTRUM_X_RA.items()))
def test_spectrum_x_400g_is_one_plane_of_the_reference_architecture(gpus, counts):
    """BlueField-3 B3140H (one 400G port per GPU) is one plane of the RA above: half its switches.

    Our SU is 32 nodes with 2 rails per leaf (64 × 400G down, 32 × 800G cages up) where the RA's plane has 64 nodes
    with 1 rail per leaf: the same 64 downlinks per leaf, so the same counts.
    """
    b = size_backend(gpus // 8, topology="spectrum_x")
    assert (b.leaf_switches, b.spine_switches, b.core_switches, b.tiers, b.planes) == (
        counts[0] // 2,
        counts[1] // 2,
        0,
        2,
        1,
    )
    assert b.items["switch"] == "sn5600_2x400g" and b.rails_per_leaf == 2
    assert b.leaf_switches == 4 * b.scalable_units  # 4 leaves per 32-node SU
    assert b.leaf_downlinks == 64 and b.leaf_uplinks == 64  # 64 × 400G = 32 × 800G cages up
    assert b.spine_switches * 64 == b.links_leaf_spine // 2  # each spine: 64 × 800G ports, all used
    assert b.transceivers_by_type == {"server_optic": gpus, "switch_optic": (gpus + 2 * gpus) // 2}
    keys = {ln.key for ln in backend_lines(b, BOOK)}
    assert keys == {"eth_switch_sn5600", "xcvr_spx_400g_qsfp112_server", "xcvr_ndr_osfp_800g_twin", "fibre_mpo12_apc"}


def test_spectrum_x_800g_planes_cost_what_two_400g_planes_cost_but_the_server_optics():
    one, two = size_backend(512, topology="spectrum_x"), size_backend(512, topology="spectrum_x", nic_gbps=800)
    lines_one = {ln.key: ln.quantity for ln in backend_lines(one, BOOK)}
    lines_two = {ln.key: ln.quantity for ln in backend_lines(two, BOOK)}
    assert lines_two.pop("xcvr_xdr_osfp_800g_server") == lines_one.pop("xcvr_spx_400g_qsfp112_server") == 4096
    assert lines_two == {k: 2 * q for k, q in lines_one.items()}
    assert two.switch_power_kw == pytest.approx(2 * one.switch_power_kw)
    assert two.network_racks >= one.network_racks


@pytest.mark.parametrize("servers", [1, 4, 9, 125, 257, 1000, 12_500])
def test_an_800g_spectrum_x_fabric_is_two_400g_planes_at_any_size(servers):
    """Partial SUs, one-switch clusters and three tiers too: every count is twice one 400G plane's."""
    one, two = size_backend(servers, topology="spectrum_x"), size_backend(servers, topology="spectrum_x", nic_gbps=800)
    for name in (
        "leaf_switches",
        "spine_switches",
        "core_switches",
        "links_server_leaf",
        "links_leaf_spine",
        "links_spine_core",
        "switch_ports_available",
        "switch_ports_used",
    ):
        assert getattr(two, name) == 2 * getattr(one, name), name
    assert (two.tiers, two.leaf_downlinks, two.leaf_uplinks) == (one.tiers, one.leaf_downlinks, one.leaf_uplinks)
    assert two.transceivers_by_type["server_optic"] == two.endpoints == servers * 8
    assert two.switch_ports_used <= two.switch_ports_available


def test_a_multiplane_picture_draws_one_plane():
    b = size_backend(128, topology="spectrum_x", nic_gbps=800)  # 2 planes of 16 leaves + 8 spines
    pic = topology_picture(b, max_per_tier=16, servers_shown=4)
    assert pic["planes"] == 2 and pic["totals"]["leaf"] == 32 and pic["totals"]["spine"] == 16
    assert (pic["shown"]["leaf"], pic["shown"]["spine"]) == (16, 8)  # no edge from a leaf to the other plane's spine
    assert all(e["links"] == b.tree.leaf_spine_links for e in pic["edges"] if e["source"].startswith("leaf"))


def test_spectrum_x_in_a_scenario_buys_no_ufm_and_is_among_the_options():
    d = design_fabric(scenario(fabric={"topology": "spectrum_x"}), BOOK)
    assert d.ufm_licences == 0 and d.capex_usd("management") == 0
    assert any("no UFM" in w for w in d.warnings)
    opts = {o.name: o for o in design_options(scenario(), BOOK)}
    sx = opts["spectrum_x"]
    assert sx.feasible and (sx.leaf_switches, sx.spine_switches) == (16, 8)
    assert opts["vms_2to1"].capex_usd < sx.capex_usd < opts["reference"].capex_usd


@pytest.mark.parametrize(
    ("topology", "gbps", "switch"),
    [
        ("reference", 400, "qm9700"),
        ("reference", 800, "q3400"),
        ("spectrum_x", 400, "sn5600_2x400g"),
        ("spectrum_x", 800, "sn5600_2x400g"),  # the SN5600 64×800G run as 2 planes of 400G (multi-plane RA)
    ],
)
def test_the_generation_picks_switch_optics_and_prices_in_both_books(topology, gbps, switch):
    b = size_backend(128, topology=topology, nic_gbps=gbps)
    assert b.items["switch"] == switch and CAT[switch].port_gbps * b.planes == gbps
    assert b.injection_gbps_per_gpu == gbps
    for book in (BOOK, price_book("2026-11")):
        for line in backend_lines(b, book):
            row = book.row(line.key)
            assert row.source and row.date and row.basis in ("quoted", "estimate", "fitted"), line.key


def test_an_infiniband_switch_is_refused_for_spectrum_x_and_back():
    with pytest.raises(FabricError, match=r"fabric\.switch_model 'qm9700' is not a Spectrum-X"):
        size_backend(128, topology="spectrum_x", switch_model="qm9700")
    with pytest.raises(FabricError, match=r"fabric\.switch_model 'sn5600' is not an InfiniBand"):
        size_backend(128, topology="reference", switch_model="sn5600")


def test_2026_book_prices_optics_below_the_2024_book():
    new = price_book("2026-11")
    for key in ("xcvr_ndr_osfp_400g_server", "xcvr_ndr_osfp_800g_twin", "xcvr_xdr_osfp_800g_server"):
        assert new.price(key) < BOOK.price(key), key
        assert new.row(key).date == "2026-11"


def test_twin_port_module_costs_more_than_a_single_port_one():
    """The wave-3 re-fit: 800G twin-port > 400G single-port (was 1.03×); the article's ratios cap it near 1.27×."""
    ratio = BOOK.price("xcvr_ndr_osfp_800g_twin") / BOOK.price("xcvr_ndr_osfp_400g_server")
    assert 1.15 <= ratio <= 1.27


def nvl72(**fabric):
    return scenario_from_dict(
        {
            "base": "optimized",
            "prices_as_of": "2026-11",
            "cluster": {"gpus": 1296, "gpu_model": "gb200-nvl72", "gpus_per_node": 72},
            "facility": {"rack_power_kw": 140},
            "fabric": fabric,
        }
    )


def test_nvl72_scales_out_per_tray_with_rails_by_gpu_index():
    """18 racks × 18 trays × 4 NICs: the back end sees 324 trays of 4 GPUs, one 400G NIC per GPU, 4 rails."""
    d = design_fabric(nvl72(), price_book("2026-11"))
    b = d.backend
    assert (b.servers, b.nics_per_node, b.gpus_per_node, b.endpoints) == (324, 4, 4, 1296)
    assert b.injection_gbps_per_gpu == 400
    assert b.leaf_switches == 4 * b.scalable_units  # one leaf per rail (GPU index in the tray) per SU
    assert b.scalable_units == math.ceil(324 / 32)
    # the out-of-band: one access switch in every NVL72 rack (18 compute + 9 switch-tray BMCs + 2 PDUs = 29 ports)
    assert d.oob.rack_access_switches == 18 and d.oob.racks_per_switch == 1
    assert d.frontend.endpoints >= 324 * 2  # front-end ports per tray


def test_oob_switches_are_placed_by_rack():
    s = scenario()  # 32 compute racks of 4 servers: 4 BMCs + 2 PDUs = 6 ports per rack
    shared = design_fabric(s, BOOK)
    assert shared.oob.racks_per_switch == 8 and shared.oob.rack_access_switches == 4
    per_rack = design_fabric(scenario(fabric={"oob": {"racks_per_switch": 1}}), BOOK)
    assert per_rack.oob.rack_access_switches == 32
    assert per_rack.capex_usd("oob_network") > shared.capex_usd("oob_network")
    with pytest.raises(FabricError, match=r"fabric\.oob\.racks_per_switch"):
        design_fabric(scenario(fabric={"oob": {"racks_per_switch": 9}}), BOOK)  # 9 × 6 = 54 > 48 ports


def test_frontend_oversubscription_and_copper_in_the_rack():
    base = size_frontend(128, ports_per_node=2, port_gbps=100, extra_ports=30)
    over = size_frontend(128, ports_per_node=2, port_gbps=100, extra_ports=30, oversubscription=3.0)
    assert over.spine_switches < base.spine_switches and over.leaf_switches < base.leaf_switches
    assert over.links_leaf_spine < base.links_leaf_spine
    dac = size_frontend(128, ports_per_node=2, port_gbps=100, extra_ports=30, server_cable="dac", servers_per_rack=4)
    assert dac.leaf_switches == 32 + math.ceil(30 / 8)  # a top-of-rack leaf per compute rack (8 ports each)
    assert dac.dac_cables == 256 + 30
    assert dac.network_racks < base.network_racks  # leaves live in the compute racks, only spines in network racks
    assert dac.transceivers == 2 * dac.links_leaf_spine  # optics on the uplinks only
    lines = {ln.item.split(" — ")[0] for ln in frontend_lines(dac, BOOK)}
    assert "Front-end DAC server→ToR" in lines
    with pytest.raises(FabricError, match=r"fabric\.frontend\.server_cable"):
        size_frontend(8, server_cable="twinax")


def test_storage_ports_on_the_front_end_run_at_the_speed_they_are_given():
    same = size_frontend(128, extra_ports=6, storage_ports=22, storage_port_gbps=100)
    assert same.endpoints == 256 + 6 + 22 and same.switch_gbps == 100
    assert same.transceivers_by_speed == {100: 2 * (256 + 6 + 22) + 2 * same.links_leaf_spine}
    fast = size_frontend(128, extra_ports=6, storage_ports=16, storage_port_gbps=200)
    assert fast.switch_gbps == 200 and fast.storage_port_gbps == 200  # 200G-class switches take the 100G servers too
    assert fast.transceivers_by_speed[200] == 2 * 16 + 2 * fast.links_leaf_spine
    assert fast.transceivers_by_speed[100] == 2 * (256 + 6)


def test_top_of_rack_refusal_counts_the_racks_nics_on_nvl72_and_hgx() -> None:
    """A top-of-rack leaf too small is refused with the rack's units × NICs and the fixes that apply."""
    nvl = neoplan.load_scenario({"base": "gb200_nvl72_18rack", "fabric": {"topology": "tor"}})
    refusal = r"^fabric.topology 'tor' puts a rack's 18 × 4 back-end NICs = 72 downlinks"
    with pytest.raises(neoplan.ScenarioError, match=refusal) as err:
        neoplan.evaluate(nvl)
    assert "rail-optimized topology" in str(err.value)
    hgx = neoplan.load_scenario(
        {
            "base": "optimized",
            "fabric": {"topology": "tor", "oversubscription": 1.0},
            "facility": {"servers_per_rack": 8, "rack_power_kw": 100},
        }
    )
    with pytest.raises(neoplan.ScenarioError, match=r"a rack's 8 × 8 back-end NICs = 64 downlinks"):
        neoplan.evaluate(hgx)
