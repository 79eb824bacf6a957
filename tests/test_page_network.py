"""AppTest of the Network page: it runs, and the design choice moves the back-end cost shown."""

from __future__ import annotations

import pytest
from conftest import metric as _metric
from conftest import page_path, run_page
from plotly_support import drawn_charts, traces
from streamlit.testing.v1 import AppTest
from test_user_text import shown  # Markdown as it reads on screen

import neoplan
from neoplan.charts import network
from neoplan.charts.base import PALETTE
from neoplan.design.fabric import backend_lines, design_options, topology_picture, total_usd
from neoplan.formats import pct

PAGE = page_path("network")


def _network_page() -> AppTest:
    # The page on its own (it reads the scenario from session state, the default preset on first run);
    # tests/test_app.py covers it inside the app's navigation once app.py lists it.
    return run_page(PAGE)


def test_network_page_runs_without_errors() -> None:
    at = _network_page()
    assert not at.error, [e.value for e in at.error]
    assert _metric(at, "Spine switches") == "8"  # optimized preset: vms at 2:1, 1,024 GPUs
    assert _metric(at, "Leaf switches") == "32"
    assert drawn_charts(at) == 1  # the design comparison; the topology is drawn when opened
    at.session_state["network.topology_open"] = True
    at.run()
    assert not at.exception and drawn_charts(at) == 2


def test_topology_changes_backend_cost() -> None:
    at = _network_page()
    vms_2to1 = _metric(at, "Back-end capex")
    at.selectbox(key="w.fabric.topology").set_value("reference").run()
    reference = _metric(at, "Back-end capex")
    assert reference != vms_2to1
    at.text_input(key="w.fabric.oversubscription").input(str(1.0)).run()
    assert _metric(at, "Spine switches") == "16"
    at.selectbox(key="w.fabric.topology").set_value("tor").run()
    assert _metric(at, "Back-end capex") not in (reference, vms_2to1)
    assert not at.exception


def test_impossible_fabric_shows_a_clear_error() -> None:
    at = _network_page()
    at.selectbox(key="w.fabric.switch_model").set_value("qm9700").run()
    at.selectbox(key="w.fabric.nic_gbps").set_value(800).run()  # a 400G switch cannot take 800G NICs
    said = [shown(e.value) for e in at.error]  # as it reads on screen (escaped Markdown)
    assert any("Back-end NIC speed [Gbit/s]" in e and "fabric.nic_gbps" not in e for e in said), said  # its label
    assert not at.exception


def test_generation_and_spectrum_x_pick_their_switch() -> None:
    at = _network_page()
    at.selectbox(key="w.fabric.nic_gbps").set_value(800).run()  # auto switch: Quantum-X800
    assert not at.error and _metric(at, "Switch") == "Q3400"  # the model, never the catalogue key
    at.selectbox(key="w.fabric.topology").set_value("spectrum_x").run()
    at.selectbox(key="w.fabric.nic_gbps").set_value(400).run()
    assert not at.error and _metric(at, "Switch") == "SN5600"
    switch = next(m for m in at.metric if m.label == "Switch")
    assert switch.proto.help.startswith("SN5600 · 128×400G: NVIDIA Spectrum-4 SN5600")
    assert _metric(at, "UFM licences") == "0"  # Ethernet: no subnet manager
    assert not at.exception


def _designs(at: AppTest):  # type: ignore[no-untyped-def]
    """The design comparison table (AppTest finds dataframes by order, not key)."""
    for frame in at.dataframe:
        if "Δ vs ref." in frame.value.columns:
            return frame.value
    raise AssertionError("no design comparison table")


def test_comparison_marks_the_chosen_standard_design() -> None:
    at = _network_page()
    table = _designs(at)
    mine = table[table["Design"].str.startswith("➜")]
    assert list(mine["Design"]) == ["➜ VMS 2:1 (yours)"]  # optimized preset: vms at 2:1
    assert len(table) == 6  # the article's five designs and Spectrum-X


def test_comparison_adds_a_design_no_standard_option_matches() -> None:
    at = _network_page()
    at.selectbox(key="w.fabric.topology").set_value("tor").run()
    at.text_input(key="w.fabric.oversubscription").input(str(2.0)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = _designs(at)
    mine = table[table["Design"].str.startswith("➜")]
    assert len(table) == 7 and list(mine["Design"]) == ["➜ Top-of-rack 2:1 (yours)"]
    tor_2to1 = neoplan.evaluate(
        neoplan.load_scenario({"base": "optimized", "fabric": {"topology": "tor", "oversubscription": 2.0}})
    )
    assert mine["Capex"].iloc[0] == pytest.approx(total_usd(backend_lines(tor_2to1.fabric.backend, tor_2to1.book)))
    assert mine["Spines"].iloc[0] == tor_2to1.fabric.backend.spine_switches == int(_metric(at, "Spine switches"))


def test_design_chart_marks_the_chosen_design_and_draws_the_topology() -> None:
    """The capex bars of the feasible designs with Δ vs reference above them, the chosen one in the accent colour
    and its label in bold; the topology draws one line per edge and one square per node, by tier."""
    r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    options = design_options(r.scenario, r.book)
    (bars,) = traces(network.options_figure(options, "vms_2to1"))
    feasible = [o for o in options if o.feasible]
    assert bars["y"] == [o.capex_usd for o in feasible]
    colour = dict(zip(bars["x"], bars["marker"]["color"], strict=True))
    assert colour["<b>VMS 2:1</b><br>your design"] == PALETTE["accent"] and colour["Reference"] == PALETTE["oem"]
    assert colour["Top-of-rack"] == PALETTE["this"]
    assert bars["text"][0] == "baseline" and bars["text"][1:] == [pct(o.delta_vs_reference) for o in feasible[1:]]
    picture = topology_picture(r.fabric.backend, max_per_tier=16)
    lines, *tiers = traces(network.topology_figure(picture))
    assert len(lines["x"]) == 3 * len(picture["edges"])  # each edge from, to, and a gap
    assert sum(len(t["x"]) for t in tiers) == len(picture["nodes"])
    assert [t["name"] for t in tiers] == [
        f"{t}: {picture['shown'][t]:,} of {picture['totals'][t]:,} shown" for t in ("server", "leaf", "spine")
    ]
    assert [t["marker"]["color"] for t in tiers] == [network.TIER_COLOURS[t] for t in ("server", "leaf", "spine")]


def test_fields_of_another_fabric_are_hidden() -> None:
    """Issue 34: InfiniBand-only fields showed under Spectrum-X. Ethernet has no subnet manager (here or on the
    Operations page), only the virtual modular switch has leaf→spine copper to choose, the switch list is the
    fabric's own, and an NVL72 tray's NICs are no choice."""
    at = _network_page()
    keys = {w.key for w in at.selectbox}
    assert {"w.fabric.subnet_manager", "w.fabric.leaf_spine_cable", "w.fabric.nics_per_node"} <= keys  # vms, HGX
    at.selectbox(key="w.fabric.topology").set_value("spectrum_x").run()
    assert not at.exception
    keys = {w.key for w in at.selectbox}
    assert "w.fabric.subnet_manager" not in keys and "w.fabric.leaf_spine_cable" not in keys
    switches = at.selectbox(key="w.fabric.switch_model").options
    assert any("SN5600" in o for o in switches) and not any("QM9700" in o or "Quantum" in o for o in switches)
    at.switch_page(page_path("operations")).run()
    at.session_state["operations.tab"] = "Effect of each choice"
    at.run()
    assert "w.fabric.subnet_manager" not in {w.key for w in at.selectbox}
    assert not any("OpenSM" in str(t.value) for t in at.dataframe)
    nvl72 = neoplan.load_scenario(
        {"base": "optimized", "cluster": {"gpu_model": "gb200-nvl72", "platform_defaults": True}}
    )
    at.session_state["scenario"] = nvl72
    at.switch_page(PAGE).run()
    assert "w.fabric.nics_per_node" not in {w.key for w in at.selectbox}
    assert any("fixed by the tray" in c.value for c in at.caption)
