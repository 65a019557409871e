"""club_links: guest links and the sign-up code as records that admit a number of people and can be
revoked; members.renamed_at, for the limit on renames

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "club_links",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(16), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("uses_max", sa.Integer(), nullable=True),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["created_by"], ["members.id"], name=op.f("fk_club_links_created_by_members")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_links")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_club_links_code_hash")),
    )
    with op.batch_alter_table("members") as batch:
        batch.add_column(sa.Column("renamed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("members") as batch:
        batch.drop_column("renamed_at")
    op.drop_table("club_links")
