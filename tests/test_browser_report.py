"""The offline HTML report in Chromium: every chart drawn by the inlined plotly.js, interactive (its mode bar, a PNG
named after the scenario), with no request at all; and the grid's NPV = 0 line, as plotly draws it, where the
solver puts the break-even price."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser_support import chromium

import neoplan
from neoplan import export
from neoplan.analysis import stress

pytestmark = pytest.mark.browser

PIXEL_TOL_USD = 0.01
"""How close the drawn break-even line must pass to the solver's price [USD/GPU-h]: plotly writes path points to
a hundredth of a pixel, and a pixel of the report's grid is about $0.002 (a $1.40 axis over some 750 px); the line's
own interpolation is within 1e-6 (tests/test_page_stress.py)."""


def _line_points(tab: Any) -> tuple[list[tuple[float, float]], dict[str, Any]]:
    """The points of the grid chart's break-even line in data units, from the SVG plotly drew: the path of the
    constraint contour, mapped through the axes' ranges (plotly writes them back to the figure's layout) onto the
    plot area (the drag layer's rectangle)."""
    drawn = tab.evaluate(
        """() => {
        const gd = document.getElementById('chart-grid');
        const lines = [...gd.querySelectorAll('g.contour')].map(g => [...g.querySelectorAll('path')])
            .flat().filter(p => (p.getAttribute('d') || '').length > 0 && p.style.strokeDasharray);
        const area = gd.querySelector('.nsewdrag');
        return {
            d: lines.map(p => p.getAttribute('d')),
            x: gd.layout.xaxis.range, y: gd.layout.yaxis.range,
            w: +area.getAttribute('width'), h: +area.getAttribute('height'),
        };
    }"""
    )
    points = []
    for path in drawn["d"]:
        for px, py in re.findall(r"(-?[\d.]+),(-?[\d.]+)", path):
            (x0, x1), (y0, y1) = drawn["x"], drawn["y"]
            points.append((x0 + float(px) / drawn["w"] * (x1 - x0), y1 - float(py) / drawn["h"] * (y1 - y0)))
    return points, drawn


def test_report_draws_every_chart_offline(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    result = neoplan.evaluate(neoplan.load_scenario("optimized"))
    run = stress.run_all(result, stress.Settings(draws=2_000))
    report = tmp_path / "plan_report.html"
    report.write_text(export.html_report(result, run), encoding="utf-8")
    with chromium(tmp_path_factory) as context:
        tab = context.new_page()
        requests: list[str] = []
        errors: list[str] = []
        tab.on("request", lambda r: requests.append(r.url))
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        tab.goto(report.as_uri())
        width = tab.locator("main").bounding_box()["width"]
        for div_id, title in export.REPORT_CHARTS:
            drawing = tab.locator(f"#{div_id} .main-svg").first
            drawing.wait_for(timeout=30_000)
            texts = tab.locator(f"#{div_id} text").evaluate_all("els => els.map(e => e.textContent).join(' ')")
            assert len(texts) > 20, (div_id, title, texts)  # titles, axes and labels drawn
            assert drawing.bounding_box()["width"] <= width + 1, div_id  # no chart wider than the page
        for div_id, kind in (("chart-capex", "waterfall"), ("chart-capex-treemap", "treemap")):
            assert tab.locator(f"#{div_id} .{kind}layer, #{div_id} g.{kind}").count() > 0, div_id
        assert tab.locator("#chart-sankey .sankey").count() == 1
        assert tab.locator("#chart-mc g.point").count() > 20  # the histogram's bars

        # interactive: the mode bar keeps zoom, pan, reset and "download as PNG", which saves a PNG named after the
        # scenario and the chart
        tab.locator("#chart-capex").hover()
        buttons = tab.locator("#chart-capex .modebar-btn").evaluate_all("bs => bs.map(b => b.dataset.title)")
        assert {"Zoom", "Pan", "Reset axes", "Download plot as a PNG"} <= set(buttons), buttons
        with tab.expect_download() as download:
            tab.locator("#chart-capex .modebar-btn[data-title='Download plot as a PNG']").click()
        assert download.value.suggested_filename == f"{export.slug(result.scenario.name)}-capex.png"

        # the break-even line as drawn: on each row of the grid it crosses, within PIXEL_TOL_USD of the solver
        points, drawn = _line_points(tab)
        assert len(points) >= 2, drawn
        xs, ys = np.array([p[0] for p in points]), np.array([p[1] for p in points])
        order = np.argsort(ys)
        checked = 0
        for y in run.grid.y[::5]:
            if not ys.min() <= y <= ys.max():
                continue
            drawn_x = float(np.interp(y, ys[order], xs[order]))
            at = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "pricing": {"utilization": float(y)}}))
            solved = stress.solve(at, "usd_per_gpu_hour", "npv_usd", 0.0, float(run.grid.x[0]), float(run.grid.x[-1]))
            assert drawn_x == pytest.approx(solved.value, abs=PIXEL_TOL_USD), (y, drawn_x, solved.value)
            checked += 1
        assert checked >= 1
        tab.close()
    assert [u for u in requests if not u.startswith(("file:", "data:", "blob:"))] == []
    assert errors == []
