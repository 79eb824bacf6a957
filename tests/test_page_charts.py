"""Every chart of the pages is a valid Vega-Lite spec in the house style (neoplan.charts.spec), including the
branches for a debt-free plan and a short Monte Carlo."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from vega_support import assert_valid_spec

import neoplan
from neoplan.analysis import stress
from neoplan.charts import base, compare, finance, network, site, spec
from neoplan.charts import quote as quote_charts
from neoplan.charts import stress as stress_charts
from neoplan.design.fabric import design_options, topology_picture
from neoplan.quote import read_quote_file, review_quote

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def figures() -> dict[str, Callable[[], spec.Spec]]:
    """Every chart builder with its inputs (the optimized preset, and a debt-free variant for the DSCR branch)."""
    r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    no_debt = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "financing": {"debt_share": 0.0}}))
    ref = neoplan.evaluate(neoplan.load_scenario("reference"))
    mc = stress.monte_carlo(r, draws=300, seed=1)
    options = design_options(r.scenario, r.book)
    out: dict[str, Callable[[], spec.Spec]] = {
        "node_bom": lambda: base.node_bom_figure(r),
        "capex": lambda: base.capex_figure(r),
        "compare_capex": lambda: compare.capex_compare_figure({"a": r, "b": ref}),
        "compare_tco": lambda: compare.tco_compare_figure({"a": r, "b": ref}),
        "compare_cash": lambda: compare.cumulative_cash_compare_figure({"a": r, "b": ref}),
        "debt_no_debt": lambda: finance.debt_figure(no_debt),
        "timeline_no_debt": lambda: finance.timeline_figure(no_debt),
        "options": lambda: network.options_figure(options, "vms_2to1"),
        "topology": lambda: network.topology_figure(topology_picture(r.fabric.backend, max_per_tier=16)),
        "tornado": lambda: stress_charts.tornado_figure(stress.tornado(r), "npv_usd"),
        "grid": lambda: stress_charts.grid_figure(stress.grid(r, points=5), "equity_irr"),
        "histogram": lambda: stress_charts.histogram_figure(mc, "payback_months"),
        "cdf": lambda: stress_charts.cdf_figure(mc, "equity_irr"),
    }
    for name in (
        "tco_figure",
        "cash_flow_figure",
        "irr_vs_price_figure",
        "debt_figure",
        "margin_figure",
        "revenue_mix_figure",
        "timeline_figure",
    ):
        out[name] = lambda fn=finance.__dict__[name]: fn(r)
    review = review_quote(read_quote_file(ROOT / "data" / "quotes" / "oem_padded_1024_h100.xlsx"))
    out["quote_vs_recommended"] = lambda: quote_charts.quote_vs_recommended_figure(review)
    out["quote_findings"] = lambda: quote_charts.findings_figure(review)
    for name in (
        "capex_waterfall_figure",
        "capex_treemap_figure",
        "opex_by_year_figure",
        "power_figure",
        "storage_throughput_figure",
    ):
        out[name] = lambda fn=site.__dict__[name]: fn(r)
    return out


def test_every_chart_is_valid_and_in_the_house_style(figures: dict[str, Callable[[], Any]]) -> None:
    """Every chart is a Vega-Lite v6 spec (the published schema), strict JSON, titled, in the house style."""
    for name, build in figures.items():
        fig = build()
        assert_valid_spec(fig, name)
        assert fig["config"] == spec.CONFIG and fig["title"]["text"], name


@pytest.mark.parametrize(
    "page",
    [
        "overview",
        "compute_node",
        "network",
        "storage_site",
        "operations",
        "financing",
        "pricing",
        "results",
        "stress_test",
        "compare",
        "export",
    ],
)
def test_page_has_no_stray_string_statements(page: str) -> None:
    """Streamlit's "magic" writes any bare string statement of a page script on the page (docstrings of constants
    included); only the module docstring is exempt."""
    tree = ast.parse((ROOT / "pages" / f"{page}.py").read_text(encoding="utf-8"))
    stray = [
        node.lineno
        for node in tree.body[1:]
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    ]
    assert not stray, f"pages/{page}.py lines {stray}"


def test_debt_figure_marks_the_covenant() -> None:
    """The DSCR row draws 1.0×, the covenant and the target as lines across it (covenant red and dotted, target
    dashed, each labelled) and colours each year against them: red below the covenant, amber below target."""
    r = neoplan.evaluate(
        neoplan.load_scenario({"base": "optimized", "financing": {"covenant_dscr": 1.5, "target_dscr": 1.6}})
    )
    fig = finance.debt_figure(r)
    assert_valid_spec(fig, "debt")
    balance, cover = fig["vconcat"]
    assert not [layer for layer in balance["layer"] if layer["mark"]["type"] == "rule" and "y" in layer["encoding"]]
    rules = [layer for layer in cover["layer"] if layer["mark"]["type"] == "rule"]
    assert [rule["encoding"]["y"]["datum"] for rule in rules] == pytest.approx([1.0, 1.5, 1.6])
    one, covenant, target = (rule["mark"] for rule in rules)
    assert covenant["color"] == finance.NEGATIVE and covenant["strokeDash"] == finance.DOT
    assert one["strokeDash"] == finance.DOT and target["strokeDash"] == spec.DASH
    labels = {t["encoding"]["text"].get("value") for t in cover["layer"] if t["mark"]["type"] == "text"}
    assert {"covenant 1.50×", "target 1.60×"} <= labels
    bars = next(layer for layer in cover["layer"] if layer["mark"]["type"] == "bar")
    channel = bars["encoding"]["color"]
    palette = dict(zip(channel["scale"]["domain"], channel["scale"]["range"], strict=True))
    drawn = [palette[row[channel["field"]]] for row in bars["data"]["values"]]
    dscr = r.dscr_by_year()["dscr"]
    shown = dscr[dscr == dscr]
    assert [row["dscr"] for row in bars["data"]["values"]] == pytest.approx(list(shown))
    expected = ["#e76f51" if v < 1.5 else "#e9c46a" if v < 1.6 else "#2a9d8f" for v in shown]
    assert drawn == expected
    assert any(v < 1.5 for v in shown)  # the case tests the red branch
