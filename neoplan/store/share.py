"""Share links: a signed, read-only token naming one version of one saved scenario.

A token is ``<payload>.<signature>``, both base64url: the payload is ``<scenario id>.<version>.<expiry>.<stamp>``
(expiry in Unix seconds, UTC; stamp a digest of when that version was saved, so a link can only ever name the
version it was made for, even were an id used again); the signature is HMAC-SHA256 of the payload with the server's
secret (``$NEOPLAN_SHARE_SECRET``, or ``share_secret`` in Streamlit's secrets; every replica must have the same
one), which must be at least 32 bytes and not the example from ``deploy/`` (:mod:`neoplan.store.access`).
Links **expire**: ``SHARE_DAYS`` after they are made unless asked otherwise. A token names that one version; it
opens only for someone who may see the scenario *when the link is opened* (its owner, or anyone while it is shared
with the team: :meth:`neoplan.store.Library.open_shared`), and whoever opens it gets a copy, never the right to
save over the original. Changing the secret revokes every link.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
from dataclasses import dataclass

from ..errors import ScenarioError
from .access import ConfigError, check_secret

SHARE_DAYS = 30
"""How long a share link works unless asked otherwise [days]."""


class ShareError(ScenarioError):
    """A share link that cannot be opened: tampered with, expired, or made with another secret."""


@dataclass(frozen=True)
class Grant:
    """What a valid token grants: reading ``version`` of the scenario with id ``scenario_id`` until ``expires``."""

    scenario_id: int
    version: int
    expires: int
    stamp: str = ""
    """A digest of the version's save time (:func:`stamp_of`): the link names that save, nothing else."""


def stamp_of(saved_at: str) -> str:
    """The stamp of a version saved at ``saved_at`` (ISO text): 12 base64url characters of its SHA-256."""
    return _b64(hashlib.sha256(saved_at.encode()).digest()[:9])


def secret_from_env() -> str | None:
    """``$NEOPLAN_SHARE_SECRET`` if set (None otherwise)."""
    return os.environ.get("NEOPLAN_SHARE_SECRET") or None


def _check_secret(secret: str | None) -> bytes:
    if not secret:
        raise ShareError("share links are off: the server has no share-link secret (NEOPLAN_SHARE_SECRET)")
    try:
        return check_secret(secret, "the share-link secret").encode()
    except ConfigError as exc:
        raise ShareError(f"share links are off: {exc}") from None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(secret: bytes, payload: bytes) -> str:
    return _b64(hmac.new(secret, payload, hashlib.sha256).digest())


def make_token(grant: Grant, secret: str | None) -> str:
    """The token for ``grant``, signed with ``secret``."""
    payload = f"{grant.scenario_id}.{grant.version}.{grant.expires}.{grant.stamp}".encode()
    return f"{_b64(payload)}.{_sign(_check_secret(secret), payload)}"


def grant_for(
    scenario_id: int, version: int, days: float = SHARE_DAYS, now: float | None = None, saved_at: str = ""
) -> Grant:
    """A grant of ``version`` (saved at ``saved_at``) for ``days`` from ``now`` (Unix seconds; the clock if None)."""
    if not 0 < days <= 3660:
        raise ShareError(f"a share link lasts between a moment and 10 years, got {days:g} days")
    expires = int((time.time() if now is None else now) + days * 86_400)
    return Grant(scenario_id, version, expires, stamp_of(saved_at))


MAX_TOKEN_CHARS = 200
"""A share token is about 60 characters; anything longer, or not ASCII, was not made here."""


def read_token(token: str, secret: str | None, now: float | None = None) -> Grant:
    """The grant in ``token``; ShareError if it was not signed with ``secret`` or has expired."""
    key = _check_secret(secret)
    if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS or not token.isascii():
        raise ShareError("this share link is not valid (not a neoplan share link)")
    try:
        payload_text, signature = token.strip().split(".")
        payload = _unb64(payload_text)
        ok = hmac.compare_digest(_sign(key, payload), signature)
        parts = payload.decode().split(".")
        scenario_id, version, expires = (int(part) for part in parts[:3])
    except (ValueError, UnicodeDecodeError):
        raise ShareError("this share link is not valid (cut short or changed?)") from None
    if not ok:
        raise ShareError("this share link is not valid (changed, or made with another server secret)")
    if len(parts) != 4:
        raise ShareError("this share link was made by an older neoplan; ask for a new one")
    if expires < (time.time() if now is None else now):
        raise ShareError("this share link has expired; ask for a new one")
    return Grant(scenario_id, version, expires, parts[3])
