"""Sign-in: Streamlit's OIDC ``st.login`` when the secrets have an ``[auth]`` section; one local user otherwise.

With ``[auth]`` (``redirect_uri``, ``cookie_secret``, the provider's ``client_id``, ``client_secret``,
``server_metadata_url``, and an allow-list: ``allowed_domains``, ``allowed_emails`` and/or ``allowed_subjects``; see
docs/deployment.md), every page asks for sign-in first. The signed-in account is the provider's ``iss`` and ``sub``
(:mod:`neoplan.store.access`): that pair owns what they save and the drafts they make; their e-mail counts — shown,
matched against the allow-list — only if the provider verified it. An account the allow-list does not name gets a page
that says so, and nothing else. Without ``[auth]`` the app is for one local user, as before sign-in existed, and sees
every scenario.

The share-link secret is ``share_secret`` in the secrets, else ``$NEOPLAN_SHARE_SECRET``; without either, share
links are off. A server whose secrets are unsafe (an example secret, one under 32 bytes, an ``[auth]`` without an
allow-list) serves nobody: every visitor sees what the operator must fix.

A share link opened before signing in survives the sign-in: the provider sends the browser back to the app's home,
without the link's ``?share=``, so the sign-in page keeps the token in a short-lived cookie (``neoplan_share``, 15
minutes, set by the page's own script) that the first run after sign-in reads and clears (:func:`pending_share`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from neoplan.store import LOCAL, LibraryError, User, access
from neoplan.store.share import secret_from_env
from ui.format import plain

_log = logging.getLogger("neoplan.app")
SHARE_COOKIE = "neoplan_share"
SHARE_COOKIE_S = 900
"""How long a share link opened signed out waits for the sign-in [s]."""
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,160}\.[A-Za-z0-9_-]{1,60}")
"""What a share token looks like (base64url payload and signature): nothing else is put in a cookie or a script."""
REGISTERED = "auth.registered"


def _secret(key: str) -> Any:
    try:
        return st.secrets.get(key)
    except (StreamlitSecretNotFoundError, FileNotFoundError):
        return None


def _auth() -> Mapping[str, Any] | None:
    section = _secret("auth")
    if not section:
        return None
    return section.to_dict() if hasattr(section, "to_dict") else dict(section)


def enabled() -> bool:
    """Whether sign-in is configured (an ``[auth]`` section in the secrets)."""
    return bool(_secret("auth"))


def share_secret() -> str | None:
    """The secret that signs share links (secrets ``share_secret``, else ``$NEOPLAN_SHARE_SECRET``)."""
    value = _secret("share_secret")
    return str(value) if value else secret_from_env()


def identity() -> access.Identity | None:
    """The signed-in account if the allow-list admits it (None: sign-in is off, nobody is signed in, or refused)."""
    auth = _auth()
    if auth is None or not st.user.is_logged_in:
        return None
    try:
        return access.admit(st.user.to_dict(), access.AllowList.from_auth(auth))
    except (access.Refused, access.ConfigError):
        return None


def current_user() -> User:
    """The signed-in, admitted user; ``LOCAL`` when sign-in is off. :func:`require_sign_in` stops everyone else."""
    if not enabled():
        return LOCAL
    who = identity()
    if who is None:  # never reached past require_sign_in; a user id nobody has, should it be
        return User("-")
    return User(who.user_id)


def _refuse(title: str, lines: list[str], sign_out: bool) -> None:
    st.title("neoplan — GPU cloud planner")
    st.error(title, icon=":material/block:")
    for line in lines:
        st.markdown(f"- {plain(line)}")
    if sign_out:
        st.button("Sign out", key="auth.sign_out_refused", on_click=st.logout)
    st.stop()


def _remember_share() -> None:
    """On the sign-in page: keep a ``?share=`` token in a cookie for the run after sign-in (see the module)."""
    token = str(st.query_params.get("share") or "")
    if TOKEN.fullmatch(token):
        st.html(
            f"<script>document.cookie = '{SHARE_COOKIE}={token}; Path=/; Max-Age={SHARE_COOKIE_S}; "
            "SameSite=Lax';</script>",
            unsafe_allow_javascript=True,
        )


def pending_share() -> str | None:
    """A share token kept across the sign-in (None if there is none); the cookie is cleared as it is read."""
    try:
        token = str(st.context.cookies.get(SHARE_COOKIE) or "")
    except (AttributeError, RuntimeError):  # no browser behind this run (AppTest)
        return None
    if not token:
        return None
    st.html(
        f"<script>document.cookie = '{SHARE_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax';</script>",
        unsafe_allow_javascript=True,
    )
    return token if TOKEN.fullmatch(token) else None


def _register(who: access.Identity) -> None:
    """Keep how others see this user (once per session); a library that is down only delays it."""
    if st.session_state.get(REGISTERED) == who.user_id:
        return
    from ui.state import get_library  # ui.state imports this module

    try:
        get_library().register(who.label, who.email)
    except LibraryError:
        return
    st.session_state[REGISTERED] = who.user_id


def require_sign_in() -> None:
    """Stop the run with a page of its own unless this visitor may see the app: a server set up unsafely shows what
    to fix; with sign-in on, nobody signed in gets the sign-in screen and an account the allow-list does not admit
    a refusal."""
    auth = _auth()
    problems = access.server_problems(auth, share_secret())
    if problems:
        _log.error("neoplan serves nobody until its configuration is fixed: %s", "; ".join(problems))
        _refuse(
            "This neoplan server is not set up safely, so it shows nothing. Its operator must fix:", problems, False
        )
    if auth is None:
        return
    if not st.user.is_logged_in:
        st.title("neoplan — GPU cloud planner")
        st.write("Sign in to see your scenarios and the ones your team shares.")
        st.button("Sign in", key="auth.sign_in", type="primary", on_click=st.login)
        _remember_share()
        st.stop()
    try:
        who = access.admit(st.user.to_dict(), access.AllowList.from_auth(auth))
    except access.Refused as exc:
        _log.warning("sign-in refused: %s", exc)
        _refuse(
            "This account may not use this neoplan.",
            [f"{exc}.", "Ask its operator to add you, or sign in with another account."],
            True,
        )
        return
    _register(who)


def sidebar_panel() -> None:
    """Who is signed in, and a Sign out button (nothing without sign-in)."""
    who = identity()
    if who is None:
        return
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.caption(f"Signed in as **{plain(who.label)}**")
        st.button("Sign out", key="auth.sign_out", on_click=st.logout)
