"""A real browser: `streamlit run app.py` on localhost, Debian's Chromium driven by Playwright.

Skips with a reason where Chromium or Playwright is missing, except in CI (``CI`` set), where it must run.
Screenshots of every page go to docs/screenshots/ (the README's tour).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import neoplan
from ui import format as fmt
from ui.state import DEFAULT_PRESET

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
# (navigation label, slug for the screenshot, text that must appear on the page)
# The default scenario's headline figures, formatted as the app shows them: the pages must show these values.
_DEFAULT = neoplan.evaluate(neoplan.load_scenario(DEFAULT_PRESET))
PAGES = [
    ("Overview", "overview", fmt.usd(_DEFAULT.capex_total_usd)),
    ("Compute node", "compute_node", fmt.usd_exact(_DEFAULT.node_capex_usd)),
    ("Network", "network", fmt.usd(_DEFAULT.capex_usd["backend_network"])),
    ("Storage & site", "storage_site", "Storage servers"),
    ("Financing", "financing", fmt.pct(_DEFAULT.kpis["equity_irr"])),
    ("Pricing & revenue", "pricing", fmt.usd_per_gpu_hour(_DEFAULT.kpis["breakeven_usd_per_gpu_hour"])),
    ("Results", "results", fmt.usd_per_gpu_hour(_DEFAULT.kpis["tco_usd_per_gpu_hour"])),
    ("Stress test", "stress_test", "Probability of loss"),
    ("Scenarios", "scenarios", "Library"),
    ("Compare", "compare", "Deltas in brackets"),
    ("Quote review", "quote_review", "Servers quoted"),
    ("Export", "export", "Excel workbook"),
]

pytestmark = pytest.mark.browser


def _need(condition: bool, reason: str) -> None:
    if not condition:
        if os.environ.get("CI"):
            pytest.fail(f"browser test cannot run in CI: {reason}")
        pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    port = _free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless=true",
           f"--server.port={port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false",
           "--server.fileWatcherType=none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("streamlit did not become healthy in 60 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def page(app_url: str, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    _need(Path(CHROMIUM).exists(), f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need(False, "playwright is not installed (pip install -r requirements.txt)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        browser = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=ARGS, viewport={"width": 1440, "height": 1000}
        )
        tab = browser.new_page()
        tab.goto(app_url, wait_until="domcontentloaded")
        yield tab
        browser.close()


def _settle(tab) -> None:  # type: ignore[no-untyped-def]
    tab.wait_for_selector("[data-testid='stApp']", timeout=30_000)
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000
    )
    tab.wait_for_timeout(1_000)  # let the page's elements arrive before checking the charts
    tab.wait_for_function(  # every plotly chart drawn (they render after the script finishes)
        "() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')]"
        ".every(e => e.querySelector('.main-svg'))",
        timeout=30_000,
    )
    tab.wait_for_timeout(500)


@pytest.mark.parametrize(("label", "slug", "expected"), PAGES)
def test_page_renders(page, label: str, slug: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    nav = page.get_by_test_id("stSidebarNav").get_by_role("link", name=re.compile(f"^{re.escape(label)}$"))
    nav.click()
    _settle(page)
    page.get_by_text(expected, exact=False).first.wait_for(timeout=30_000)
    assert page.get_by_test_id("stException").count() == 0, f"exception on {label}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{slug}.png"), full_page=True)


def test_edit_then_reopen_in_the_browser(page) -> None:  # type: ignore[no-untyped-def]
    """A user edits the node, sees the price move, then reopens the preset from the sidebar."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=re.compile("^Compute node$")).click()
    _settle(page)
    ram = page.get_by_role("spinbutton", name="System memory [TB]")
    ram.fill("2")
    ram.press("Enter")
    page.get_by_text("$260,560").first.wait_for(timeout=30_000)
    page.get_by_role("button", name=re.compile("Reopen optimized")).click()
    _settle(page)
    page.get_by_text(fmt.usd_exact(_DEFAULT.node_capex_usd)).first.wait_for(timeout=30_000)
    assert page.get_by_role("spinbutton", name="System memory [TB]").input_value() == "1.00"
    assert page.get_by_test_id("stException").count() == 0
