"""seats: an index on the member who sat, to list a member's adjourned tables in the lobby

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_seats_member_game", "seats", ["member_id", "game_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_seats_member_game", table_name="seats")
