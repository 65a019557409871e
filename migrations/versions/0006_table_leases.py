"""table_leases: which server process runs each live table, with a fencing token

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Created everywhere (SQLite too) so that every database has one schema; only several processes
    # on PostgreSQL write to it.
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(80), nullable=False),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_leases")),
    )
    op.create_index(op.f("ix_table_leases_owner"), "table_leases", ["owner"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_table_leases_owner"), table_name="table_leases")
    op.drop_table("table_leases")
