"""Every chart builder returns a plotly Figure in the house style (tests/plotly_support.py: valid, titled, the house
template, hover text of its own in the app's formats, axes with units), including the branches for a debt-free
plan and a short Monte Carlo; and the figures of the model's money draw the Result's own numbers (sums, ordering,
units). The stress, operations, network, search and quote charts have theirs in their pages' test files."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly_support import assert_house_figure, hover_texts, traces, traces_by_name

import neoplan
from neoplan.analysis import stress
from neoplan.charts import base, compare, finance, network, operations, search, site
from neoplan.charts import quote as quote_charts
from neoplan.charts import stress as stress_charts
from neoplan.design.fabric import design_options, topology_picture
from neoplan.finance.statements import CAPEX_LABELS, pnl_by_year, tco_by_source
from neoplan.formats import usd_exact
from neoplan.quote import read_quote_file, review_quote

ROOT = Path(__file__).resolve().parent.parent
REL = 1e-12
"""Relative tolerance of a drawn value against the model's (the chart copies it; only float printing may differ)."""


@pytest.fixture(scope="module")
def optimized() -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario("optimized"))


@pytest.fixture(scope="module")
def figures(optimized: neoplan.Result) -> dict[str, Callable[[], go.Figure]]:
    """Every chart builder with its inputs (the optimized preset, and a debt-free variant for the DSCR branch)."""
    r = optimized
    no_debt = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "financing": {"debt_share": 0.0}}))
    ref = neoplan.evaluate(neoplan.load_scenario("reference"))
    mc = stress.monte_carlo(r, draws=300, seed=1)
    options = design_options(r.scenario, r.book)
    review = review_quote(read_quote_file(ROOT / "data" / "quotes" / "oem_padded_1024_h100.xlsx"))
    space = {"gpu_models": ["h100-sxm", "h200-sxm"], "nics_per_node": [4, 8]}
    found = neoplan.analysis.search.search(r.scenario, space)
    out: dict[str, Callable[[], go.Figure]] = {
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
        "tornado_undefined": lambda: stress_charts.tornado_figure(stress.tornado(r), "payback_months"),
        "grid": lambda: stress_charts.grid_figure(stress.grid(r, points=5), "equity_irr"),
        "histogram": lambda: stress_charts.histogram_figure(mc, "npv_usd"),
        "histogram_undefined": lambda: stress_charts.histogram_figure(mc, "payback_months"),
        "cdf": lambda: stress_charts.cdf_figure(mc, "equity_irr"),
        "gpu_hours": lambda: operations.gpu_hours_figure(r.operations),
        "interruptions": lambda: operations.interruptions_figure(r.operations),
        "lost_time": lambda: operations.lost_time_figure(r.operations, 60.0),
        "choices": lambda: operations.choices_figure(["a", "b", "c"], [1.5e6, None, -2e5], "Δ NPV"),
        "quote_vs_recommended": lambda: quote_charts.quote_vs_recommended_figure(review),
        "quote_findings": lambda: quote_charts.findings_figure(review),
        "search": lambda: search.capex_irr_figure(found),
    }
    for module, names in (
        (
            finance,
            (
                "tco_figure",
                "cash_flow_figure",
                "irr_vs_price_figure",
                "debt_figure",
                "margin_figure",
                "revenue_mix_figure",
                "timeline_figure",
            ),
        ),
        (
            site,
            (
                "capex_waterfall_figure",
                "capex_treemap_figure",
                "capex_sankey_figure",
                "opex_by_year_figure",
                "power_figure",
                "storage_throughput_figure",
            ),
        ),
    ):
        for name in names:
            build = getattr(module, name)
            out[name] = lambda fn=build: fn(r)
    return out


def test_every_chart_is_a_plotly_figure_in_the_house_style(figures: dict[str, Callable[[], go.Figure]]) -> None:
    for name, build in figures.items():
        assert_house_figure(build(), name)


def test_mode_bar_keeps_zoom_pan_reset_and_png_download() -> None:
    """The config every chart gets: plotly's zoom, pan, reset and "download as PNG" kept, its other buttons removed,
    the picture named as asked, no plotly logo."""
    config = base.mode_bar("optimized-capex")
    assert config["toImageButtonOptions"] == {"format": "png", "filename": "optimized-capex", "scale": 2}
    removed = set(config["modeBarButtonsToRemove"])
    assert not removed & set(base.MODE_BAR_KEPT) and {"lasso2d", "select2d", "autoScale2d"} <= removed
    assert config["displaylogo"] is False


def test_money_axes_put_the_sign_before_the_dollar() -> None:
    """d3's ``$~s`` below a billion (−$5M); plotly's B from a billion up, with a $ prefix only where nothing is
    negative (a prefix would read $−2B)."""
    assert base.money_axis("USD", [-5e6, 2e7])["tickformat"] == "$~s"
    assert base.money_axis("USD", [1e8, 4e9]) == {"title": {"text": "USD"}, "tickprefix": "$", "exponentformat": "B"}
    assert base.money_axis("USD", np.array([-4e9, 1e9, np.nan])) == {"title": {"text": "USD"}, "exponentformat": "B"}


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


# --- the figures draw the Result ----------------------------------------------------------------------------------


def test_node_bom_draws_both_servers_line_by_line(optimized: neoplan.Result) -> None:
    """Two traces, this node and the OEM default, each line's cost per server, the costliest line on top."""
    drawn_traces = traces_by_name(base.node_bom_figure(optimized))
    for name, lines in (("This node", optimized.node_lines), ("OEM default", optimized.oem_default_node_lines)):
        drawn = [v for v in drawn_traces[name]["x"] if np.isfinite(v)]
        assert sum(drawn) == pytest.approx(sum(ln.total_usd for ln in lines), rel=REL), name
    pairs = zip(drawn_traces["This node"]["x"], drawn_traces["OEM default"]["x"], strict=True)
    top = [np.nanmax([a, b]) for a, b in pairs]
    assert top == sorted(top)  # plotly draws the first category at the bottom


def test_capex_charts_add_up_to_the_capex(optimized: neoplan.Result) -> None:
    """The bars, the waterfall and the treemap all draw the capex by category; the treemap's leaves are the cost
    lines, each category's the sum of its own, every area labelled with its amount and share."""
    capex = optimized.capex_usd
    cats = [c for c in CAPEX_LABELS if capex[c] > 0]
    bars = traces(base.capex_figure(optimized))[0]
    assert sum(bars["y"]) == pytest.approx(capex["total"], rel=REL)
    (fall,) = traces(site.capex_waterfall_figure(optimized))
    assert fall["type"] == "waterfall" and fall["x"] == [CAPEX_LABELS[c] for c in cats] + ["Total"]
    assert fall["y"] == [capex[c] for c in cats] + [capex["total"]]
    assert fall["measure"] == ["relative"] * len(cats) + ["total"]
    assert fall["text"][-1] == "$38.66 M"  # the optimized preset's capex, as the page's metric
    (tree,) = traces(site.capex_treemap_figure(optimized))
    assert tree["type"] == "treemap" and tree["branchvalues"] == "remainder"
    parent_of = dict(zip(tree["ids"], tree["parents"], strict=True))
    leaves = [(i, v) for i, v in zip(tree["ids"], tree["values"], strict=True) if parent_of[i]]
    lines = [ln for ln in optimized.capex_lines if ln.total_usd > 0]
    assert sorted(v for _, v in leaves) == sorted(ln.total_usd for ln in lines)
    for cat in cats:
        assert cat in tree["ids"] and parent_of[cat] == ""
        drawn = sum(v for i, v in leaves if parent_of[i] == cat)
        assert drawn == pytest.approx(capex[cat], rel=1e-12), cat
    assert "%{customdata[0]}" in tree["texttemplate"] and "%{customdata[1]}" in tree["texttemplate"]
    compute = tree["customdata"][tree["ids"].index("compute")]
    assert compute[:2] == ["$32.82 M", f"{100 * capex['compute'] / capex['total']:.1f} %"]


def test_sankey_traces_tco_to_capex_and_opex(optimized: neoplan.Result) -> None:
    """The bands into TCO add up to TCO per sold GPU-hour; those into capital to the capital component, split by
    capex category in the capex's own proportions (statements.tco_by_source)."""
    (sankey,) = traces(site.capex_sankey_figure(optimized))
    labels = [label.rsplit(" $", 1)[0] for label in sankey["node"]["label"]]
    link = sankey["link"]
    into = {target: [] for target in ("capital", "TCO")}
    for s, t, v in zip(link["source"], link["target"], link["value"], strict=True):
        into[labels[t]].append((labels[s], v))
    tco = optimized.kpis["tco_usd_per_gpu_hour"]
    assert sum(v for _, v in into["TCO"]) == pytest.approx(tco, rel=1e-12)
    capital = optimized.tco_breakdown_usd_per_gpu_hour["capital"]
    assert sum(v for _, v in into["capital"]) == pytest.approx(capital, rel=1e-12)
    capex = optimized.capex_usd
    for name, v in into["capital"]:
        cat = next(c for c, label in CAPEX_LABELS.items() if label == name)
        assert v == pytest.approx(capital * capex[cat] / capex["total"], rel=1e-12), name
    table = tco_by_source(optimized)
    assert table["usd_per_gpu_hour"].sum() == pytest.approx(tco, rel=1e-12)


def test_tco_chart_stacks_the_breakdown(optimized: neoplan.Result) -> None:
    drawn_traces = traces_by_name(finance.tco_figure(optimized))
    breakdown = optimized.tco_breakdown_usd_per_gpu_hour
    assert {k: drawn_traces[k]["x"][0] for k in breakdown} == breakdown
    assert sum(breakdown.values()) == pytest.approx(optimized.kpis["tco_usd_per_gpu_hour"], rel=REL)
    assert drawn_traces["capital"]["customdata"] == [
        f"capital: ${breakdown['capital']:.3f} /GPU-h ({100 * breakdown['capital'] / sum(breakdown.values()):.1f} "
        "% of TCO)"
    ]


def test_cash_flow_chart_draws_every_month(optimized: neoplan.Result) -> None:
    """In and out bars together are the project's monthly free cash flow; the lines its cumulative sums."""
    drawn_traces = traces_by_name(finance.cash_flow_figure(optimized))
    flow = optimized.ops.cash.project_fcf[0]
    drawn = dict(
        zip(drawn_traces["project cash flow (in)"]["x"], drawn_traces["project cash flow (in)"]["y"], strict=True)
    )
    drawn |= dict(
        zip(drawn_traces["project cash flow (out)"]["x"], drawn_traces["project cash flow (out)"]["y"], strict=True)
    )
    assert [drawn[m] for m in range(flow.size)] == pytest.approx(list(flow), rel=REL)
    assert all(v < 0 for v in drawn_traces["project cash flow (out)"]["y"])
    np.testing.assert_allclose(drawn_traces["cumulative project cash"]["y"], np.cumsum(flow), rtol=REL)
    np.testing.assert_allclose(
        drawn_traces["cumulative equity cash"]["y"], np.cumsum(optimized.ops.cash.equity_fcf[0]), rtol=REL
    )
    assert (
        drawn_traces["cumulative project cash"]["customdata"][0]
        == f"month 0<br>cumulative project cash: {usd_exact(flow[0])}"
    )


def test_irr_chart_draws_the_returns_against_price(optimized: neoplan.Result) -> None:
    prices = finance.price_grid(optimized, 11)
    drawn_traces = traces_by_name(finance.irr_vs_price_figure(optimized, prices))
    curve = optimized.returns_vs_price(prices)
    for key, name in (("project_irr", "project IRR"), ("equity_irr", "equity IRR")):
        assert drawn_traces[name]["x"] == pytest.approx(list(prices), rel=REL)
        drawn = np.array([np.nan if v is None else v for v in drawn_traces[name]["y"]], dtype=float)
        np.testing.assert_allclose(drawn, curve[key], rtol=REL)
    breakeven = optimized.kpis["breakeven_usd_per_gpu_hour"]
    assert drawn_traces["break-even (NPV = 0)"]["x"] == [pytest.approx(breakeven, rel=REL)]


def test_debt_figure_marks_the_covenant() -> None:
    """The balance is the loan's; the DSCR row draws 1.0×, the covenant and the target as lines across it
    (covenant red and dotted, target dashed, each labelled) and colours each year against them: red below the
    covenant, amber below target, one legend entry per class."""
    r = neoplan.evaluate(
        neoplan.load_scenario(  # a loan of 60 % of capex (sized on the contracts, no year would fall below target)
            {"base": "optimized", "financing": {"sizing": "capex_share", "covenant_dscr": 1.5, "target_dscr": 1.6}}
        )
    )
    fig = finance.debt_figure(r)
    drawn_traces = traces_by_name(fig)
    np.testing.assert_allclose(drawn_traces["debt balance"]["y"], r.ops.cash.debt.balance[0], rtol=REL)
    lines = [s for s in fig.layout.shapes if s.type == "line" and s.yref == "y2"]
    assert [s.y0 for s in lines] == pytest.approx([1.0, 1.5, 1.6])
    assert (lines[1].line.color, lines[1].line.dash, lines[2].line.dash) == (finance.NEGATIVE, "dot", "dash")
    assert {"covenant 1.50×", "target 1.60×"} <= {a.text for a in fig.layout.annotations}
    dscr = r.dscr_by_year()["dscr"]
    shown = dscr[np.isfinite(dscr)]
    colour = {
        finance.DSCR_CLASSES[0]: "#e76f51",
        finance.DSCR_CLASSES[1]: "#e9c46a",
        finance.DSCR_CLASSES[2]: "#2a9d8f",
    }
    drawn = sorted(
        (x, y, colour[name])
        for name in colour
        if name in drawn_traces
        for x, y in zip(drawn_traces[name]["x"], drawn_traces[name]["y"], strict=True)
    )
    assert [y for _, y, _ in drawn] == pytest.approx(list(shown), rel=REL)
    expected = ["#e76f51" if v < 1.5 else "#e9c46a" if v < 1.6 else "#2a9d8f" for v in shown]
    assert [c for _, _, c in drawn] == expected
    assert any(v < 1.5 for v in shown)  # the case tests the red branch
    assert all(drawn_traces[name]["marker"]["color"] == c for name, c in colour.items() if name in drawn_traces)


def test_margins_and_revenue_mix_draw_the_statements(optimized: neoplan.Result) -> None:
    pnl = pnl_by_year(optimized).drop(index="Total")
    drawn_traces = traces_by_name(finance.margin_figure(optimized))
    np.testing.assert_allclose(drawn_traces["revenue"]["y"], pnl["revenue_usd"], rtol=REL)
    assert drawn_traces["revenue"]["x"] == [str(y) for y in pnl.index]
    rev = optimized.ops.revenue
    mix = traces_by_name(finance.revenue_mix_figure(optimized))
    committed = np.array(mix["committed (take-or-pay, reserved)"]["y"])
    on_demand = np.array(mix["on-demand"]["y"])
    spot = np.array(mix["spot (contracts, idle hours)"]["y"])
    np.testing.assert_allclose(committed, rev.committed_usd, rtol=REL)
    np.testing.assert_allclose(on_demand, rev.on_demand_usd, rtol=REL)
    np.testing.assert_allclose(spot, rev.spot_usd, rtol=REL)
    assert spot.sum() > 0  # the preset's book sells half its idle hours at spot
    net = np.array(mix["net of SLA credits"]["y"])
    assert (net <= committed + on_demand + spot + 1e-6).all()  # SLA credits only take away


def test_timeline_bars_span_the_phases(optimized: neoplan.Result) -> None:
    d = optimized.ops.dates
    drawn_traces = traces_by_name(finance.timeline_figure(optimized))
    live = drawn_traces["operation (earning)"]
    assert (live["base"][0], live["base"][0] + live["x"][0]) == (pytest.approx(d.go_live_month), d.months)


def test_opex_power_and_storage_draw_the_site(optimized: neoplan.Result) -> None:
    from neoplan.finance.statements import opex_by_year

    opex = opex_by_year(optimized)
    drawn_traces = traces_by_name(site.opex_by_year_figure(optimized))
    assert drawn_traces["total"]["y"] == pytest.approx(list(opex.loc["Total"]), rel=REL)
    assert drawn_traces["Colocation"]["y"] == pytest.approx(list(opex.loc["Colocation"]), rel=REL)
    f = optimized.facility
    power = traces_by_name(site.power_figure(optimized))
    peak = sum(t["x"][1] for t in power.values())
    assert peak == pytest.approx(f.facility_peak_kw, rel=1e-9)
    (bars,) = traces(site.storage_throughput_figure(optimized))
    s = optimized.storage
    assert dict(zip(bars["y"], bars["x"], strict=True)) == {"Write": s.write_gbyte_per_s, "Read": s.read_gbyte_per_s}


def test_compare_charts_stack_each_scenario() -> None:
    a = neoplan.evaluate(neoplan.load_scenario("optimized"))
    b = neoplan.evaluate(neoplan.load_scenario("reference"))
    bars = traces(compare.capex_compare_figure({"a": a, "b": b}))
    assert all(t["x"] == ["a", "b"] for t in bars)
    totals = np.sum([t["y"] for t in bars], axis=0)
    assert totals == pytest.approx([a.capex_usd["total"], b.capex_usd["total"]], rel=1e-12)
    cash = traces_by_name(compare.cumulative_cash_compare_figure({"a": a, "b": b}))
    np.testing.assert_allclose(cash["b"]["y"], np.cumsum(b.ops.cash.project_fcf[0]), rtol=REL)


def test_hover_text_is_in_the_apps_formats(optimized: neoplan.Result) -> None:
    """Money as formats.usd writes it (``$1,234``, a minus sign), per GPU-hour with its unit."""
    texts = hover_texts(finance.cash_flow_figure(optimized))
    assert any("−$" in t for t in texts) and not any("-$" in t for t in texts)
    assert all("/GPU-h" in t for t in hover_texts(finance.tco_figure(optimized)))
