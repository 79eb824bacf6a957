"""Issue 23 in a real browser: the app as a careful user expects it (Chromium driven by Playwright).

One server with its own scenario library (seeded with scenarios whose names carry markup) and one Chromium context
for the module; each test opens its own tab (a browser session). A tiny HTTP server on 127.0.0.1 records every
request: a name or a description that made the browser fetch from it, or a link to it, fails the test.
"""

from __future__ import annotations

import http.server
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from browser_support import (
    CHART,
    PAGE_LABELS,
    chromium,
    go,
    header_text,
    metric,
    new_tab,
    no_exception,
    settle,
    streamlit_server,
)

import neoplan
from neoplan.economics import market
from neoplan.formats import pct, usd, usd_exact
from neoplan.inputs.platforms import platform_defaults
from neoplan.library import Library
from neoplan.limits import QUOTE_FILE_MB, SCENARIO_FILE_MB

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
OVERFLOW = """() => {
    const cut = e => e.scrollWidth > e.clientWidth + 1;
    const main = '[data-testid="stMain"] ';
    const out = [];
    for (const e of document.querySelectorAll(main + '[data-testid="stMetricValue"]')) {
        const c = e.querySelector('.stMarkdownEllipsis') || e;
        if (cut(c)) out.push('value ' + e.innerText);
    }
    for (const e of document.querySelectorAll(main + '[data-testid="stMetricLabel"]')) {
        const c = e.querySelector('.stMarkdownEllipsis, p') || e;
        if (cut(c)) out.push('label ' + e.innerText);
    }
    for (const e of document.querySelectorAll(main + '[data-testid="stSelectbox"] input')) {
        if (cut(e)) out.push('choice ' + e.value);
        if (!e.value && (e.placeholder || '').includes('Choose an option')) out.push('placeholder ' + e.ariaLabel);
    }
    return out;
}"""
"""What a reader cannot read whole: metric values and labels cut off (an ellipsis instead of their end), a select
box's chosen value cut off, and a select box that shows Streamlit's "Choose an option" where its field has a
default (its ``None`` choice)."""


class _Bait(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def bait() -> Iterator[str]:
    """A local HTTP server that records requests; yields its base URL."""
    server = http.server.HTTPServer(("127.0.0.1", 0), _Bait)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


def _markup_names(bait: str) -> list[str]:
    return [
        f'<a href="{bait}/link">click me</a>',
        f'<span style="fill:url({bait}/beacon.svg#x)">paint</span>',
        f"see www.example.com or {bait}/bare and ops@example.com",
    ]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory, bait: str) -> Iterator[str]:
    library_path = tmp_path_factory.mktemp("library") / "scenarios.sqlite"
    library = Library(library_path)
    for i, name in enumerate(_markup_names(bait)):
        library.save(name, neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 1024 + 512 * i}}))
    with streamlit_server(library_path) as url:
        yield url


@pytest.fixture(scope="module")
def browser(app_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory) as context:
        yield context


@pytest.fixture
def tab(browser: Any, app_url: str) -> Iterator[Any]:
    with new_tab(browser, app_url) as page:
        yield page


def _field(tab: Any, label: str) -> Any:
    return tab.get_by_test_id("stMain").get_by_role("textbox", name=label, exact=True)


def _type(tab: Any, label: str, text: str) -> None:
    field = _field(tab, label)
    field.fill(text)
    field.press("Enter")
    settle(tab)


def _errors(tab: Any) -> list[str]:
    return [str(t) for t in tab.get_by_test_id("stAlertContentError").all_inner_texts()]


def _open_tab(tab: Any, name: str) -> None:
    tab.get_by_test_id("stMain").get_by_role("tab", name=name, exact=True).click()
    settle(tab)


def _choose(tab: Any, label: str, option: str) -> None:
    box = tab.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text=label).first
    box.scroll_into_view_if_needed()
    box.locator("input").click()
    box.locator("input").fill(option[:14])
    tab.get_by_role("option", name=option, exact=True).click()
    settle(tab)


def _svg_text(where: Any) -> str:
    """Every text of the SVG under ``where`` (plotly draws a chart's text as SVG, which has no inner text)."""
    return " ".join(where.locator("text").evaluate_all("els => els.map(e => e.textContent || '')"))


def _upload(tab: Any, path: Path) -> None:
    tab.get_by_test_id("stSidebar").locator("input[type=file]").set_input_files(str(path))
    settle(tab)


# -- number inputs that cannot lie ------------------------------------------------------------------------------

NUMBER_FIELDS = [
    ("Pricing & revenue", "Headline price [USD/GPU-h]", "Equity IRR", "pricing.usd_per_gpu_hour"),
    ("Financing", "Interest rate [% per year]", "Equity IRR", "financing.interest_rate"),
    ("Compute node", "System memory [TB]", "Node price", "node.ram_tb"),
    ("Storage & site", "Read target per GPU [Gbit/s]", "Total capex", "storage.target_gbps_per_gpu"),
]


@pytest.mark.parametrize(("page", "label", "figure", "path"), NUMBER_FIELDS, ids=[f[0] for f in NUMBER_FIELDS])
def test_clearing_or_lettering_a_number_keeps_the_value_and_says_why(
    tab: Any, page: str, label: str, figure: str, path: str
) -> None:
    go(tab, page)
    before, shown = metric(tab, figure), _field(tab, label).input_value()
    for text, reason in (("", "enter a number"), ("abc", "enter a number"), ("3,5", "use a point for decimals")):
        _type(tab, label, text)
        assert _field(tab, label).input_value() == shown, text  # the last valid value, never 0
        assert metric(tab, figure) == before, text
        assert any(e.startswith(f"{label}: {reason}") and "kept" in e for e in _errors(tab)), (text, _errors(tab))
        assert not [e for e in _errors(tab) if path in e], _errors(tab)  # by its label; the path in its tooltip
    _type(tab, label, "1e12")
    assert any(e.startswith(f"{label} must be between") and "got 1e12" in e for e in _errors(tab)), _errors(tab)
    assert metric(tab, figure) == before
    no_exception(tab, page)


def test_gpus_take_scientific_notation_and_thousands_and_refuse_1e12_with_the_range(tab: Any) -> None:
    go(tab, "Compute node")
    _type(tab, "GPUs in the cluster", "2.048e3")
    assert _field(tab, "GPUs in the cluster").input_value() == "2,048"
    _type(tab, "GPUs in the cluster", "1e12")
    assert any("GPUs in the cluster must be between 8 and 1,000,000, got 1e12" in e for e in _errors(tab)), _errors(tab)
    assert _field(tab, "GPUs in the cluster").input_value() == "2,048"
    _type(tab, "GPUs in the cluster", "4,096")
    go(tab, "Overview")
    assert metric(tab, "GPUs") == "4,096"


# -- platform profiles ------------------------------------------------------------------------------------------


def _expected(steps: dict[str, Any]) -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario({"base": "optimized", **steps}))


def test_h100_to_b200_to_gb200_brings_each_platforms_defaults_and_keeps_the_users_edits(tab: Any) -> None:
    go(tab, "Pricing & revenue")
    _type(tab, "Headline price [USD/GPU-h]", "3.50")  # the user's own price: it stays
    go(tab, "Storage & site")
    _open_tab(tab, "Site & power")
    _type(tab, "PUE [ratio]", "1.3")  # not a platform input: untouched
    go(tab, "Compute node")
    _choose(tab, "GPU platform", "NVIDIA HGX B200 8-GPU")
    note = tab.get_by_test_id("stMain").get_by_test_id("stAlertContentInfo").inner_text()
    assert "price book 2024-10 → 2026-11" in note and "rack power 41 kW → 30 kW" in note, note
    assert "kept your rental price $3.50/GPU-h: you set it" in note, note
    mine = {"pricing": {"usd_per_gpu_hour": 3.5}, "facility": {"pue": 1.3}}
    b200 = _expected({"cluster": {"gpu_model": "b200-sxm", "platform_defaults": True}, **mine})
    assert b200.scenario.facility.rack_power_kw == platform_defaults("b200-sxm")["facility.rack_power_kw"].value
    go(tab, "Overview")
    assert metric(tab, "Node price") == usd_exact(b200.node_capex_usd)
    assert metric(tab, "Total capex") == usd(b200.capex_total_usd)
    go(tab, "Compute node")
    _choose(tab, "GPU platform", "NVIDIA GB200 NVL72 rack")
    note = tab.get_by_test_id("stMain").get_by_test_id("stAlertContentInfo").inner_text()
    assert "GPUs 1,024 → 1,080: whole racks" in note and "cooling air → liquid" in note, note
    gb200 = _expected({"cluster": {"gpu_model": "gb200-nvl72", "platform_defaults": True}, **mine})
    go(tab, "Overview")
    assert (metric(tab, "GPUs"), metric(tab, "NVL72 racks")) == ("1,080", "15")
    assert metric(tab, "Rack price") == usd_exact(gb200.node_capex_usd)
    assert metric(tab, "Total capex") == usd(gb200.capex_total_usd)
    go(tab, "Pricing & revenue")
    assert _field(tab, "Headline price [USD/GPU-h]").input_value() == "3.50"  # the user's edit stayed
    go(tab, "Storage & site")
    _open_tab(tab, "Site & power")
    assert _field(tab, "PUE [ratio]").input_value() == "1.30"
    assert _field(tab, "Rack power [kW]").input_value() == "140.0"
    no_exception(tab, "Storage & site")


def test_a_file_with_the_platform_switch_loads_and_says_what_it_changed(tab: Any, tmp_path: Path) -> None:
    plan = tmp_path / "nvl72.yaml"
    plan.write_text("base: optimized\ncluster: {gpu_model: gb200-nvl72, platform_defaults: true}\n")
    _upload(tab, plan)
    sidebar = tab.get_by_test_id("stSidebar").inner_text()
    assert "Platform defaults of gb200-nvl72" in sidebar and "price book 2024-10 → 2026-11" in sidebar
    assert metric(tab, "GPUs") == "1,080"
    no_exception(tab, "Overview")


# -- name and description ---------------------------------------------------------------------------------------


def test_name_and_description_are_edited_in_the_header_and_the_description_follows_the_plan(tab: Any) -> None:
    header = tab.locator(".st-key-scenario_header")
    main = tab.get_by_test_id("stMain")
    assert "1,024 GPUs in 128 × NVIDIA HGX H100" in main.inner_text()
    go(tab, "Compute node")
    _type(tab, "GPUs in the cluster", "2,048")
    go(tab, "Overview")
    assert "2,048 GPUs in 256 × NVIDIA HGX H100" in main.inner_text()  # generated: true to the plan
    header.get_by_role("button", name="Details").click()
    body = tab.get_by_test_id("stPopoverBody")
    body.get_by_role("textbox", name="Name").fill("Founder plan")
    body.get_by_role("textbox", name="Name").press("Enter")
    settle(tab)
    body.get_by_role("textbox", name="Description").fill("For the board in March.")
    body.get_by_role("textbox", name="Description").press("Control+Enter")
    settle(tab)
    tab.keyboard.press("Escape")
    assert "Founder plan" in header_text(tab)
    assert "For the board in March." in main.inner_text()
    go(tab, "Compute node")
    _type(tab, "GPUs in the cluster", "4,096")
    go(tab, "Overview")
    assert "For the board in March." in main.inner_text()  # the user's words stay as written


# -- warnings where they matter, TCO against the price path -------------------------------------------------------


def test_overview_warns_of_the_loss_not_a_breach_and_of_no_dated_book(tab: Any) -> None:
    """The default plan's loan is sized on its contracts (issue 37): its one alert is the loss, not a breach."""
    main = tab.get_by_test_id("stMain")
    loss = main.get_by_test_id("stAlert").filter(has_text="Negative NPV.").first
    for book in ("Price book (hardware prices as of)", "prices_as_of"):  # one vintage: no date warning
        assert main.get_by_test_id("stAlert").filter(has_text=book).count() == 0
    result = neoplan.evaluate(neoplan.load_scenario("optimized"))
    decline = market.scenario_average_decline(result.scenario, result.ops.dates.go_live_month)  # the Hopper curve
    assert f"prices fall {pct(decline, 0)} a year" in loss.inner_text()
    assert main.get_by_test_id("stAlert").filter(has_text="Covenant breach.").count() == 0
    texts = _svg_text(main.locator(CHART))
    assert f"sold on average ${result.sold_usd_per_gpu_hour_lifetime:.2f}" in texts, texts
    assert f"sold at go-live ${result.sold_usd_per_gpu_hour_at_go_live:.2f}" in texts, texts
    main.get_by_role("link", name="Why: Pricing & revenue →").click()
    settle(tab)
    assert "IRR against price" in main.inner_text()


# -- compare ------------------------------------------------------------------------------------------------------


def _pick(tab: Any, name: str) -> None:
    box = tab.get_by_test_id("stMain").get_by_test_id("stMultiSelect").locator("input")
    box.click()
    box.fill(name)
    tab.get_by_role("option", name=name, exact=True).click()
    settle(tab)
    tab.keyboard.press("Escape")


def _chips(tab: Any) -> list[str]:
    box = tab.get_by_test_id("stMain").get_by_test_id("stMultiSelect").locator(".react-aria-ComboBox")
    return [str(t) for t in box.locator("[data-tag] [title]").evaluate_all("els => els.map(e => e.title)")]


def test_compare_keeps_its_selection_and_gives_rate_deltas_in_points(tab: Any) -> None:
    go(tab, "Compare")
    _pick(tab, "h100_2048")
    chosen = _chips(tab)
    assert len(chosen) == 3, chosen
    # the table is drawn on a canvas: its cells are checked in tests/test_page_state.py, the caption here
    assert "rates (IRR) change in percentage points (pp)" in tab.get_by_test_id("stMain").inner_text()
    go(tab, "Network")
    go(tab, "Compare")
    assert _chips(tab) == chosen
    tab.reload(wait_until="domcontentloaded")
    settle(tab)
    assert _chips(tab) == chosen
    no_exception(tab, "Compare")


def test_user_text_is_plain_text_in_charts_and_markdown(tab: Any, bait: str, tmp_path: Path) -> None:
    """Saved names with plotly's markup (a link, a style that fetches a URL) and bare URLs in the Compare charts,
    legends and hover labels; a description with bare URLs and an e-mail address on Overview: shown as typed, no
    link, no request to the bait server."""
    _Bait.hits.clear()
    names = _markup_names(bait)
    go(tab, "Compare")
    for name in names:
        _pick(tab, name)
    main = tab.get_by_test_id("stMain")
    for chart_tab in ("Capex", "TCO", "Cumulative cash"):
        _open_tab(tab, chart_tab)
        chart = main.locator(CHART).first
        texts = _svg_text(chart)
        assert '<a href="' in texts and "<span style=" in texts, (chart_tab, texts)  # the names, as typed
        # the last scenario's (a markup name's) largest part, or the first line (hovered: every line at that month)
        mark = chart.locator("g.trace.bars").first.locator("g.point path").last
        mark = mark if mark.count() else chart.locator("g.trace.scatter path.js-line").first
        mark.scroll_into_view_if_needed()
        box = mark.bounding_box()
        tab.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # a hover label
        hover = chart.locator(".hoverlayer")  # a hover label, or the unified one (a legend-like box)
        hover.locator("text").first.wait_for(timeout=10_000)
        assert "<a href=" in _svg_text(hover) or "<span style=" in _svg_text(hover) or "see www" in _svg_text(hover)
        for where, name in ((chart, "chart"), (hover, "hover label")):
            assert where.locator("a").count() == 0, f"a link in the {chart_tab} {name}"
            assert where.locator("[style*='url(']").count() == 0, f"a style with url() in the {chart_tab} {name}"
    legend = _svg_text(main.locator(f"{CHART} g.legend"))
    assert '<a href="' in legend and "<span style=" in legend, legend  # shown as typed
    plan = tmp_path / "shared.yaml"
    plan.write_text(
        f"name: 'Shared {bait}/name'\n"
        f"description: 'Reach us at www.example.com, {bait}/describe or ops@example.com'\nbase: optimized\n"
    )
    _upload(tab, plan)
    go(tab, "Overview")
    shown = main.inner_text().replace("\u2060", "")  # the word joiner that breaks GFM's autolinks is invisible
    assert "www.example.com" in shown and "ops@example.com" in shown
    links = tab.locator("a[href]").evaluate_all("ls => ls.map(l => l.href)")
    assert not [h for h in links if "example.com" in h or h.startswith((bait, "mailto:"))], links
    tab.wait_for_timeout(800)
    assert _Bait.hits == [], f"fetched from user text: {_Bait.hits}"


# -- layout -------------------------------------------------------------------------------------------------------

TABS = {
    "Storage & site": ["Site & power", "Capex", "Opex"],
    "Operations": ["Effect of each choice", "Readiness checklist", "Reliability", "The article's advice"],
    "Stress test": ["Monte Carlo: all at once", "Break-even solvers"],
}


WIDTHS = (1280, 1440)
"""Window widths the layout must fit [px]: each page is measured at both (the window resized in place)."""


def _cut_off(page: Any, where: str) -> list[str]:
    """Values cut off on the page as it is, at each of :data:`WIDTHS`."""
    cut = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(150)  # one layout pass after the resize
        cut += [f"{where} at {width} px: {v}" for v in page.evaluate(OVERFLOW)]
    return cut


@pytest.mark.parametrize("plan", ["optimized", "nvl72"])
def test_no_value_is_cut_off_on_any_page(browser: Any, app_url: str, tmp_path: Path, plan: str) -> None:
    page = browser.new_page()
    page.set_viewport_size({"width": WIDTHS[0], "height": 1000})
    page.goto(app_url, wait_until="domcontentloaded")
    settle(page)
    if plan == "nvl72":
        path = tmp_path / "nvl72.yaml"
        path.write_text(
            "name: NVL72\nbase: optimized\ncluster: {gpus: 2088, gpu_model: gb200-nvl72, platform_defaults: true}\n"
            "fabric: {topology: spectrum_x}\npricing: {sell: mix}\n"  # tokens too: the workload and its latency
        )
        _upload(page, path)
    cut: list[str] = []
    for label in PAGE_LABELS:
        go(page, label)
        cut += _cut_off(page, label)
        for name in TABS.get(label, []):
            _open_tab(page, name)
            cut += _cut_off(page, f"{label} / {name}")
        text = page.get_by_test_id("stMain").inner_text()
        assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", text), f"an ISO timestamp on {label}"
        assert "−0.00×" not in text and "-0.00×" not in text, label
        if label != "Quote review":  # its findings name price-book keys (neoplan.quote, another issue's)
            assert "sn5600_" not in text and "qm9700" not in text, f"a raw catalogue key on {label}"
    page.close()
    assert not cut, f"values cut off: {cut}"


# -- stress settings, computing state -----------------------------------------------------------------------------

BADGE = "() => { const s = getComputedStyle(document.body, '::after'); return [s.content, s.opacity]; }"


def _download(tab: Any, button: str, folder: Path) -> Path:
    """Click the download button ``button`` (built on click) and keep the file in ``folder``."""
    with tab.expect_download(timeout=240_000) as info:
        tab.get_by_role("button", name=button).click()
    path = folder / info.value.suggested_filename
    info.value.save_as(path)
    return path


def _sheet(book: Any, name: str) -> dict[str, Any]:
    """``key → value`` of the first block of a workbook sheet (header in row 4, as neoplan.export writes it)."""
    ws = book[name]
    header = [c.value for c in ws[4]]
    key, value = header.index("key"), header.index("value")
    return {row[key]: row[value] for row in ws.iter_rows(min_row=5, values_only=True) if row[key] is not None}


def _inputs(book: Any) -> dict[tuple[str, str], Any]:
    """``(section, field) → value`` of the workbook's Assumptions sheet."""
    ws = book["Assumptions"]
    header = [c.value for c in ws[4]]
    at = {name: header.index(name) for name in ("section", "field", "value")}
    rows = ws.iter_rows(min_row=5, values_only=True)
    return {(r[at["section"]], r[at["field"]]): r[at["value"]] for r in rows if r[at["field"]] is not None}


def test_stress_settings_survive_a_refresh_and_a_long_run_shows_computing(tab: Any, tmp_path: Path) -> None:
    """A 100,000-draw run shows "Computing…", survives a refresh, and is what the exports hold: of a plan sized by
    power too (issue 34: its workbook and report used 10,000 draws and seed 0 without a word)."""
    from openpyxl import load_workbook

    tab.get_by_test_id("stCheckbox").get_by_text("Plan from power", exact=True).click()  # 1.4 MW: sized by power
    settle(tab)
    sized = _expected({"cluster": {"size_by": "power"}, "facility": {"it_power_mw": 1.4}})
    go(tab, "Stress test")
    _open_tab(tab, "Monte Carlo: all at once")
    _field(tab, "Draws").fill("100,000")
    _field(tab, "Seed").fill("1")
    tab.get_by_role("button", name="Run Monte Carlo").click()
    start = time.monotonic()
    seen = []
    while time.monotonic() - start < 20:
        content, opacity = tab.evaluate(BADGE)
        seen.append((round(time.monotonic() - start, 2), content, opacity))
        if content == '"Computing…"' and float(opacity) > 0.99 and time.monotonic() - start > 0.3:
            break
        tab.wait_for_timeout(100)
    assert any(c == '"Computing…"' and float(o) > 0.99 for _, c, o in seen), seen
    tab.get_by_text("100,000 draws, seed 1").first.wait_for(timeout=180_000)  # a long run: past settle()'s waits
    settle(tab)
    tab.reload(wait_until="domcontentloaded")
    tab.get_by_text("100,000 draws, seed 1").first.wait_for(timeout=180_000)  # run again: longer than settle()'s wait
    settle(tab)
    assert _field(tab, "Draws").input_value() == "100,000" and _field(tab, "Seed").input_value() == "1"
    no_exception(tab, "Stress test")
    go(tab, "Export")
    run = "the run on the Stress test page: 100,000 Monte Carlo draws, seed 1"
    assert run in tab.get_by_test_id("stMain").inner_text()
    book = load_workbook(_download(tab, "⬇ Workbook (.xlsx)", tmp_path), read_only=True)
    mc, kpis = _sheet(book, "Monte Carlo"), _sheet(book, "KPIs")
    assert (mc["draws"], mc["seed"]) == (100_000, 1) and str(mc["run"]).startswith(run)
    assert kpis["gpus"] == sized.gpus and kpis["size_by"] == "power"
    report = _download(tab, "⬇ Report (.html)", tmp_path).read_text(encoding="utf-8")
    assert "100,000 draws, seed 1" in report and f"<b>Which run:</b> {run}" in report
    assert f"{sized.gpus:,} GPUs in {sized.servers:,} ×" in report
    no_exception(tab, "Export")


# -- uploads and malformed files ----------------------------------------------------------------------------------


def test_quotes_up_to_the_stated_limit_reach_the_reader(tab: Any, tmp_path: Path) -> None:
    """1.5 and 4.9 MB quotes (blank padding): read, never refused by the server with "status code 413"."""
    go(tab, "Quote review")
    base = (ROOT / "data" / "quotes" / "per_server_messy.csv").read_bytes()
    uploader = tab.get_by_test_id("stFileUploader").filter(has_text="Upload a quote")
    assert f"{QUOTE_FILE_MB}MB" in uploader.inner_text().replace(" ", "")  # the limit the dropzone states
    for size_mb in (1.5, 4.9):
        path = tmp_path / f"quote_{size_mb}.csv"
        path.write_bytes(base + b"\n" * (int(size_mb * 1024 * 1024) - len(base)))
        uploader.locator("input[type=file]").set_input_files(str(path))
        settle(tab)
        text = tab.get_by_test_id("stMain").inner_text()
        assert "413" not in text and "AxiosError" not in text, text[:400]
        tab.get_by_text(path.name).first.wait_for(timeout=30_000)
    no_exception(tab, "Quote review")


def test_a_scenario_over_its_limit_is_refused_and_a_broken_json_is_named(tab: Any, tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("base: optimized\n#" + "x" * (int(1.2 * 1024 * 1024)) + "\n")
    _upload(tab, big)
    sidebar = tab.get_by_test_id("stSidebar").inner_text()
    assert "413" not in sidebar and f"{SCENARIO_FILE_MB}" in sidebar
    assert "Optimized" in header_text(tab)  # not loaded
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x", "prices": {' + ", ".join(f'"k{i}": {i}' for i in range(60_000)))
    start = time.monotonic()
    _upload(tab, broken)
    tab.get_by_text("not valid JSON").first.wait_for(timeout=30_000)
    assert time.monotonic() - start < 20
    assert "broken.json line 1 column" in tab.get_by_test_id("stSidebar").inner_text()
    no_exception(tab, "Overview")


def test_the_scenario_uploader_states_the_readers_limit(tab: Any) -> None:
    uploader = tab.get_by_test_id("stSidebar").get_by_test_id("stFileUploader")
    assert f"{SCENARIO_FILE_MB}MBperfile" in uploader.inner_text().replace(" ", ""), uploader.inner_text()


# -- issue 34: a plan that changes shape stays right everywhere -------------------------------------------------


def test_10_mw_of_gb200_reads_as_sized_everywhere(tab: Any, tmp_path: Path) -> None:
    """Switched to GB200 at 1,024 GPUs (1,080 once whole racks), then sized to 10 MW: every count on Overview, the
    header, Compute node, Storage & site, the workbook and the report is the 5,040 the sizing found (it read "1,080
    GPUs in 15 NVL72 racks", storage 5 PB). The stress run the exports hold: the stress test above."""
    from openpyxl import load_workbook

    plan = {"cluster": {"gpu_model": "gb200-nvl72", "platform_defaults": True, "size_by": "power"}}
    sized = _expected({**plan, "facility": {"it_power_mw": 10}})
    assert (sized.gpus, sized.servers) == (5040, 70)
    counted = f"{sized.gpus:,} GPUs in {sized.servers} × NVIDIA GB200 NVL72 rack"
    go(tab, "Compute node")
    _choose(tab, "GPU platform", "NVIDIA GB200 NVL72 rack")
    go(tab, "Overview")
    tab.get_by_test_id("stCheckbox").get_by_text("Plan from power", exact=True).click()
    settle(tab)
    _type(tab, "IT power available [MW]", "10")
    main = tab.get_by_test_id("stMain")
    assert (metric(tab, "GPUs"), metric(tab, "NVL72 racks")) == ("5,040", "70")
    assert counted in main.inner_text() and "1,080" not in main.inner_text()
    tab.locator(".st-key-scenario_header").get_by_role("button", name="Details").click()
    details = tab.get_by_test_id("stPopoverBody")
    assert counted in details.get_by_role("textbox", name="Description").get_attribute("placeholder")
    tab.keyboard.press("Escape")
    go(tab, "Compute node")
    assert tab.get_by_test_id("stMain").get_by_role("textbox", name="GPUs in the cluster").input_value() == "5,040"
    go(tab, "Storage & site")
    assert f"{sized.storage.usable_pb:.1f} PB: the platform's 2 PB per 1,024 GPUs for 5,040 GPUs" in main.inner_text()
    assert sized.storage.usable_pb == pytest.approx(9.8) and metric(tab, "Racks") == f"{sized.facility.racks:,}"
    go(tab, "Export")
    book = load_workbook(_download(tab, "⬇ Workbook (.xlsx)", tmp_path), read_only=True)
    kpis = _sheet(book, "KPIs")
    assert (kpis["gpus"], kpis["servers"], kpis["storage.usable_pb"]) == (5040, 70, pytest.approx(9.8))
    inputs = _inputs(book)
    assert inputs[("cluster", "gpus")] == 5040 and str(inputs[("scenario", "description")]).startswith(counted)
    report = _download(tab, "⬇ Report (.html)", tmp_path).read_text(encoding="utf-8")
    assert counted in report and "1,080" not in report.split("<h2>")[0]  # title, description and summary
    no_exception(tab, "Export")


def test_nvl72_takes_the_nics_its_trays_carry_and_the_search_ranks_only_buildable_designs(
    tab: Any, tmp_path: Path
) -> None:
    """NVL72 with "4 NICs per 8 GPUs" bought half the NICs, kept the whole fabric and 400G per GPU, and ranked first
    in the search. Now: switching to NVL72 sets the tray's NICs and says so, the field is gone, a file asking for 4 is
    refused with the field's label, and the search's top row is an 8-NIC design that evaluates."""
    go(tab, "Compute node")
    _choose(tab, "Back-end NICs [count]", "4")
    _choose(tab, "GPU platform", "NVIDIA GB200 NVL72 rack")
    note = tab.get_by_test_id("stMain").get_by_test_id("stAlertContentInfo").inner_text()
    assert "back-end NICs per 8 GPUs 4 → 8: each compute tray" in note, note
    main = tab.get_by_test_id("stMain")
    assert "fixed by the tray" in main.inner_text() and not main.get_by_text("Back-end NICs [count]").count()
    plan = tmp_path / "nvl72_four_nics.yaml"
    plan.write_text("name: Four NICs\nbase: gb200_nvl72_18rack\nfabric: {nics_per_node: 4}\n")
    _upload(tab, plan)
    refused = [e for e in _errors(tab) if "cannot be evaluated" in e]
    assert refused and "Back-end NICs [count] must be 8 on the NVIDIA GB200 NVL72 rack" in refused[0], _errors(tab)
    assert "fabric.nics_per_node" not in refused[0]
    preset = tmp_path / "nvl72.yaml"
    preset.write_text("name: Eighteen racks\nbase: gb200_nvl72_18rack\n")
    _upload(tab, preset)
    go(tab, "Design search")
    found = neoplan.search(neoplan.load_scenario("gb200_nvl72_18rack"))
    top = found.table.iloc[0]
    assert bool(top["feasible"])  # an HGX design may rank first with 4 NICs; a rack-scale one only with 8 (below)
    neoplan.evaluate(found.scenario(1))  # buildable: the model does not refuse it
    picker = main.get_by_test_id("stSelectbox").filter(has_text="Open a design as the scenario").locator("input")
    assert picker.input_value().startswith(f"1. {top['gpu_model']} · {top['topology']}") and (
        f"· {int(top['nics_per_node'])} NICs ·" in picker.input_value()
    )
    rack_scale = found.table[found.table["gpu_model"].str.endswith("nvl72")]
    assert (rack_scale["nics_per_node"] == 8).all()
    no_exception(tab, "Design search")
