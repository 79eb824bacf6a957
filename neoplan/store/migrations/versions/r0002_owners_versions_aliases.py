"""Owners, versions, one draft per session, quote aliases.

Every scenario gets an id, an owner, a shared flag and a version counter; its body moves to ``versions`` as
version 1 (author '', "saved before versions"). Scenarios from before owners belong to nobody and are shared with
the team: before this revision everyone behind a proxy saw them all. Drafts get their owner ('' before sign-in), the
session that writes them and the version their origin was opened at. Quote aliases get their own table; an
``aliases`` table written before migrations (one row per vendor with a JSON ``body``, or one row per alias) is
carried over.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

MIGRATED = "saved before versions"


def _copy_scenarios(bind: sa.Connection, old: sa.TableClause, new: sa.Table, versions: sa.Table) -> None:
    rows = bind.execute(sa.select(old.c.name, old.c.body, old.c.saved_at).order_by(old.c.name)).all()
    for name, body, saved_at in rows:
        key = bind.execute(
            new.insert().values(owner="", name=name, shared=True, version=1, created_at=saved_at, updated_at=saved_at)
        ).inserted_primary_key
        assert key is not None
        new_id = key[0]
        bind.execute(
            versions.insert().values(
                scenario_id=new_id, version=1, body=body, author="", message=MIGRATED, saved_at=saved_at
            )
        )


def _legacy_aliases(bind: sa.Connection) -> dict[str, list[dict[str, Any]]]:
    """The rows of an ``aliases`` table made before migrations, by vendor (then the table is dropped)."""
    inspector = sa.inspect(bind)
    if "aliases" not in inspector.get_table_names():
        return {}
    columns = {c["name"] for c in inspector.get_columns("aliases")}
    rows = [dict(r._mapping) for r in bind.execute(sa.text("SELECT * FROM aliases"))]
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        vendor = str(row.get("vendor") or "")
        if "body" in columns:
            loaded = json.loads(row["body"] or "[]")
            found[vendor].extend(loaded if isinstance(loaded, list) else [])
        elif "pattern" in columns:
            found[vendor].append(
                {k: str(row[k]) for k in ("pattern", "category", "quantity_basis") if row.get(k) not in (None, "")}
            )
    op.drop_table("aliases")
    return dict(found)


def upgrade() -> None:
    bind = op.get_bind()
    op.rename_table("scenarios", "scenarios_v1")
    old = sa.table("scenarios_v1", sa.column("name"), sa.column("body"), sa.column("saved_at"))
    new = op.create_table(
        "scenarios",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("owner", sa.String(320), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("shared", sa.Boolean, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("id", name="scenarios_id_pk"),
        sa.UniqueConstraint("owner", "name", name="scenarios_owner_name"),
    )
    versions = op.create_table(
        "versions",
        sa.Column("scenario_id", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("author", sa.String(320), nullable=False),
        sa.Column("message", sa.String(200), nullable=False),
        sa.Column("saved_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("scenario_id", "version", name="versions_pk"),
        sa.ForeignKeyConstraint(["scenario_id"], ["scenarios.id"], name="versions_scenario", ondelete="CASCADE"),
    )
    _copy_scenarios(bind, old, new, versions)
    op.drop_table("scenarios_v1")

    with op.batch_alter_table("drafts") as batch:
        batch.add_column(sa.Column("owner", sa.String(320), nullable=False, server_default=""))
        batch.add_column(sa.Column("session", sa.String(64)))
        batch.add_column(sa.Column("origin_version", sa.Integer))
    op.create_index("drafts_updated_at", "drafts", ["updated_at"])

    legacy = _legacy_aliases(bind)
    aliases = op.create_table(
        "aliases",
        sa.Column("owner", sa.String(320), nullable=False),
        sa.Column("vendor", sa.String(120), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("shared", sa.Boolean, nullable=False),
        sa.Column("saved_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("owner", "vendor", name="aliases_pk"),
    )
    for vendor, rows in legacy.items():
        bind.execute(aliases.insert().values(owner="", vendor=vendor, body=json.dumps(rows), shared=True, saved_at=""))


def downgrade() -> None:
    raise NotImplementedError("the library is never migrated down; restore the back-up copy instead")
