"""AppTest of the Overview's plan-from-power entry: the toggle and the MW envelope size the design."""

from __future__ import annotations

import math

from conftest import metric, page_path, run_page
from test_user_text import shown  # Markdown as it reads on screen

import neoplan
from ui import format as fmt
from ui.state import SCENARIO

PAGE = page_path("app")  # Overview is the landing page; its "Explain" links need the navigation


def test_plan_from_power_sizes_the_cluster_to_the_envelope(optimized: neoplan.Result) -> None:
    at = run_page(PAGE)
    assert at.text_input(key="w.facility.it_power_mw").disabled
    at.toggle(key="w.cluster.size_by").set_value(True).run()
    scenario = at.session_state[SCENARIO]
    assert scenario.cluster.size_by == "power"
    start_mw = math.ceil(optimized.facility.it_peak_mw * 10) / 10  # the 1,024-GPU design's peak, rounded up
    assert scenario.facility.it_power_mw == start_mw == 1.4
    assert neoplan.evaluate(scenario).gpus >= 1024
    at.text_input(key="w.facility.it_power_mw").input("10.0").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ten = neoplan.evaluate(at.session_state[SCENARIO])
    assert ten.gpus == 7288
    assert metric(at, "GPUs") == fmt.count(ten.gpus)
    assert metric(at, "Envelope left") == fmt.kw(ten.to_dict()["it_power_left_kw"])
    assert metric(at, "Revenue per MW-year") == fmt.usd(ten.revenue_usd_per_mw_year)
    assert metric(at, "Tokens per MW") == fmt.tokens_per_second(ten.tokens_per_second_per_mw)
    assert any("kW unused" in c.value for c in at.caption)
    at.toggle(key="w.cluster.size_by").set_value(False).run()
    back = at.session_state[SCENARIO]
    assert (back.cluster.size_by, back.cluster.gpus) == ("gpus", 7288)  # the plan keeps the count it found


def test_an_envelope_too_small_shows_an_error_next_to_the_field() -> None:
    at = run_page(PAGE)
    at.toggle(key="w.cluster.size_by").set_value(True).run()
    at.text_input(key="w.facility.it_power_mw").input("0.001").run()
    errors = [shown(e.value) for e in at.error]
    assert any("IT power available [MW] must be between 0.01 and 2,000, got 0.001" in e for e in errors), errors
    assert at.session_state[SCENARIO].facility.it_power_mw == 1.4  # the last good value is kept
