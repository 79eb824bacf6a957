"""The team set-up end to end, without Docker: PostgreSQL, two replicas, Debian's nginx with the shipped config and
an OpenID Connect provider (tests/team_support.py), and a browser that goes through nginx as ``planner.test:PORT``.

The journey: people sign in (and accounts the allow-list does not name are refused), save and conflict across the
two replicas, share a link that survives a sign-in, lose their replica to kill -9 mid-session and carry on on the
other one, and once the killed replica is back upload a 4 MB quote and download a file without reloading.
"""

from __future__ import annotations

import base64
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import ARGS, CHROMIUM, need, settle
from store_support import pg_schema
from team_support import (
    RESOLVER_ARG,
    ROOT,
    Team,
    free_port,
    local_nginx_conf,
    nginx_binary,
    team,
    wait_healthy,
)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    need(nginx_binary() is not None, "nginx is not installed (apt-get install nginx-light)")
    try:
        import oidc_provider_mock  # noqa: F401
    except ImportError:
        need(False, "oidc-provider-mock is not installed (pip install -r requirements.txt)")
    with pytest.MonkeyPatch.context() as patch, pg_schema() as database_url:
        patch.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")  # the provider, in this process, on plain http
        with team(tmp_path_factory.mktemp("team"), database_url) as started:
            yield started


def _handshake(port: int, host: str) -> str:
    """The status line nginx on ``port`` answers a browser's WebSocket handshake for the app at ``host``."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(
            f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: http://{host}\r\n"
            "Sec-WebSocket-Protocol: streamlit\r\n\r\n".encode()
        )
        return s.recv(200).decode(errors="replace").splitlines()[0]


def test_websockets_pass_nginx_for_a_host_name_with_a_port(running: Team, tmp_path: Path) -> None:
    """Issue 39: ``Host $host`` dropped the port, Streamlit refused the WebSocket (403) and the page stayed blank."""
    port = int(running.url.rsplit(":", 1)[1])
    assert _handshake(port, f"planner.test:{port}") == "HTTP/1.1 101 Switching Protocols"
    (tmp_path / "logs").mkdir()
    old = (ROOT / "deploy" / "nginx.conf").read_text().replace("Host $http_host;", "Host $host;")
    listen = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(local_nginx_conf(old, [r.port for r in running.replicas], listen, tmp_path / "nginx.pid"))
    nginx = nginx_binary()
    assert nginx is not None
    proc = subprocess.Popen(
        [nginx, "-p", str(tmp_path), "-c", str(conf), "-g", f"daemon off; error_log {tmp_path}/logs/error.log;"]
    )
    try:
        wait_healthy(f"http://127.0.0.1:{listen}", 20)
        assert _handshake(listen, f"planner.test:{listen}") == "HTTP/1.1 403 Forbidden"  # the test can tell
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# -- the browser journey -------------------------------------------------------------------------------------------


def _sign_in(browser: Any, running: Team, sub: str, replica: str | None = None, url: str | None = None) -> Any:
    """A new browser context (its own cookies; pinned to ``replica`` a or b) that signs in as ``sub``."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    if replica:
        context.add_cookies([{"name": "neoplan_replica", "value": replica, "url": running.url}])
    tab = context.new_page()
    tab.goto(url or running.url)
    tab.get_by_role("button", name="Sign in").click(timeout=30_000)
    tab.wait_for_url(f"{running.provider}/**", timeout=30_000)
    tab.fill("input[name=sub]", sub)
    tab.get_by_role("button", name="Authorize").click()
    tab.wait_for_url(f"{running.url}/**", timeout=30_000)
    tab.wait_for_selector("[data-testid='stApp']", timeout=30_000)
    return tab


def _signed_in(tab: Any, label: str) -> None:
    signed = tab.get_by_text(re.compile(r"^Signed in as "))
    signed.wait_for(timeout=30_000)
    assert signed.inner_text().replace("\u2060", "") == f"Signed in as {label}"
    settle(tab)


def _replica(tab: Any) -> str:
    return next(c["value"] for c in tab.context.cookies() if c["name"] == "neoplan_replica")


def _go(tab: Any, label: str) -> None:
    tab.get_by_test_id("stSidebar").get_by_role("link", name=label, exact=True).click()
    settle(tab)


def _gpus(tab: Any, gpus: int) -> None:
    _go(tab, "Compute node")
    field = tab.get_by_test_id("stMain").get_by_role("textbox", name="GPUs in the cluster", exact=True)
    field.fill(f"{gpus:,}")
    field.press("Enter")
    settle(tab)


def _save_shared(tab: Any, name: str) -> None:
    _go(tab, "Scenarios")
    form = tab.locator(".st-key-scenarios_save_form")
    field = form.get_by_label("Name", exact=True)
    field.fill(name)
    field.press("Enter")
    settle(tab)
    form.get_by_text("Share with the team", exact=True).click()
    settle(tab)
    form.get_by_role("button", name="Save", exact=True).click()
    tab.get_by_test_id("stMain").get_by_text(f"Saved “{name}” as version 1").wait_for(timeout=30_000)


def _open(tab: Any, name: str) -> None:
    _go(tab, "Overview")  # a run now: the sidebar lists what was saved since this tab last ran
    box = tab.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first
    box.locator("input").click()
    box.locator("input").fill(name)
    tab.get_by_role("option", name=name, exact=True).click()
    settle(tab)


def _header(tab: Any) -> str:
    return str(tab.locator(".st-key-scenario_header").inner_text())


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_a_team_works_through_nginx_across_replicas_and_a_crash(running: Team, tmp_path: Path) -> None:
    need(Path(CHROMIUM).exists(), f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need(False, "playwright is not installed (pip install -r requirements.txt)")
    for who in ("alice", "bob", "carol"):
        running.account(who, f"{who}@example.com")
    running.account("eve", "alice@example.com", verified=False)  # claims alice's address; unverified
    running.account("nomail", None)
    timings: dict[str, float] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[*ARGS, RESOLVER_ARG])
        try:
            # Accounts the allow-list does not name see a refusal and nothing else.
            for sub, words in (
                ("eve", "has not verified the e-mail address alice@example.com"),
                ("nomail", "did not give"),
            ):
                tab = _sign_in(browser, running, sub)
                tab.get_by_text("This account may not use this neoplan.").wait_for(timeout=30_000)
                assert words in tab.get_by_test_id("stMain").inner_text().replace("\u2060", "")
                assert tab.get_by_test_id("stSidebar").count() == 0 or "Open scenario" not in tab.content()
                tab.context.close()

            # Two people on two replicas, one database: a save, and a conflict that says who and when.
            alice = _sign_in(browser, running, "alice", replica="a")
            _signed_in(alice, "alice@example.com")
            bob = _sign_in(browser, running, "bob", replica="b")
            _signed_in(bob, "bob@example.com")
            assert (_replica(alice), _replica(bob)) == ("a", "b")
            _gpus(alice, 2048)
            _save_shared(alice, "Team plan")
            _open(bob, "Team plan")
            assert "Team plan" in _header(bob)
            _gpus(bob, 4096)
            _gpus(alice, 3072)
            alice.locator(".st-key-scenario_header").get_by_role("button", name="Save", exact=True).click()
            alice.get_by_text("Saved “Team plan” as version 2").wait_for(timeout=30_000)
            bob.locator(".st-key-scenario_header").get_by_role("button", name="Save", exact=True).click()
            bob.get_by_text(re.compile("has a newer version 2")).wait_for(timeout=30_000)
            said = bob.get_by_test_id("stMain").inner_text().replace("\u2060", "")
            assert re.search(r"version 2 by alice@example\.com at \d{4}-\d\d-\d\d", said), said[:600]

            # A share link to version 1, opened signed out: the copy opens after the sign-in.
            _go(alice, "Scenarios")
            alice.get_by_role("button", name="Share link to version 1").click()
            settle(alice)
            link = alice.get_by_test_id("stCode").first.inner_text().strip()
            assert link.startswith(f"{running.url}/") and "?share=" in link, link
            carol = _sign_in(browser, running, "carol", url=link)
            _signed_in(carol, "carol@example.com")
            assert "shared link to “Team plan” version 1 shared by alice@example.com" in _header(carol).replace(
                "\u2060", ""
            )
            carol.context.close()

            # kill -9 of alice's replica mid-session: her tab moves to the other one and keeps her draft.
            _gpus(alice, 1536)
            seen: dict[str, float] = {}

            def reconnects(_ws: Any) -> None:  # when the tab opens its new connection
                seen.setdefault("opened", time.monotonic())

            alice.on("websocket", reconnects)
            started = time.monotonic()
            running.replicas[0].kill()
            while "opened" not in seen and time.monotonic() - started < 60:
                alice.wait_for_timeout(20)
            assert "opened" in seen, "the tab did not reconnect within 60 s"
            timings["reconnected through nginx [s]"] = seen["opened"] - started
            assert _replica(alice) == "b"  # nginx answered from the other replica and moved the cookie
            # Streamlit's page reruns on the new replica at its next interaction: a session of its own there, which
            # reads the tab's draft from the database.
            clicked = time.monotonic()
            _go(alice, "Overview")
            _go(alice, "Compute node")
            timings["first two page switches after the crash [s]"] = time.monotonic() - clicked
            field = alice.get_by_test_id("stMain").get_by_role("textbox", name="GPUs in the cluster", exact=True)
            assert field.input_value() == "1,536"  # the draft, read from the database by the other replica
            _signed_in(alice, "alice@example.com")  # the sign-in cookie is good on every replica

            # The killed replica comes back: alice stays where her session is; uploads and downloads work unreloaded.
            running.replicas[0].start()
            wait_healthy(running.replicas[0].url)
            _go(alice, "Quote review")
            quote = tmp_path / "quote_4mb.csv"
            base = (ROOT / "data" / "quotes" / "per_server_messy.csv").read_bytes()
            quote.write_bytes(base + b"\n" * (4 * 1024 * 1024 - len(base)))
            uploader = alice.get_by_test_id("stFileUploader").filter(has_text="Upload a quote")
            started = time.monotonic()
            uploader.locator("input[type=file]").set_input_files(str(quote))
            settle(alice)
            text = alice.get_by_test_id("stMain").inner_text()
            assert not re.search(r"\b(400|404|413)\b|AxiosError|Request failed", text), text[:600]
            alice.get_by_text(quote.name).first.wait_for(timeout=30_000)
            timings["4 MB quote uploaded and read [s]"] = time.monotonic() - started
            with alice.expect_download(timeout=30_000) as download:
                alice.get_by_test_id("stSidebar").get_by_role("button", name=re.compile("YAML")).first.click()
            body = Path(download.value.path()).read_text()
            assert "gpus: 1536" in body, body[:300]
            assert _replica(alice) == "b"
            for tab in (alice, bob):
                tab.context.close()
        finally:
            browser.close()
    print("team journey:", ", ".join(f"{k} {v:.2f}" for k, v in timings.items()))
