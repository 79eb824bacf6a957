"""Drafts keep the pages' own settings (the Stress test's ranges, the Compare selection) as JSON: ``page_state``.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("drafts") as batch:
        batch.add_column(sa.Column("page_state", sa.Text, nullable=False, server_default="{}"))


def downgrade() -> None:
    """Drop the pages' settings (drafts keep their scenarios); the library is then at revision 0002."""
    with op.batch_alter_table("drafts") as batch:
        batch.drop_column("page_state")
