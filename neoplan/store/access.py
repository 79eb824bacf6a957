"""Who may use a team's neoplan, and whether its server is set up safely enough to serve anyone. Pure: no Streamlit.

Identity. A signed-in user is the OpenID Connect pair (``iss``, ``sub``): the only claims a provider guarantees
stable and unique. Their user id is ``"<iss> <sub>"`` (an issuer is a URL, so it has no space). The e-mail address
is used — shown, matched against the allow-list — only when the provider marks it verified (``email_verified``);
an unverified ``email`` claim is anyone's to type. People see a user as their verified e-mail, else their ``sub``.

Allow-list. The ``[auth]`` section of the secrets names who may sign in: ``allowed_domains`` (a verified e-mail at
exactly one of these domains), ``allowed_emails`` (these verified addresses) and ``allowed_subjects`` (these
``sub`` values, for accounts without a verified e-mail). At least one is required: a provider such as Google signs in
anyone on earth, so an empty allow-list is a configuration error, not "everyone". Everyone else is refused.

Server secrets. Share links are signed with ``share_secret`` (or ``$NEOPLAN_SHARE_SECRET``) and the sign-in cookie
with ``cookie_secret``: each must be at least ``MIN_SECRET_BYTES`` bytes and not a placeholder shipped in
``deploy/`` (anyone can read those, and sign links with them). :func:`server_problems` lists what is wrong;
the app shows them instead of any page, and ``python -m neoplan check-server`` exits 2 on them before the server
starts (compose.yaml and the Dockerfile run it first).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MIN_SECRET_BYTES = 32
"""Shortest accepted secret [bytes of UTF-8]: 256 bits, HMAC-SHA256's key size."""
EXAMPLE_SECRETS = frozenset(
    {
        "change-me",
        "change-me-too-at-least-16-characters",
        "set-a-long-random-share-secret-here",
        "a long random string",
    }
)
"""Placeholders that appear in deploy/env.example and deploy/secrets.example.toml (and their earlier versions)."""
MAX_USER_ID_CHARS = 320
"""Longest user id a library stores (``"<iss> <sub>"``) [characters]."""
ALLOW_KEYS = ("allowed_domains", "allowed_emails", "allowed_subjects")


class ConfigError(ValueError):
    """The server's configuration is unsafe or unreadable; the message says which setting and why, in one line."""


class Refused(ValueError):
    """This signed-in account may not use the app; the message says why, fit to show to that person."""


def secret_problem(value: object, what: str) -> str | None:
    """Why ``value`` cannot sign anything (None: it can). ``what`` names the setting in the message."""
    if not isinstance(value, str):
        return f"{what} must be text"
    text = value.strip()
    if text in EXAMPLE_SECRETS or "change-me" in text.lower():
        return (
            f"{what} is the example from deploy/; set your own: "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    if len(text.encode()) < MIN_SECRET_BYTES:
        return f"{what} is {len(text.encode())} bytes; it must be at least {MIN_SECRET_BYTES} (a random string)"
    return None


def check_secret(value: object, what: str) -> str:
    """``value`` stripped, or ConfigError saying why it cannot be used as ``what``."""
    problem = secret_problem(value, what)
    if problem:
        raise ConfigError(problem)
    return str(value).strip()


def _lower_set(values: object, key: str) -> frozenset[str]:
    if values is None:
        return frozenset()
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ConfigError(f'[auth] {key} must be a list of text, e.g. {key} = ["example.com"]')
    out = set()
    for value in values:
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"[auth] {key} must be a list of non-empty text, got {value!r}")
        out.add(value.strip().lower())
    return frozenset(out)


@dataclass(frozen=True)
class AllowList:
    """Who may sign in: verified e-mails at ``domains``, the verified addresses ``emails``, the ``subjects``."""

    domains: frozenset[str] = frozenset()
    emails: frozenset[str] = frozenset()
    subjects: frozenset[str] = frozenset()

    @classmethod
    def from_auth(cls, auth: Mapping[str, Any]) -> AllowList:
        """The allow-list of an ``[auth]`` section; ConfigError if it is malformed or empty."""
        domains = frozenset(d.lstrip("@") for d in _lower_set(auth.get("allowed_domains"), "allowed_domains"))
        emails = _lower_set(auth.get("allowed_emails"), "allowed_emails")
        subjects_raw = auth.get("allowed_subjects")
        _lower_set(subjects_raw, "allowed_subjects")  # the same checks; a sub is compared exactly
        subjects = frozenset(str(s).strip() for s in subjects_raw or ())
        if not (domains or emails or subjects):
            raise ConfigError(
                "[auth] names nobody who may sign in: set allowed_domains, allowed_emails and/or allowed_subjects "
                "(without them, anyone your provider signs in would see the team's scenarios)"
            )
        return cls(domains, emails, subjects)

    def allows(self, identity: Identity) -> bool:
        """Whether ``identity`` may use the app."""
        if identity.subject in self.subjects:
            return True
        email = (identity.email or "").lower()
        return bool(email) and (email in self.emails or email.rpartition("@")[2] in self.domains)


def _verified(claims: Mapping[str, Any]) -> bool:
    flag = claims.get("email_verified")
    return flag is True or (isinstance(flag, str) and flag.strip().lower() == "true")


def _one_line(text: str) -> bool:
    return bool(text) and not any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") for ch in text)


@dataclass(frozen=True)
class Identity:
    """A signed-in account as neoplan trusts it: issuer, subject, and the e-mail only if verified."""

    issuer: str
    subject: str
    email: str | None = None

    @property
    def user_id(self) -> str:
        """The id the library stores as owner and author: ``"<iss> <sub>"``."""
        return f"{self.issuer} {self.subject}"

    @property
    def label(self) -> str:
        """How people see this account: the verified e-mail, else the subject."""
        return self.email or self.subject

    @classmethod
    def from_claims(cls, claims: Mapping[str, Any]) -> Identity:
        """The identity in an ID token's claims (``st.user``); Refused if the token lacks ``iss`` or ``sub``."""
        issuer, subject = str(claims.get("iss") or "").strip(), str(claims.get("sub") or "").strip()
        if not issuer or not subject:
            raise Refused("Your sign-in did not say who you are (the provider sent no issuer or subject)")
        if " " in issuer or not _one_line(issuer) or not _one_line(subject):
            raise Refused("Your sign-in's issuer or subject is not one line of text")
        if len(issuer) + 1 + len(subject) > MAX_USER_ID_CHARS:
            raise Refused(f"Your provider's issuer and subject are longer than {MAX_USER_ID_CHARS} characters")
        email = str(claims.get("email") or "").strip()
        verified = email if email and _verified(claims) and _one_line(email) and "@" in email else None
        return cls(issuer, subject, verified)


def admit(claims: Mapping[str, Any], allow: AllowList) -> Identity:
    """The identity in ``claims`` if ``allow`` lets it in; Refused (a message for that person) otherwise."""
    identity = Identity.from_claims(claims)
    if allow.allows(identity):
        return identity
    if identity.email is None:
        claimed = str(claims.get("email") or "").strip()
        why = (
            f"Your provider has not verified the e-mail address {claimed}"
            if claimed
            else "Your provider did not give a verified e-mail address"
        )
        raise Refused(f"{why}, and your account ({identity.subject}) is not on this neoplan's allow-list")
    raise Refused(f"The account {identity.email} is not on this neoplan's allow-list")


def server_problems(auth: Mapping[str, Any] | None, share_secret: str | None) -> list[str]:
    """Everything that makes this server unsafe to serve: weak or example secrets, an ``[auth]`` without an
    allow-list. ``auth`` is the secrets' ``[auth]`` section (None: no sign-in); ``share_secret`` None: no links."""
    problems = []
    if share_secret is not None:
        problem = secret_problem(share_secret, "the share-link secret (NEOPLAN_SHARE_SECRET or share_secret)")
        if problem:
            problems.append(problem)
    if auth:
        problem = secret_problem(auth.get("cookie_secret"), "[auth] cookie_secret")
        if problem:
            problems.append(problem)
        try:
            AllowList.from_auth(auth)
        except ConfigError as exc:
            problems.append(str(exc))
    return problems
