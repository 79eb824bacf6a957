"""Issue 34: every GPU count a reader sees is the plan as sized (after power sizing, platform defaults and rounding to
whole nodes). A 10 MW GB200 plan of 5,040 GPUs was described as "1,080 GPUs in 15 NVL72 racks" (the report's title
too), and its storage kept the pre-sizing 5 PB where the platform's rule gives about 23 PB.

The property: for random plans sized by GPU count or by power, on any platform, the count in the description, the
CLI summary and JSON, the workbook (KPIs and Assumptions) and the report (description, summary, Assumptions) is
``Result.design``'s, and storage left to the platform's rule is the rule at that count. The app's pages show it
too (AppTest, two fixed plans; the browser journey in tests/test_browser_shape.py walks the 10 MW GB200 plan).
"""

from __future__ import annotations

import html
import io
import re
from typing import Any

import pytest
from conftest import metric, page_path, run_page
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook
from test_export import _rows
from test_user_text import shown  # Markdown as it reads on screen

import neoplan
from neoplan import export as ex
from neoplan.analysis import stress
from neoplan.cli import summary
from neoplan.inputs.platforms import platform_defaults
from neoplan.inputs.pricebook import default_platforms
from ui import format as fmt
from ui.state import SCENARIO

PLATFORMS = default_platforms()
COUNT = re.compile(r"(\d[\d,]*) GPUs in (\d[\d,]*) ")
"""The count a description or a summary line starts with: ``5,040 GPUs in 70 × …`` (GPUs, nodes)."""
SMALL_RUN = stress.Settings(draws=10, grid_points=3)
"""The smallest stress run an export takes (its sheets are not what this test reads)."""


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _counts(text: str) -> tuple[int, int]:
    """(GPUs, nodes) a description or summary says, from its first ``N GPUs in M`` (fails if it has none)."""
    found = COUNT.search(text)
    assert found, f"no GPU count in {text!r}"
    return _number(found.group(1)), _number(found.group(2))


@st.composite
def plans(draw: st.DrawFn) -> dict[str, Any]:
    """A plan on any platform with its defaults: sized by power (0.5–12 MW of IT) or by a count of whole nodes."""
    model = draw(st.sampled_from(sorted(PLATFORMS)))
    cluster: dict[str, Any] = {"gpu_model": model, "platform_defaults": True}
    plan: dict[str, Any] = {"base": "optimized", "cluster": cluster}
    if draw(st.booleans()):
        cluster["size_by"] = "power"
        plan["facility"] = {"it_power_mw": draw(st.integers(5, 120)) / 10}
    else:
        cluster["gpus"] = draw(st.integers(1, 60)) * PLATFORMS[model].gpus_per_node
    return plan


def _expected(result: neoplan.Result) -> tuple[int, int]:
    design = result.design
    assert design.gpus == design.servers * design.platform.gpus_per_node  # whole nodes in service
    return design.gpus, design.servers


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=plans())
def test_every_count_printed_is_the_sized_designs(plan: dict[str, Any]) -> None:
    result = neoplan.evaluate(neoplan.load_scenario(plan))
    gpus, nodes = _expected(result)
    assert (result.gpus, result.to_dict()["gpus"], result.to_dict()["servers"]) == (gpus, gpus, nodes)
    assert _counts(result.scenario.description) == (gpus, nodes)
    line = next(ln for ln in summary(result).splitlines() if ln.startswith("GPUs / servers"))
    assert _counts(line) == (gpus, nodes)
    if result.scenario.storage.usable_pb is None:  # left to the platform's rule: the rule at the sized count
        rule = platform_defaults(result.platform.key)["storage.usable_pb"].for_gpus(gpus)
        assert result.storage.usable_pb == pytest.approx(rule, abs=1e-9)
    kpi_table, input_table = ex.kpi_table(result), ex.input_table(result)  # the workbook's KPIs and Assumptions
    kpis = dict(zip(kpi_table["key"], kpi_table["value"], strict=True))
    inputs = {(r["section"], r["field"]): r["value"] for r in input_table.to_dict("records")}
    assert (kpis["gpus"], kpis["servers"], inputs[("cluster", "gpus")]) == (gpus, nodes, gpus)
    assert _counts(str(inputs[("scenario", "description")])) == (gpus, nodes)
    _report_says(ex.html_report(result, ex.stress_run(result, SMALL_RUN)), result)


def _report_says(report: str, result: neoplan.Result) -> None:
    """The report's description under its title, its summary's first line and its Assumptions give the sized count."""
    gpus, nodes = _expected(result)
    page = html.unescape(report)
    head = page[page.index("<h1>") : page.index("<section>")]
    assert _counts(head.split("<p>", 1)[1]) == (gpus, nodes)  # the description under the title
    unit = "racks" if result.platform.rack_scale else "servers"
    assert f"<li>{gpus:,} × {result.platform.name} GPUs in {nodes:,} {unit}" in head  # the summary's first line
    assert f'<td>gpus</td><td class="num">{gpus:,}</td>' in page.replace(" ", " ")  # Assumptions


def test_a_10_mw_gb200_plan_is_described_and_stored_as_sized() -> None:
    """The issue's plan: switched to GB200 at 1,024 GPUs (1,080 after rounding), then sized to 10 MW."""
    plan = {
        "base": "optimized",
        "cluster": {"gpu_model": "gb200-nvl72", "platform_defaults": True, "size_by": "power"},
        "facility": {"it_power_mw": 10},
    }
    result = neoplan.evaluate(neoplan.load_scenario(plan))
    assert (result.gpus, result.servers) == (5040, 70)
    assert result.scenario.description.startswith("5,040 GPUs in 70 × NVIDIA GB200 NVL72 rack")
    assert "sized to 10 MW of IT power" in result.scenario.description
    assert neoplan.load_scenario(plan).description.startswith("NVIDIA GB200 NVL72 rack")  # no count before sizing
    assert result.storage.usable_pb == pytest.approx(9.8)  # 2 PB per 1,024 GPUs × 5,040 (9.84), not 2.1 PB (× 1,080)
    run = ex.stress_run(result, SMALL_RUN)
    book = load_workbook(io.BytesIO(ex.workbook_bytes(result, run)))
    kpis = {r["key"]: r["value"] for r in _rows(book["KPIs"])}
    inputs = {(r["section"], r["field"]): r["value"] for r in _rows(book["Assumptions"])}
    assert (kpis["gpus"], kpis["servers"], kpis["storage.usable_pb"], inputs[("cluster", "gpus")]) == (
        5040,
        70,
        pytest.approx(9.8),
        5040,
    )
    assert str(inputs[("scenario", "description")]).startswith("5,040 GPUs in 70 ×")
    _report_says(ex.html_report(result, run), result)
    assert "9.8 PB usable storage" in ex.html_report(result, run)


POWER_PLAN = """name: Ten megawatts
base: optimized
cluster: {gpu_model: gb200-nvl72, platform_defaults: true, size_by: power}
facility: {it_power_mw: 10}
"""


@pytest.mark.parametrize("plan", ["power", "count"])
def test_the_app_shows_the_sized_count(plan: str) -> None:
    """Overview (description and cards), Compute node, Storage & site and Results (the header's description, which
    AppTest does not redraw after the first run, in the browser journey)."""
    text = POWER_PLAN if plan == "power" else "name: Count\nbase: optimized\ncluster: {gpus: 2048}\n"
    scenario = neoplan.parse_scenario(text)
    result = neoplan.evaluate(scenario)
    at = run_page(page_path("app"))
    at.session_state[SCENARIO] = scenario
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    said = " ".join(shown(m.value) for m in at.markdown)
    assert _counts(said) == (result.gpus, result.servers)
    assert metric(at, "GPUs") == fmt.count(result.gpus)
    at.switch_page(page_path("compute_node")).run()
    boxes = [t.value for t in at.text_input if t.label == "GPUs in the cluster"]
    assert boxes == [fmt.count(result.gpus)], boxes
    at.switch_page(page_path("storage_site")).run()
    assert not at.exception
    if plan == "power":
        rule = [shown(c.value) for c in at.caption if "PB per 1,024 GPUs for" in c.value]
        assert rule == [f"{result.storage.usable_pb:,.1f} PB: the platform's 2 PB per 1,024 GPUs for 5,040 GPUs."]
    at.switch_page(page_path("results")).run()
    assert any(f"{result.gpus:,} GPUs at" in shown(c.value) for c in at.caption)
