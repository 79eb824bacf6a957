"""Sign-in: with ``[auth]`` in the secrets nobody sees a page before signing in, and each user sees their own private
scenarios and the shared ones, never another's private scenarios or drafts.

Twice: under AppTest (``at.user`` plays the signed-in user), and in a real browser through ``st.login`` against a
local OpenID Connect provider (``oidc-provider-mock`` in a thread on localhost) with two users in two browser
contexts. The store-level rules are in ``test_store.py``.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import ARGS, CHROMIUM, free_port, need, settle, streamlit_server
from conftest import page_path
from streamlit.testing.v1 import AppTest

from neoplan.store import Library, User, default_path
from ui.format import plain

APP = page_path("app")
pytestmark = pytest.mark.usefixtures("run_like_the_server")
ISSUER = "https://id.example.com"
AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "a-cookie-secret-for-the-tests-only-0123456789",
    "client_id": "neoplan",
    "client_secret": "neoplan-test-secret",
    "server_metadata_url": "http://localhost:9/.well-known/openid-configuration",
    "allowed_domains": ["example.com"],
    "allowed_emails": ["carol@partner.org"],
    "allowed_subjects": ["service-account-7"],
}
ALICE, BOB = "alice@example.com", "bob@example.com"


def claims(sub: str, email: str | None = None, verified: bool = True, iss: str = ISSUER) -> dict[str, Any]:
    """An ID token's claims as st.user holds them after st.login."""
    found: dict[str, Any] = {"is_logged_in": True, "iss": iss, "sub": sub, "aud": "neoplan"}
    if email is not None:
        found |= {"email": email, "email_verified": verified}
    return found


def _as(user: str | dict[str, Any] | None, draft: str | None = None, auth: dict[str, Any] | None = None) -> AppTest:
    """app.py as ``user``: an e-mail (verified, its own sub), claims, or None (signed out)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets["auth"] = AUTH if auth is None else auth
    if user is None:
        at.user = {"is_logged_in": False}
    else:
        at.user = claims(f"sub-{user}", user) if isinstance(user, str) else user
    if draft:
        at.query_params["draft"] = draft
    at.run()
    assert not at.exception, at.exception
    return at


def _texts(at: AppTest) -> str:
    return "\n".join(
        str(m.value) for m in [*at.markdown, *at.caption, *at.sidebar.markdown, *at.sidebar.caption, *at.error]
    )


def _words(at: AppTest) -> str:
    """:func:`_texts` as a person reads it: Markdown escapes and word joiners (ui.format.plain) taken out."""
    return _texts(at).replace("\\", "").replace("\u2060", "")


def _user(email: str) -> User:
    return User(f"{ISSUER} sub-{email}")


def _save_as(at: AppTest, name: str, shared: bool) -> None:
    at.switch_page("pages/scenarios.py").run()
    field = next(t for t in at.text_input if str(t.key).startswith("scenarios.save_name."))
    field.set_value(name).run()
    at.checkbox(key="scenarios.save_shared").set_value(shared).run()
    at.button(key="scenarios.save").click().run()
    assert not at.exception and any("Saved" in str(s.value) for s in at.success), [e.value for e in at.error]


def _refused(at: AppTest) -> str:
    """The refusal page's words; fails if the app showed anything of the library."""
    assert not at.metric and not at.sidebar.selectbox, "a refused visitor saw the app"
    assert [b.label for b in at.button] == ["Sign out"]
    return _words(at)


def test_nobody_sees_a_page_before_signing_in() -> None:
    at = _as(None)
    assert [b.label for b in at.button] == ["Sign in"]
    assert not at.metric and not at.sidebar.selectbox  # no figures, no library: the run stopped at sign-in


def test_each_user_sees_own_and_shared_scenarios_never_the_others_private_ones_or_drafts() -> None:
    alice = _as(ALICE)
    assert f"Signed in as **{plain(ALICE)}**" in _texts(alice)
    _save_as(alice, "Alice own plan", shared=False)
    _save_as(alice, "Alice team plan", shared=True)
    alice_draft = alice.session_state["scenario_draft_id"]

    bob = _as(BOB)
    options = set(next(s for s in bob.sidebar.selectbox if str(s.key).startswith("sidebar.open.")).options)
    assert "Alice team plan" in options and "Alice own plan" not in options
    _save_as(bob, "Bob own plan", shared=False)
    bob.switch_page("pages/scenarios.py").run()
    listed = _texts(bob)
    assert "Alice team plan" in listed and "Alice own plan" not in listed and "Bob own plan" in listed
    assert ALICE in _words(bob)  # the owner is shown by the verified e-mail, not by the stored iss + sub

    again = _as(ALICE)
    mine = set(next(s for s in again.sidebar.selectbox if str(s.key).startswith("sidebar.open.")).options)
    assert {"Alice own plan", "Alice team plan"} <= mine and "Bob own plan" not in mine

    stolen = _as(BOB, draft=alice_draft)  # alice's address, opened by bob: nothing of hers
    assert stolen.session_state["scenario_draft_id"] != alice_draft
    assert "Alice team plan" not in "\n".join(str(m.value) for m in stolen.markdown[:3])
    assert Library(default_path(), _user(ALICE)).load_draft(alice_draft) is not None  # hers is untouched
    refreshed = _as(ALICE, draft=alice_draft)  # and she gets it back
    assert refreshed.session_state["scenario_draft_id"] == alice_draft
    assert "Alice team plan" in str(refreshed.markdown[0].value)


def test_an_unverified_email_claim_is_nobodys_identity() -> None:
    """eve's provider account claims alice's address, unverified: refused; let in by her subject, she is herself."""
    alice = _as(claims("alice-sub", "dana@example.com"))
    _save_as(alice, "Dana private", shared=False)
    eve = claims("eve-sub", "dana@example.com", verified=False)
    text = _refused(_as(eve))
    assert "has not verified the e-mail address dana@example.com" in text and "(eve-sub)" in text
    admitted = _as(eve, auth={**AUTH, "allowed_subjects": ["eve-sub"]})
    shown = _words(admitted)
    assert "Signed in as **eve-sub**" in shown and "dana" not in shown.lower()
    options = next(s for s in admitted.sidebar.selectbox if str(s.key).startswith("sidebar.open.")).options
    assert "Dana private" not in options
    truthy = claims("eve2-sub", "dana@example.com", verified="true")  # type: ignore[arg-type]
    assert "Signed in as" in _texts(_as(truthy))  # a provider that sends the flag as text "true"


@pytest.mark.parametrize(
    ("who", "words"),
    [
        (claims("no-mail"), "did not give a verified e-mail address"),
        (claims("mallory", "mallory@elsewhere.net"), "mallory@elsewhere.net is not on this neoplan"),
        (claims("sub-domain", "x@sub.example.com"), "is not on this neoplan"),  # domains match exactly
        ({"is_logged_in": True, "email": ALICE, "email_verified": True}, "did not say who you are"),
    ],
)
def test_accounts_the_allow_list_does_not_name_are_refused_with_a_page(who: dict[str, Any], words: str) -> None:
    assert words in _refused(_as(who))


def test_the_allow_list_admits_domains_addresses_and_subjects() -> None:
    for who in (
        claims("c", "Carol@Partner.org"),  # allowed_emails, case aside
        claims("service-account-7"),  # allowed_subjects: no e-mail at all
        claims("d", "dee@EXAMPLE.com"),  # allowed_domains
    ):
        assert "Signed in as" in _texts(_as(who)), who


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"cookie_secret": "a long random string"}, "cookie_secret is the example"),
        ({"cookie_secret": "short"}, "cookie_secret is 5 bytes"),
        ({"allowed_domains": [], "allowed_emails": [], "allowed_subjects": []}, "names nobody who may sign in"),
        ({"allowed_domains": "example.com"}, "must be a list"),
    ],
)
def test_a_server_set_up_unsafely_serves_nobody(change: dict[str, Any], words: str) -> None:
    at = _as(ALICE, auth={**AUTH, **change})
    text = _words(at)
    assert "not set up safely" in text and words in text
    assert not at.metric and not at.sidebar.selectbox and not at.button


def test_the_example_share_secret_stops_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEOPLAN_SHARE_SECRET", "change-me-too-at-least-16-characters")
    at = _as(ALICE)
    assert "share-link secret" in _words(at) and not at.metric


def test_a_user_from_before_iss_and_sub_keeps_what_the_verified_address_owned() -> None:
    """Libraries of the previous release stored the e-mail as the owner: the verified owner of that address gets
    them at sign-in; an unverified claim to it gets nothing."""
    legacy = Library(default_path(), User("frank@example.com"))
    legacy.save("Frank legacy plan", neoplan_scenario(), shared=False)
    frank = _as(claims("frank-sub", "frank@example.com"))
    options = next(s for s in frank.sidebar.selectbox if str(s.key).startswith("sidebar.open.")).options
    assert "Frank legacy plan" in options
    owner = Library(default_path(), User(f"{ISSUER} frank-sub")).entry("Frank legacy plan")
    assert owner is not None and owner.mine and owner.owner == "frank@example.com"


def neoplan_scenario() -> Any:
    import neoplan

    return neoplan.load_scenario("optimized")


# -- the real thing: st.login in Chromium against a local OIDC provider -----------------------------------------


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """A local OpenID Connect provider (any user signs in by typing a name); yields its issuer URL."""
    try:
        from oidc_provider_mock import run_server_in_thread
    except ImportError:
        need(False, "oidc-provider-mock is not installed (pip install -r requirements.txt)")
    with pytest.MonkeyPatch.context() as patch, run_server_in_thread() as server:
        patch.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")  # plain http on localhost, for the provider in this process
        url = f"http://localhost:{server.server_port}"
        for who in (ALICE, BOB):  # accounts whose provider verified their address (the mock's own are unverified)
            body = json.dumps({"email": who, "email_verified": True}).encode()
            request = urllib.request.Request(f"{url}/users/{who}", data=body, method="PUT")
            request.add_header("Content-Type", "application/json")
            urllib.request.urlopen(request, timeout=10).close()
        yield url


@pytest.fixture(scope="module")
def signed_app(provider: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with ``[auth]`` pointing at the local provider, on http://localhost:PORT."""
    folder = tmp_path_factory.mktemp("signin")
    port = free_port()
    secrets = folder / "secrets.toml"
    auth = {**AUTH, "redirect_uri": f"http://localhost:{port}/oauth2callback"}
    auth["server_metadata_url"] = f"{provider}/.well-known/openid-configuration"
    secrets.write_text("[auth]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in auth.items()))  # TOML
    env = {"AUTHLIB_INSECURE_TRANSPORT": "1"}
    with streamlit_server(folder / "scenarios.sqlite", port=port, args=(f"--secrets.files={secrets}",), env=env):
        yield f"http://localhost:{port}"


@pytest.fixture(scope="module")
def chromium_browser() -> Iterator[Any]:
    need(Path(CHROMIUM).exists(), f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need(False, "playwright is not installed (pip install -r requirements.txt)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _sign_in(browser: Any, app: str, provider: str, user: str) -> Any:
    """A new browser context (its own cookies) signed in as ``user`` through the provider's form."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    tab = context.new_page()
    tab.goto(app)
    tab.get_by_role("button", name="Sign in").click(timeout=30_000)
    tab.wait_for_url(f"{provider}/**", timeout=30_000)
    tab.fill("input[name=sub]", user)
    tab.get_by_role("button", name="Authorize").click()
    tab.wait_for_url(f"{app}/**", timeout=30_000)
    signed = tab.get_by_text(re.compile(r"^Signed in as "))
    signed.wait_for(timeout=30_000)
    assert signed.inner_text().replace("\u2060", "") == f"Signed in as {user}"  # the address as text, no mailto link
    settle(tab)
    return tab


def _save_in_browser(tab: Any, name: str, shared: bool) -> None:
    tab.get_by_test_id("stSidebar").get_by_role("link", name="Scenarios", exact=True).click()
    settle(tab)
    form = tab.locator(".st-key-scenarios_save_form")
    field = form.get_by_label("Name", exact=True)
    field.fill(name)
    field.press("Enter")
    settle(tab)
    if shared:
        form.get_by_text("Share with the team", exact=True).click()
        settle(tab)
    form.get_by_role("button", name="Save", exact=True).click()
    tab.get_by_test_id("stMain").get_by_text(re.compile(f"Saved “{re.escape(name)}” as version 1")).wait_for(
        timeout=30_000
    )


@pytest.mark.browser
def test_two_users_sign_in_with_st_login_and_see_only_their_own_and_shared(
    chromium_browser: Any, signed_app: str, provider: str
) -> None:
    alice = _sign_in(chromium_browser, signed_app, provider, ALICE)
    _save_in_browser(alice, "Alice private (browser)", shared=False)
    _save_in_browser(alice, "Alice shared (browser)", shared=True)
    alice_address = alice.url
    assert "draft=" in alice_address

    bob = _sign_in(chromium_browser, signed_app, provider, BOB)
    bob.get_by_test_id("stSidebar").get_by_role("link", name="Scenarios", exact=True).click()
    settle(bob)
    page = bob.get_by_test_id("stMain").inner_text()
    assert "Alice shared (browser)" in page and "Alice private (browser)" not in page
    bob.goto(alice_address)  # alice's own address, with her draft id: opens nothing of hers
    settle(bob)
    header = bob.locator(".st-key-scenario_header").inner_text()
    assert "Alice" not in header and "preset optimized" in header

    alice.get_by_role("button", name="Sign out").click()
    alice.wait_for_url(f"{provider}/**", timeout=30_000)  # st.logout ends the session at the provider too
    alice.get_by_role("button", name="End session").click()
    alice.wait_for_url(f"{signed_app}/**", timeout=30_000)
    alice.get_by_role("button", name="Sign in").wait_for(timeout=30_000)
    assert "Alice" not in alice.get_by_test_id("stMain").inner_text()  # signed out: nothing of hers is shown
    for tab in (alice, bob):
        tab.context.close()
