"""Helpers for the browser tests: a `streamlit run` server, Debian's Chromium through Playwright, page waits.

Screenshots go to a temporary folder, or to docs/screenshots/ (the README's tour) when
``NEOPLAN_UPDATE_SCREENSHOTS=1``: a test run never rewrites tracked files unless asked.
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
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1440, "height": 1000}
PAGE_LABELS = [
    "Overview",
    "Compute node",
    "Network",
    "Storage & site",
    "Operations",
    "Design search",
    "Financing",
    "Pricing & revenue",
    "Results",
    "Stress test",
    "Scenarios",
    "Compare",
    "Quote review",
    "Export",
]
"""The sidebar's page links, in order (app.py's navigation)."""


@contextmanager
def new_tab(context: Any, url: str) -> Iterator[Any]:
    """A new tab (a browser session of its own) on ``url``, settled; closed afterwards."""
    page = context.new_page()
    page.goto(url, wait_until="domcontentloaded")
    settle(page)
    try:
        yield page
    finally:
        page.close()


def need(condition: bool, reason: str) -> None:
    """Skip with ``reason`` unless ``condition``; in CI (``CI`` set) fail instead: there the tests must run."""
    if not condition:
        if os.environ.get("CI"):
            pytest.fail(f"browser test cannot run in CI: {reason}")
        pytest.skip(reason)


def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """docs/screenshots/ if NEOPLAN_UPDATE_SCREENSHOTS=1, else a temporary folder."""
    if os.environ.get("NEOPLAN_UPDATE_SCREENSHOTS") == "1":
        README_SHOTS.mkdir(parents=True, exist_ok=True)
        return README_SHOTS
    return tmp_path_factory.mktemp("screenshots")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def streamlit_server(
    library: Path,
    root: Path = ROOT,
    *,
    port: int | None = None,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """`streamlit run app.py` of the checkout ``root`` on a free localhost port with its own scenario library;
    yields the URL.

    ``args`` are more options for ``streamlit run`` (``--secrets.files=…``), ``env`` more environment variables.
    """
    port = port or free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(root / "app.py"),
        "--server.headless=true",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--browser.gatherUsageStats=false",
        "--server.fileWatcherType=none",
        *args,
    ]
    environment = {**os.environ, "NEOPLAN_LIBRARY": str(library), **(env or {})}
    proc = subprocess.Popen(cmd, cwd=root, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        else:
            pytest.fail("streamlit did not become healthy in 60 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One persistent Chromium context (reused by every test of a module)."""
    need(Path(CHROMIUM).exists(), f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need(False, "playwright is not installed (pip install -r requirements.txt)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=ARGS, viewport=VIEWPORT
        )
        _instrument(context)
        try:
            yield context
        finally:
            context.close()


CHART = '[data-testid="stPlotlyChart"]'
"""A chart on the page (Streamlit's plotly element)."""
CHART_DRAWN = CHART + " .main-svg"
"""A chart's drawing: plotly's SVG, there once the chart is drawn."""
CHARTS_PENDING = (
    f"[...document.querySelectorAll('{CHART}')].some(e => e.checkVisibility() && !e.querySelector('.main-svg'))"
)
"""JavaScript: true while a chart on the page is not drawn yet (one in a tab that is not shown is drawn when the tab
is opened)."""


RUNS_JS = """() => {
    if (window.__neoplanRuns) return;
    const runs = window.__neoplanRuns = {finished: 0, seen: 0, changed: performance.now(), since: 0};
    new MutationObserver(records => {
        for (const r of records) {
            const now = r.target.getAttribute('data-test-script-state');
            if (r.oldValue === now) continue;
            runs.changed = performance.now();
            if (r.oldValue === 'running') runs.finished += 1;
        }
    }).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                          attributeFilter: ['data-test-script-state']});
}"""
"""JavaScript: counts the script runs a page has seen finish. Streamlit's app root carries the run's state in
``data-test-script-state`` (``initial``, ``running``, ``notRunning``; the attribute its own end-to-end tests wait on);
each change away from ``running`` is a finished run. Installed in every document of a context from its first byte
(:func:`settle` adds it as an init script), and into the open document if that came first."""
RUN_SETTLED_JS = """([quiet, grace]) => {
    const runs = window.__neoplanRuns, app = document.querySelector('[data-testid="stApp"]');
    if (!runs || !app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    const now = performance.now();
    if (now - runs.changed < quiet) return false;
    return runs.finished > runs.seen || now - runs.since > grace;
}"""
"""JavaScript: the app is idle, has been for ``quiet`` ms, and either a run finished since the last settle (the
one the action before it started) or none began within ``grace`` ms of the settle (an action that reruns nothing)."""
RUN_QUIET_MS = 300
"""How long the app must stay idle after a run before the page counts as settled [ms]: a run that chains another
(``st.rerun``) is not over at its first end."""
RUN_GRACE_MS = 1_000
"""How long :func:`settle` waits for a run to begin when none has finished since the last settle [ms]: an action
whose rerun has not reached the server yet (an upload still sending) is waited for this long."""
_INSTRUMENTED: weakref.WeakSet[Any] = weakref.WeakSet()


def _instrument(context: Any) -> None:
    """Count script runs (:data:`RUNS_JS`) in every document ``context`` opens from now on."""
    if context not in _INSTRUMENTED:
        context.add_init_script(script=f"({RUNS_JS})()")
        _INSTRUMENTED.add(context)


def settle(tab: Any) -> None:
    """Wait until the script run the last action started is over and every chart is drawn (up to a minute each: a
    new tab evaluates plotly.js, several seconds of the browser's main thread on a loaded machine).

    No fixed sleep: the run is known to be over from the run counter of :data:`RUNS_JS` (a run that finished
    since the last settle, then :data:`RUN_QUIET_MS` idle); an action that starts no run costs
    :data:`RUN_GRACE_MS`."""
    _instrument(tab.context)
    tab.wait_for_selector("[data-testid='stApp']", timeout=60_000)
    tab.evaluate(f"() => {{ ({RUNS_JS})(); window.__neoplanRuns.since = performance.now(); }}")
    tab.wait_for_function(RUN_SETTLED_JS, arg=[RUN_QUIET_MS, RUN_GRACE_MS], timeout=60_000)
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " && !document.querySelector('[data-testid=\"stSkeleton\"]')"
        ' && document.querySelector(\'[data-testid="stMain"] [data-testid="stElementContainer"]\')',
        timeout=60_000,
    )
    tab.wait_for_function(f"() => !({CHARTS_PENDING})", timeout=60_000)  # charts draw after the script finishes
    tab.evaluate("() => { window.__neoplanRuns.seen = window.__neoplanRuns.finished; }")


def go(tab: Any, label: str) -> None:
    """Click the sidebar link to the page titled ``label`` and wait for it."""
    tab.get_by_test_id("stSidebar").get_by_role("link", name=label, exact=True).click()
    settle(tab)


def metric(tab: Any, label: str) -> str:
    """The value of the (first) metric card labelled ``label``."""
    card = (
        tab.get_by_test_id("stMetric")
        .filter(has=tab.get_by_test_id("stMetricLabel").filter(has_text=re.compile(f"^{re.escape(label)}$")))
        .first
    )
    card.wait_for(timeout=60_000)
    return str(card.get_by_test_id("stMetricValue").inner_text()).strip()


def header_text(tab: Any) -> str:
    """What the scenario header says (name, source, unsaved mark)."""
    return str(tab.locator(".st-key-scenario_header").inner_text())


def no_exception(tab: Any, where: str) -> None:
    assert tab.get_by_test_id("stException").count() == 0, f"exception on {where}"
