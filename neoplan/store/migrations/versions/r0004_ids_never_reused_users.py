"""Scenario ids are never used again (SQLite ``AUTOINCREMENT``), and a ``users`` table for how ids are shown.

SQLite gives a new row the largest id in the table plus one, so deleting the newest scenario freed its id for the
next one saved: a share link to the deleted scenario opened someone else's new one. With ``AUTOINCREMENT`` SQLite
keeps the largest id ever given (``sqlite_sequence``) and never goes below it. SQLite cannot add it to a table in
place, so ``scenarios`` and ``versions`` are built again and their rows copied (the ids kept). ``versions`` is built
before the old tables are dropped, pointing at the new table, so no ``ON DELETE CASCADE`` fires. PostgreSQL's
sequence never hands out an id twice already: there only ``users`` is added.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _scenarios(metadata: sa.MetaData, name: str) -> sa.Table:
    return sa.Table(
        name,
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


def _versions(metadata: sa.MetaData, name: str, parent: str) -> sa.Table:
    return sa.Table(
        name,
        metadata,
        sa.Column("scenario_id", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("author", sa.String(320), nullable=False),
        sa.Column("message", sa.String(200), nullable=False),
        sa.Column("saved_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("scenario_id", "version", name="versions_pk"),
        sa.ForeignKeyConstraint(["scenario_id"], [f"{parent}.id"], name="versions_scenario", ondelete="CASCADE"),
    )


def _rebuild_sqlite(bind: sa.Connection) -> None:
    metadata = sa.MetaData()
    scenarios = _scenarios(metadata, "scenarios_0004")
    versions = _versions(metadata, "versions_0004", "scenarios_0004")
    metadata.create_all(bind)
    columns = ", ".join(c.name for c in scenarios.columns)
    bind.exec_driver_sql(f"INSERT INTO scenarios_0004 ({columns}) SELECT {columns} FROM scenarios")
    columns = ", ".join(c.name for c in versions.columns)
    bind.exec_driver_sql(f"INSERT INTO versions_0004 ({columns}) SELECT {columns} FROM versions")
    bind.exec_driver_sql("DROP TABLE versions")  # the child first: dropping it fires nothing
    bind.exec_driver_sql("DROP TABLE scenarios")  # no table refers to it any more
    bind.exec_driver_sql("ALTER TABLE scenarios_0004 RENAME TO scenarios")  # versions_0004's reference follows
    bind.exec_driver_sql("ALTER TABLE versions_0004 RENAME TO versions")


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        bind.exec_driver_sql("PRAGMA legacy_alter_table = OFF")  # a rename updates the references to the table
        _rebuild_sqlite(bind)
    op.create_table(
        "users",
        sa.Column("id", sa.String(320), nullable=False),
        sa.Column("label", sa.String(320), nullable=False),
        sa.Column("seen_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("id", name="users_pk"),
    )


def downgrade() -> None:
    raise NotImplementedError("the library is never migrated down; restore the back-up copy instead")
