"""Sign-in: Streamlit's OIDC ``st.login`` when the secrets have an ``[auth]`` section; one local user otherwise.

With ``[auth]`` (``redirect_uri``, ``cookie_secret``, and the provider's ``client_id``, ``client_secret``,
``server_metadata_url``; see docs/deployment.md), every page asks for sign-in first, and the signed-in user — their
e-mail, else their OIDC ``sub`` — owns what they save and the drafts they make. Without it the app is for one local
user, as before sign-in existed, and sees every scenario.

The share-link secret is ``share_secret`` in the secrets, else ``$NEOPLAN_SHARE_SECRET``; without either, share
links are off.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from neoplan.store import LOCAL, User
from neoplan.store.share import secret_from_env
from ui.format import plain


def _secret(key: str) -> Any:
    try:
        return st.secrets.get(key)
    except (StreamlitSecretNotFoundError, FileNotFoundError):
        return None


def enabled() -> bool:
    """Whether sign-in is configured (an ``[auth]`` section in the secrets)."""
    return bool(_secret("auth"))


def current_user() -> User:
    """The signed-in user; ``LOCAL`` when sign-in is off. Call :func:`require_sign_in` first."""
    if not enabled() or not st.user.is_logged_in:
        return LOCAL
    identity = st.user.get("email") or st.user.get("sub") or ""
    return User(str(identity))


def require_sign_in() -> None:
    """With sign-in on and nobody signed in: a sign-in screen, and the run stops there."""
    if not enabled() or st.user.is_logged_in:
        return
    st.title("neoplan — GPU cloud planner")
    st.write("Sign in to see your scenarios and the ones your team shares.")
    st.button("Sign in", key="auth.sign_in", type="primary", on_click=st.login)
    st.stop()


def sidebar_panel() -> None:
    """Who is signed in, and a Sign out button (nothing without sign-in)."""
    if not enabled() or not st.user.is_logged_in:
        return
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.caption(f"Signed in as **{plain(current_user().label)}**")
        st.button("Sign out", key="auth.sign_out", on_click=st.logout)


def share_secret() -> str | None:
    """The secret that signs share links (secrets ``share_secret``, else ``$NEOPLAN_SHARE_SECRET``)."""
    value = _secret("share_secret")
    return str(value) if value else secret_from_env()
