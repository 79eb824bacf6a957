"""A description the user has not written is generated from the plan and stays true as the plan changes; one the
user wrote is kept as written (issue 23: "1,024 H100 … 2:1 virtual modular switch fabric" after the plan became
2,048 B200, saved and exported that way)."""

from __future__ import annotations

import pytest
import yaml
from conftest import page_path, run_page
from streamlit.testing.v1 import AppTest

import neoplan
from neoplan.inputs.loading import parse_scenario
from neoplan.inputs.scenario import describe
from ui.state import SCENARIO

pytestmark = pytest.mark.usefixtures("run_like_the_server")

B200 = {"cluster": {"gpus": 2048, "gpu_model": "b200-sxm"}, "prices_as_of": "2026-11"}


def test_a_preset_describes_its_plan() -> None:
    s = neoplan.load_scenario("optimized")
    assert not s.description_by_user
    assert s.description == describe(s)
    assert s.description.startswith("1,024 GPUs in 128 × NVIDIA HGX H100")
    assert "Virtual modular switch, 2:1, 400G" in s.description and "prices as of 2024-10" in s.description


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"cluster": {"gpus": 2048}}, "2,048 GPUs in 256 ×"),
        (B200, "2,048 GPUs in 256 × NVIDIA HGX B200"),
        (
            {"fabric": {"topology": "spectrum_x", "oversubscription": 1.0}},
            "Spectrum-X Ethernet (SN5600 + SuperNICs), non-blocking",
        ),
        ({"prices_as_of": "2026-11"}, "hardware prices as of 2026-11"),
        ({"node": {"preset": "oem_default"}}, "OEM default BoM"),
        ({"fabric": {"nic_gbps": 800}}, ", 800G"),
    ],
)
def test_the_generated_description_follows_the_plan(change: dict, says: str) -> None:
    s = neoplan.load_scenario({"base": "optimized", **change})
    assert says in s.description and s.description == describe(s)


def test_nvl72_is_counted_in_racks_and_trays() -> None:
    s = neoplan.load_scenario("gb200_nvl72_18rack")
    assert (
        s.description.startswith("1,296 GPUs in 18 × NVIDIA GB200 NVL72 rack") and "324 compute trays" in s.description
    )
    assert "server" not in s.description


def test_a_description_the_user_wrote_is_kept_as_the_plan_changes() -> None:
    s = neoplan.load_scenario({"base": "optimized", "description": "Our first cluster, for the Series A deck."})
    assert s.description_by_user
    again = neoplan.load_scenario({**s.model_dump(mode="json"), **B200})
    assert again.description == "Our first cluster, for the Series A deck."


def test_a_saved_generated_description_is_regenerated_from_the_file() -> None:
    """A saved file holds the description it had; edited by hand to 2,048 B200, it reads true again on load."""
    text = neoplan.load_scenario("optimized").to_yaml()
    assert "description_by_user: false" in text
    edited = text.replace("gpus: 1024", "gpus: 2048").replace("gpu_model: h100-sxm", "gpu_model: b200-sxm")
    edited = edited.replace("prices_as_of: 2024-10", "prices_as_of: 2026-11").replace(
        "prices_as_of: '2024-10'", "prices_as_of: '2026-11'"
    )
    s = parse_scenario(edited, "plan.yaml")
    assert s.cluster.gpus == 2048 and s.description.startswith("2,048 GPUs in 256 × NVIDIA HGX B200")
    assert "H100" not in s.description


def test_the_exports_carry_the_true_description() -> None:
    result = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", **B200}))
    assert yaml.safe_load(result.scenario.to_yaml())["description"].startswith("2,048 GPUs in 256 × NVIDIA HGX B200")
    from neoplan.export import html_report

    assert "2,048 GPUs in 256 × NVIDIA HGX B200" in html_report(result)


# --- in the app: the header's Details -------------------------------------------------------------------------


def _app() -> AppTest:
    return run_page(page_path("app"), 120)


def _key(at: AppTest, prefix: str) -> str:
    return next(w.key for w in [*at.text_input, *at.text_area] if w.key and w.key.startswith(prefix))


def test_the_name_and_description_are_edited_in_the_header() -> None:
    at = _app()
    at.text_input(key=_key(at, "header.name.")).input("Founder plan").run()
    assert at.session_state[SCENARIO].name == "Founder plan"
    assert any("Founder plan" in m.value for m in at.markdown)
    at.text_area(key=_key(at, "header.description.")).input("For the board, March.").run()
    s = at.session_state[SCENARIO]
    assert (s.description, s.description_by_user) == ("For the board, March.", True)
    at.text_area(key=_key(at, "header.description.")).input("").run()  # emptied: generated again
    s = at.session_state[SCENARIO]
    assert not s.description_by_user and s.description == describe(s)
    at.text_input(key=_key(at, "header.name.")).input("   ").run()
    assert at.session_state[SCENARIO].name == "Founder plan"
    assert any("name: enter a name" in e.value.replace("\\", "") for e in at.error)


def test_the_overview_description_follows_an_edit() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.cluster.gpus").input("2,048").run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert any("2,048 GPUs in 256" in m.value.replace("\\", "") for m in at.markdown)
