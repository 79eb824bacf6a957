"""The library as neoplan 0.1 made it: scenarios by name, drafts by id (created only where missing).

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "scenarios" not in have:
        op.create_table(
            "scenarios",
            sa.Column("name", sa.Text, primary_key=True),
            sa.Column("body", sa.Text, nullable=False),
            sa.Column("saved_at", sa.Text, nullable=False),
        )
    if "drafts" not in have:
        op.create_table(
            "drafts",
            sa.Column("id", sa.Text, primary_key=True),
            sa.Column("body", sa.Text, nullable=False),
            sa.Column("baseline", sa.Text, nullable=False),
            sa.Column("origin", sa.Text),
            sa.Column("source", sa.Text, nullable=False),
            sa.Column("updated_at", sa.Text, nullable=False),
        )


def downgrade() -> None:
    op.drop_table("drafts")
    op.drop_table("scenarios")
