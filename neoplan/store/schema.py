"""The tables as the newest migration leaves them (queries use these; migrations/ builds them).

``scenarios`` — one row per saved scenario: its owner (a user id; '' for the local user and libraries from before
owners), name (unique per owner), whether it is shared with the team, and its newest version number, which every
save checks and bumps (optimistic concurrency). Its id is never used again once deleted (SQLite ``AUTOINCREMENT``;
PostgreSQL's sequence), so nothing that names an id (a share link) can reach a later scenario. ``versions`` — every
save, with who, when and a one-line message. ``drafts`` — what each browser session is editing, one row per session,
updated in place. ``aliases`` — a vendor's
quote-line aliases, per owner. ``users`` — how each signed-in user id is shown to people (their verified e-mail, else
their OIDC subject), kept at sign-in. Times are ISO 8601 text in UTC.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

scenarios = sa.Table(
    "scenarios",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("owner", sa.String(320), nullable=False),
    sa.Column("name", sa.String(120), nullable=False),
    sa.Column("shared", sa.Boolean, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("updated_at", sa.String(32), nullable=False),
    sa.UniqueConstraint("owner", "name", name="scenarios_owner_name"),
    sqlite_autoincrement=True,
)

versions = sa.Table(
    "versions",
    metadata,
    sa.Column("scenario_id", sa.Integer, sa.ForeignKey("scenarios.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("author", sa.String(320), nullable=False),
    sa.Column("message", sa.String(200), nullable=False),
    sa.Column("saved_at", sa.String(32), nullable=False),
)

drafts = sa.Table(
    "drafts",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("baseline", sa.Text, nullable=False),
    sa.Column("origin", sa.Text),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("updated_at", sa.String(32), nullable=False),
    sa.Column("owner", sa.String(320), nullable=False),
    sa.Column("session", sa.String(64)),
    sa.Column("origin_version", sa.Integer),
    sa.Column("page_state", sa.Text, nullable=False, server_default="{}"),
)

aliases = sa.Table(
    "aliases",
    metadata,
    sa.Column("owner", sa.String(320), primary_key=True),
    sa.Column("vendor", sa.String(120), primary_key=True),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("shared", sa.Boolean, nullable=False),
    sa.Column("saved_at", sa.String(32), nullable=False),
)

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.String(320), primary_key=True),
    sa.Column("label", sa.String(320), nullable=False),
    sa.Column("seen_at", sa.String(32), nullable=False),
)
