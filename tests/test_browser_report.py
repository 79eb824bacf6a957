"""The offline HTML report in Chromium: every chart drawn by the inlined Vega bundle, with no request at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import chromium

import neoplan
from neoplan import export


def test_report_draws_every_chart_offline(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    report = tmp_path / "plan_report.html"
    report.write_text(export.html_report(neoplan.evaluate(neoplan.load_scenario("optimized"))), encoding="utf-8")
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
            drawing = tab.locator(f"#{div_id} svg.marks")
            drawing.wait_for(timeout=30_000)
            texts = drawing.locator("text").evaluate_all("els => els.map(e => e.textContent).join(' ')")
            assert len(texts) > 20, (div_id, title, texts)  # titles, axes and labels drawn
            assert drawing.bounding_box()["width"] <= width, div_id  # no chart wider than the page
        tab.close()
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
    assert errors == []
