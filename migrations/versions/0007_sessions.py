"""sessions: a member's logins are rows (a cookie carries a session's id); the audit log names members by id

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(43), nullable=False),
        sa.Column("member_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("agent", sa.String(200), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["member_id"], ["members.id"], name=op.f("fk_sessions_member_id_members")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
    )
    op.create_index(op.f("ix_sessions_member_id"), "sessions", ["member_id"], unique=False)
    op.create_index(op.f("ix_sessions_ended_at"), "sessions", ["ended_at"], unique=False)
    with op.batch_alter_table("audit", schema=None) as batch_op:
        batch_op.add_column(sa.Column("actor_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("target_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("audit", schema=None) as batch_op:
        batch_op.drop_column("target_id")
        batch_op.drop_column("actor_id")
    op.drop_index(op.f("ix_sessions_ended_at"), table_name="sessions")
    op.drop_index(op.f("ix_sessions_member_id"), table_name="sessions")
    op.drop_table("sessions")
