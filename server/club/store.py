"""The club's SQL: members, invitations, settings and the audit log (tables in server.store.models)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from server.store.models import AuditRow, InvitationRow, MemberRow, PlayerRow, SeatRow, SettingRow

__all__ = ["ClubStore", "Invitation", "Member", "NameTaken"]


class NameTaken(Exception):
    """Another member already has that name (names are compared case-folded)."""


@dataclass(slots=True)
class Member:
    """A member as the server keeps them in memory. ``password_hash`` never leaves the server."""

    id: int
    name: str
    password_hash: str
    admin: bool = False
    disabled: bool = False
    epoch: int = 0
    created: float = 0.0

    def to_json(self) -> dict[str, object]:
        """What a page may show about a member (to themselves, or to an admin)."""
        return {"id": self.id, "name": self.name, "admin": self.admin, "disabled": self.disabled}


@dataclass(frozen=True, slots=True)
class Invitation:
    """An invitation taken (used) just now."""

    kind: str  # admin, member or reset
    name: str | None
    member: int | None


def _when(t: float) -> datetime:
    return datetime.fromtimestamp(t, UTC)


def _member(row: MemberRow) -> Member:
    return Member(row.id, row.name, row.password_hash, row.admin, row.disabled, row.epoch, row.created_at.timestamp())


class ClubStore:
    """The club's rows in the server's database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def members(self) -> list[Member]:
        """Every member, oldest first."""
        async with AsyncSession(self.engine) as session:
            rows = (await session.scalars(select(MemberRow).order_by(MemberRow.id))).all()
        return [_member(row) for row in rows]

    async def add_member(self, name: str, password_hash: str, admin: bool, now: float) -> Member:
        """A new member.

        :raises NameTaken: if the name (case-folded) is another member's.
        """
        values = {
            "name": name,
            "name_key": name.casefold(),
            "password_hash": password_hash,
            "admin": admin,
            "disabled": False,
            "epoch": 0,
            "created_at": _when(now),
        }
        try:
            async with self.engine.begin() as connection:
                result = await connection.execute(insert(MemberRow).values(**values))
                key = result.inserted_primary_key
        except IntegrityError:
            raise NameTaken(name) from None
        assert key is not None
        return Member(int(key[0]), name, password_hash, admin, False, 0, now)

    async def update_member(self, member: int, **values: Any) -> None:
        """Change a member's columns (name changes keep ``name_key`` in step).

        :raises NameTaken: for a name another member has.
        """
        if "name" in values:
            values["name_key"] = values["name"].casefold()
        try:
            async with self.engine.begin() as connection:
                await connection.execute(update(MemberRow).where(MemberRow.id == member).values(**values))
        except IntegrityError:
            raise NameTaken(values.get("name", "")) from None

    async def add_invitation(
        self, code_hash: str, kind: str, *, name: str | None, member: int | None, by: int | None, now: float, ttl: float
    ) -> None:
        """Store an invitation (only its code's hash)."""
        row = {
            "code_hash": code_hash,
            "kind": kind,
            "name": name,
            "member_id": member,
            "created_by": by,
            "created_at": _when(now),
            "expires_at": _when(now + ttl),
            "used_at": None,
        }
        async with self.engine.begin() as connection:
            await connection.execute(insert(InvitationRow).values(**row))

    async def peek_invitation(self, code_hash: str, now: float) -> Invitation | None:
        """The unused, unexpired invitation with this code, without using it."""
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(InvitationRow.kind, InvitationRow.name, InvitationRow.member_id).where(
                        InvitationRow.code_hash == code_hash,
                        InvitationRow.used_at.is_(None),
                        InvitationRow.expires_at > _when(now),
                    )
                )
            ).first()
        return None if row is None else Invitation(row.kind, row.name, row.member_id)

    async def use_invitation(self, code_hash: str, now: float) -> bool:
        """Mark the invitation used; False if it was used (or expired) meanwhile."""
        async with self.engine.begin() as connection:
            result = await connection.execute(
                update(InvitationRow)
                .where(
                    InvitationRow.code_hash == code_hash,
                    InvitationRow.used_at.is_(None),
                    InvitationRow.expires_at > _when(now),
                )
                .values(used_at=_when(now))
            )
        return result.rowcount == 1

    async def setting(self, key: str) -> dict[str, Any] | None:
        """A stored setting, or None."""
        async with self.engine.connect() as connection:
            value = await connection.scalar(select(SettingRow.value).where(SettingRow.key == key))
        return value if isinstance(value, dict) else None

    async def set_setting(self, key: str, value: dict[str, Any]) -> None:
        """Store a setting (replacing the old value), in one statement: processes of one club starting
        together may set the same one at once (server/cluster)."""
        upsert = postgresql_insert if self.engine.dialect.name == "postgresql" else sqlite_insert
        statement = upsert(SettingRow).values(key=key, value=value)
        async with self.engine.begin() as connection:
            await connection.execute(statement.on_conflict_do_update(index_elements=["key"], set_={"value": value}))

    async def audit(self, actor: str, action: str, target: str, detail: str, now: float) -> None:
        """Add a line to the audit log."""
        row = {"at": _when(now), "actor": actor[:40], "action": action, "target": target[:80], "detail": detail[:200]}
        async with self.engine.begin() as connection:
            await connection.execute(insert(AuditRow).values(**row))

    async def audit_log(self, limit: int = 200) -> list[dict[str, object]]:
        """The latest lines of the audit log, newest first."""
        query = select(AuditRow).order_by(AuditRow.id.desc()).limit(limit)
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [
            {
                "at": int(r.at.timestamp() * 1000),
                "actor": r.actor,
                "action": r.action,
                "target": r.target,
                "detail": r.detail,
            }
            for r in rows
        ]

    async def give_name(self, name: str, member: int) -> int:
        """Give the games played under ``name`` before accounts (a name no member holds) to ``member``;
        returns how many seats that counted."""
        async with self.engine.begin() as connection:
            player = await connection.scalar(select(PlayerRow.id).where(PlayerRow.name == name))
            if player is None:
                return 0
            await connection.execute(update(PlayerRow).where(PlayerRow.id == player).values(member_id=member))
            result = await connection.execute(
                update(SeatRow).where(SeatRow.player_id == player, SeatRow.member_id.is_(None)).values(member_id=member)
            )
        return int(result.rowcount)

    async def player_names(self) -> dict[str, int | None]:
        """Every name that has sat at a table, with the member it belongs to (None: nobody's)."""
        async with self.engine.connect() as connection:
            rows = (await connection.execute(select(PlayerRow.name, PlayerRow.member_id))).all()
        return {r.name: r.member_id for r in rows}
