"""A real browser: `streamlit run app.py` on localhost, Debian's Chromium driven by Playwright.

One server (with its own scenario library) and one Chromium context for the whole module; each journey opens
a tab (a browser session of its own). Skips with a reason where Chromium or Playwright is missing, except in
CI (``CI`` set), where it must run. Screenshots go to a temporary folder, or to docs/screenshots/ (the
README's tour) with ``NEOPLAN_UPDATE_SCREENSHOTS=1``.
"""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    CHART,
    CHART_DRAWN,
    ROOT,
    chromium,
    go,
    header_text,
    metric,
    new_tab,
    no_exception,
    screenshot_dir,
    settle,
    streamlit_server,
)

import neoplan
from ui import format as fmt
from ui.state import DEFAULT_PRESET

# The default scenario's headline figures, formatted as the app shows them: the pages must show these values.
_DEFAULT = neoplan.evaluate(neoplan.load_scenario(DEFAULT_PRESET))
# (navigation label, slug for the screenshot, text that must appear on the page)
PAGES = [
    ("Overview", "overview", fmt.usd(_DEFAULT.capex_total_usd)),
    ("Compute node", "compute_node", fmt.usd_exact(_DEFAULT.node_capex_usd)),
    ("Network", "network", fmt.usd(_DEFAULT.capex_usd["backend_network"])),
    ("Storage & site", "storage_site", "Storage servers"),
    ("Operations", "operations", "Readiness checklist"),
    ("Design search", "search", "Designs built"),
    ("Financing", "financing", fmt.pct(_DEFAULT.kpis["equity_irr"])),
    ("Pricing & revenue", "pricing", fmt.usd_per_gpu_hour(_DEFAULT.kpis["breakeven_usd_per_gpu_hour"])),
    ("Results", "results", fmt.usd_per_gpu_hour(_DEFAULT.kpis["tco_usd_per_gpu_hour"])),
    ("Stress test", "stress_test", "Tornado metric"),
    ("Scenarios", "scenarios", "Library"),
    ("Compare", "compare", "Deltas in brackets"),
    ("Quote review", "quote_review", "Servers quoted"),
    ("Export", "export", "Excel workbook"),
]
QUOTES = ROOT / "data" / "quotes"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with streamlit_server(tmp_path_factory.mktemp("library") / "scenarios.sqlite") as url:
        yield url


@pytest.fixture(scope="module")
def browser(app_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory) as context:
        yield context


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return screenshot_dir(tmp_path_factory)


@pytest.fixture
def tab(browser: Any, app_url: str) -> Iterator[Any]:
    """A new tab on the landing page: a new browser session."""
    with new_tab(browser, app_url) as page:
        yield page


def _upload_scenario(tab: Any, path: Path) -> None:
    tab.get_by_test_id("stSidebar").locator("input[type=file]").set_input_files(str(path))
    settle(tab)


def _choose(tab: Any, label: str, option: str, where: Any = None) -> None:
    """Pick ``option`` in the selectbox labelled ``label``."""
    box = (where or tab).get_by_test_id("stSelectbox").filter(has_text=label).first
    box.locator("input").click()
    tab.get_by_role("option", name=option, exact=True).click()
    settle(tab)


def _open_in_sidebar(tab: Any, option: str) -> None:
    tab.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first.locator("input").click()
    tab.get_by_role("option", name=option, exact=True).click()
    settle(tab)


# -- first: a fresh server's very first visit -------------------------------------------------------------


def test_first_visit_deep_link_has_no_automatic_pages_menu(browser: Any, app_url: str) -> None:
    """A refresh on /network right after a restart: app.py's navigation, header and sidebar, and at no moment
    Streamlit's automatic pages/ menu (a MutationObserver watches the DOM from the first byte)."""
    page = browser.new_page()
    page.add_init_script("""
        window.__autoNav = 0;
        new MutationObserver(() => {
            if (document.querySelector('[data-testid="stSidebarNav"], [data-testid="stSidebarNavItems"]'))
                window.__autoNav += 1;
        }).observe(document, {childList: true, subtree: true});
    """)
    page.goto(f"{app_url}/network", wait_until="commit")
    page.locator(".st-key-scenario_header").wait_for(timeout=30_000)  # app.py ran: the header is there
    settle(page)
    page.get_by_text("Back-end", exact=False).first.wait_for(timeout=30_000)
    assert page.evaluate("window.__autoNav") == 0, "Streamlit's automatic pages/ menu was shown"
    links = page.get_by_test_id("stSidebar").locator("a")
    assert links.count() == len(PAGES)
    assert links.evaluate_all("ls => ls.every(l => l.dataset.testid === 'stPageLink-NavLink')")
    assert "Optimized" in header_text(page)
    assert re.search(r"/network\?draft=[\w-]{16,}$", page.url), page.url
    no_exception(page, "the first visit")
    page.close()


# -- every page -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tour(browser: Any, app_url: str) -> Iterator[Any]:
    page = browser.new_page()
    page.goto(app_url, wait_until="domcontentloaded")
    settle(page)
    yield page
    page.close()


OTHER_CHARTS = ", ".join(
    f'[data-testid="{kind}"]'
    for kind in (
        "stVegaLiteChart",
        "stArrowVegaLiteChart",
        "stDeckGlJsonChart",
        "stGraphVizChart",
        "stBokehChart",
        "stPyplot",
        "stEChartsChart",
    )
)
"""Streamlit's other chart elements: none may be on any page (plotly is the one chart library)."""
FORMS = {
    # page: the plotly forms (plotly.js's SVG classes) one of its tabs must draw
    "Overview": {"treemap"},
    "Storage & site": {"waterfall"},
    "Operations": {"waterfall"},
    "Results": {"sankey"},
    "Stress test": {"contour", "bars"},
}
_FORMS_JS = f"""() => [...document.querySelectorAll('{CHART} g[class]')].map(g => g.getAttribute('class'))
    .filter(c => /^(trace (bars|scatter|treemap)|sankey$|contour$|waterfalllayer)/.test(c))
    .map(c => c.replace(/^trace /, '').replace(/layer.*$/, '').split(' ')[0])"""


def _plotly_only(tab: Any, where: str) -> set[str]:
    """Every chart shown is plotly's, drawn; no other chart element anywhere. Returns the forms drawn."""
    assert tab.locator(OTHER_CHARTS).count() == 0, f"a chart other than plotly on {where}"
    for chart in tab.locator(CHART).all():
        if chart.is_visible():
            assert chart.locator(".main-svg").count() > 0, f"a chart not drawn on {where}"
    return set(tab.evaluate(_FORMS_JS))


@pytest.mark.parametrize(("label", "slug", "expected"), PAGES)
def test_page_renders(tour: Any, shots: Path, label: str, slug: str, expected: str) -> None:
    """Each page renders (its screenshot for the README's tour), and it and every one of its tabs draws its charts
    with plotly and nothing else, the finance forms among them (capex waterfall and treemap, the Sankey, the stress
    grid's contour and the Monte Carlo histogram)."""
    go(tour, label)
    tour.get_by_text(expected, exact=False).first.wait_for(timeout=30_000)
    no_exception(tour, label)
    tour.screenshot(path=str(shots / f"{slug}.png"), full_page=True)
    drawn = _plotly_only(tour, label)
    main = tour.get_by_test_id("stMain")
    names = main.get_by_role("tab").all_inner_texts()
    for name in names[1:] + names[:1]:  # every tab, the first one open again at the end
        main.get_by_role("tab", name=name, exact=True).first.click()
        settle(tour)
        drawn |= _plotly_only(tour, f"{label}: {name}")
        no_exception(tour, f"{label}: {name}")
    assert FORMS.get(label, set()) <= drawn, (label, drawn)


# -- journeys -------------------------------------------------------------------------------------------------


def test_uploaded_scenario_survives_three_pages(tab: Any, tmp_path: Path) -> None:
    plan = tmp_path / "big plan.yaml"
    plan.write_text("name: Big plan\nbase: optimized\ncluster: {gpus: 2048}\npricing: {usd_per_gpu_hour: 2.20}\n")
    _upload_scenario(tab, plan)
    assert metric(tab, "GPUs") == "2,048"
    assert "Big plan" in header_text(tab) and "file big plan.yaml" in header_text(tab)
    for label in ("Pricing & revenue", "Network", "Results"):
        go(tab, label)
        assert "Big plan" in header_text(tab), label
    go(tab, "Pricing & revenue")
    assert tab.get_by_role("textbox", name=re.compile("Headline price")).first.input_value() == "2.20"
    go(tab, "Overview")
    assert metric(tab, "GPUs") == "2,048"
    assert "$2.20" in tab.get_by_test_id("stMain").inner_text()
    no_exception(tab, "Overview")


def test_refresh_keeps_the_edits(tab: Any) -> None:
    go(tab, "Compute node")
    ram = tab.get_by_role("textbox", name="System memory [TB]")
    ram.fill("2")
    ram.press("Enter")
    settle(tab)
    assert metric(tab, "Node price") == "$260,560"
    assert "unsaved changes" in header_text(tab)
    assert "draft=" in tab.url
    tab.reload(wait_until="domcontentloaded")
    settle(tab)
    assert metric(tab, "Node price") == "$260,560"
    assert tab.get_by_role("textbox", name="System memory [TB]").input_value() == "2.00"
    assert "unsaved changes" in header_text(tab)


def test_edit_save_reopen_revert(tab: Any) -> None:
    go(tab, "Compute node")
    ram = tab.get_by_role("textbox", name="System memory [TB]")
    ram.fill("2")
    ram.press("Enter")
    settle(tab)
    header = tab.locator(".st-key-scenario_header")
    header.get_by_role("button", name="Save as").click()
    body = tab.get_by_test_id("stPopoverBody")
    body.get_by_role("textbox", name="Name").fill("Journey plan")
    body.get_by_role("textbox", name="Name").press("Enter")
    body.get_by_role("button", name="Save", exact=True).click()
    settle(tab)
    assert "Journey plan" in header_text(tab) and "unsaved" not in header_text(tab)
    assert not tab.get_by_test_id("stPopoverBody").filter(has_text="Message").is_visible()  # saved: it closed
    _open_in_sidebar(tab, "reference (preset)")
    assert metric(tab, "Node price") == "$270,000"
    _open_in_sidebar(tab, "Journey plan")
    assert metric(tab, "Node price") == "$260,560"
    ram = tab.get_by_role("textbox", name="System memory [TB]")
    ram.fill("4")
    ram.press("Enter")
    settle(tab)
    assert "unsaved changes" in header_text(tab)
    assert metric(tab, "Node price") != "$260,560"
    header.get_by_role("button", name="Revert").click()
    settle(tab)
    assert metric(tab, "Node price") == "$260,560"
    assert tab.get_by_role("textbox", name="System memory [TB]").input_value() == "2.00"
    assert "unsaved" not in header_text(tab)
    no_exception(tab, "Compute node")


def test_user_text_is_never_rendered_or_fetched(tab: Any, tmp_path: Path) -> None:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    bait = f"http://127.0.0.1:{server.server_port}"
    try:
        plan = tmp_path / "shared.yaml"
        plan.write_text(
            f"name: '![pixel]({bait}/name.png) <img src=\"{bait}/name-html.png\"> **bold**'\n"
            f"description: '![pixel]({bait}/description.png) <img src=\"{bait}/description-html.png\">'\n"
            "base: optimized\n"
        )
        _upload_scenario(tab, plan)
        go(tab, "Scenarios")
        go(tab, "Overview")
        assert "![pixel](" in header_text(tab) and "**bold**" in header_text(tab)  # shown as typed
        sidebar = tab.get_by_test_id("stSidebar").inner_text()
        assert "![pixel](" in sidebar
        assert tab.locator(f"img[src^='{bait}']").count() == 0
        tab.wait_for_timeout(500)
        assert hits == [], f"fetched from a scenario's text: {hits}"
    finally:
        server.shutdown()


def test_stress_test_survives_leave_and_return(tab: Any) -> None:
    sections = {  # tab → its chart's title (one tab is drawn at a time)
        "Tornado: one at a time": "Equity IRR: one driver at a time",
        "Grid: two at a time": "Equity IRR over two drivers",
        "Monte Carlo: all at once": "Equity IRR: cumulative share",
    }
    for visit in ("first", "second"):
        go(tab, "Stress test")
        main = tab.get_by_test_id("stMain")
        for name, title in sections.items():
            main.get_by_role("tab", name=name, exact=True).click()
            settle(tab)
            drawn = main.locator(CHART_DRAWN)
            drawn.first.wait_for(timeout=60_000)
            titles = drawn.locator("text").evaluate_all("els => els.map(e => e.textContent)")
            assert any(t.startswith(title) for t in titles), (visit, name, titles)
            assert "Fix the driver ranges" not in main.inner_text(), visit
        assert "Probability of loss" in main.inner_text()
        no_exception(tab, f"Stress test, {visit} visit")
        go(tab, "Overview")


def test_quote_review_survives_leave_and_return(tab: Any) -> None:
    go(tab, "Quote review")
    uploader = tab.get_by_test_id("stFileUploader").filter(has_text="Upload a quote")
    uploader.locator("input[type=file]").set_input_files(str(QUOTES / "oem_padded_1024_h100.xlsx"))
    settle(tab)
    main = tab.get_by_test_id("stMain")
    main.get_by_text("oem_padded_1024_h100.xlsx").first.wait_for(timeout=30_000)
    total = metric(tab, "Quote total")
    go(tab, "Network")
    go(tab, "Quote review")
    main.get_by_text("oem_padded_1024_h100.xlsx").first.wait_for(timeout=30_000)
    assert metric(tab, "Quote total") == total
    no_exception(tab, "Quote review")


def test_applied_recommendations_stay(tab: Any) -> None:
    go(tab, "Quote review")
    _choose(tab, "sample quote", "One server, messy reseller export (CSV) × 32 servers")
    tab.get_by_role("button", name="Apply recommendations").click()
    settle(tab)
    go(tab, "Overview")
    assert metric(tab, "GPUs") == "256"
    for label in ("Compute node", "Financing", "Overview"):
        go(tab, label)
    assert metric(tab, "GPUs") == "256"
    no_exception(tab, "Overview")


def test_operations_checklist_moves_the_figures_and_stays(tab: Any) -> None:
    go(tab, "Operations")
    goodput, npv = metric(tab, "Goodput"), metric(tab, "NPV")
    tab.get_by_role("tab", name="Readiness checklist").click()
    settle(tab)
    box = tab.get_by_test_id("stCheckbox").filter(has_text="NCCL-hang detector")
    assert box.locator("input").is_checked()
    box.locator("label").click()
    settle(tab)
    assert not box.locator("input").is_checked()
    assert metric(tab, "Goodput") != goodput and metric(tab, "NPV") != npv
    after = (metric(tab, "Goodput"), metric(tab, "NPV"))
    assert "unsaved changes" in header_text(tab)
    go(tab, "Overview")
    go(tab, "Operations")
    box = tab.get_by_test_id("stCheckbox").filter(has_text="NCCL-hang detector")  # back on the tab it was left on
    box.wait_for(timeout=30_000)
    assert not box.locator("input").is_checked()
    assert (metric(tab, "Goodput"), metric(tab, "NPV")) == after
    no_exception(tab, "Operations")


def test_plan_from_power_journey(tab: Any) -> None:
    """Overview: switch on Plan from power, give 10 MW: the design fills it and the power-first figures show."""
    plan = {"cluster": {"size_by": "power"}, "facility": {"it_power_mw": 10}, "storage": {"usable_pb": None}}
    ten = neoplan.evaluate(neoplan.load_scenario({"base": DEFAULT_PRESET, **plan}))  # storage by the rule: 14.2 PB
    tab.get_by_test_id("stCheckbox").get_by_text("Plan from power", exact=True).click()
    settle(tab)
    mw = tab.get_by_role("textbox", name=re.compile("IT power available"))
    mw.fill("10")
    mw.press("Enter")
    settle(tab)
    assert metric(tab, "GPUs") == fmt.count(ten.gpus) == "7,288"
    assert metric(tab, "Envelope left") == fmt.kw(ten.to_dict()["it_power_left_kw"])
    assert metric(tab, "Tokens per MW") == fmt.tokens_per_second(ten.tokens_per_second_per_mw)
    assert metric(tab, "Revenue per MW-year") == fmt.usd(ten.revenue_usd_per_mw_year)
    assert "kW unused" in tab.get_by_test_id("stMain").inner_text()
    go(tab, "Pricing & revenue")  # the same 10 MW cluster, rented or serving tokens
    ways = tab.get_by_test_id("stTable").first.inner_text()
    assert fmt.usd(ten.returns_by_sale()["tokens"]["npv_usd"]) in ways and "Serve tokens" in ways
    no_exception(tab, "Pricing & revenue")


def test_open_a_search_row_as_the_scenario(tab: Any) -> None:
    found = neoplan.search(neoplan.load_scenario(DEFAULT_PRESET))
    row = found.table.iloc[1]
    go(tab, "Design search")
    assert metric(tab, "Designs built") == "200"  # NVL72 only with the NICs its trays carry
    label = (
        f"2. {row['gpu_model']} · {row['topology']} {row['oversubscription']:g}:1 · {row['nics_per_node']} NICs · "
        f"{row['storage']} · {fmt.pct(row['debt_share'], 0)} debt"
    )
    picker = tab.get_by_test_id("stSelectbox").filter(has_text="Open a design as the scenario").first.locator("input")
    picker.click()
    if picker.get_attribute("aria-expanded") != "true":  # below a data grid the first click only focuses it
        picker.press("ArrowDown")
    tab.get_by_role("option", name=label, exact=True).click()
    settle(tab)
    tab.get_by_role("button", name="Open as scenario").click()
    settle(tab)
    assert metric(tab, "GPUs") == fmt.count(row["gpus"])  # Overview now shows the opened design
    assert "search rank 2" in header_text(tab)
    assert fmt.usd(found.table.iloc[1]["capex_usd"]) in tab.get_by_test_id("stMain").inner_text()
    no_exception(tab, "Overview")
