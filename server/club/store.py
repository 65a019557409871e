"""The club's SQL: members, invitations, settings and the audit log (tables in server.store.models)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.store.models import AuditRow, InvitationRow, MemberRow, PlayerRow, SeatRow, SessionRow, SettingRow

__all__ = ["ClubStore", "Invitation", "Member", "NameTaken", "Session"]


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
    renamed: float | None = None  # when they last renamed themselves

    def to_json(self) -> dict[str, object]:
        """What a page may show about a member (to themselves, or to an admin)."""
        return {"id": self.id, "name": self.name, "admin": self.admin, "disabled": self.disabled}


@dataclass(frozen=True, slots=True)
class Invitation:
    """An invitation taken (used) just now."""

    kind: str  # admin, member or reset
    name: str | None
    member: int | None


@dataclass(slots=True)
class Session:
    """A member logged in on one browser (a row of ``sessions``); ``ended`` is when it ended, if it has."""

    id: str
    member: int
    created: float
    seen: float
    agent: str
    address: str
    ended: float | None = None


def _session(row: Any) -> Session:
    ended = None if row.ended_at is None else _stamp(row.ended_at)
    return Session(row.id, row.member_id, _stamp(row.created_at), _stamp(row.seen_at), row.agent, row.address, ended)


def _stamp(when: datetime) -> float:
    # SQLite hands back naive datetimes (of UTC): read them as UTC, as PostgreSQL's aware ones are.
    return (when if when.tzinfo is not None else when.replace(tzinfo=UTC)).timestamp()


def _when(t: float) -> datetime:
    return datetime.fromtimestamp(t, UTC)


def _member(row: Any) -> Member:
    renamed = None if row.renamed_at is None else _aware(row.renamed_at).timestamp()
    created = _aware(row.created_at).timestamp()
    return Member(row.id, row.name, row.password_hash, row.admin, row.disabled, row.epoch, created, renamed)


def _aware(t: datetime) -> datetime:
    """A stored time as UTC (SQLite gives it back without its zone)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


class ClubStore:
    """The club's rows in the server's database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        # Reads, each a statement on its own: outside any transaction, so without BEGIN and ROLLBACK
        # (two round trips of the three or four a read cost; every process reads the club every
        # second, and a start reads it too, from as far away as the database is).
        self.reads = engine.execution_options(isolation_level="AUTOCOMMIT")

    async def members(self) -> list[Member]:
        """Every member, oldest first."""
        async with self.reads.connect() as connection:
            return await _members(connection)

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
        async with self.reads.connect() as connection:
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

    async def revoke_resets(self, member: int, now: float) -> None:
        """Make every unused reset link of ``member`` stop working (a newer one was made, or the password
        changed)."""
        async with self.engine.begin() as connection:
            await connection.execute(
                update(InvitationRow)
                .where(
                    InvitationRow.kind == "reset", InvitationRow.member_id == member, InvitationRow.used_at.is_(None)
                )
                .values(used_at=_when(now))
            )

    # --------------------------------------------------------------- sessions
    async def add_session(self, session: Session) -> None:
        """Store a new session."""
        row = {
            "id": session.id,
            "member_id": session.member,
            "created_at": _when(session.created),
            "seen_at": _when(session.seen),
            "agent": session.agent[:200],
            "address": session.address[:64],
            "ended_at": None,
        }
        async with self.engine.begin() as connection:
            await connection.execute(insert(SessionRow).values(**row))

    async def session(self, session_id: str) -> Session | None:
        """The session with this id (ended or not), or None."""
        async with self.reads.connect() as connection:
            row = (await connection.execute(select(SessionRow).where(SessionRow.id == session_id))).first()
        return None if row is None else _session(row)

    async def sessions_of(self, member: int) -> list[Session]:
        """The member's sessions that have not ended, last seen first."""
        query = (
            select(SessionRow)
            .where(SessionRow.member_id == member, SessionRow.ended_at.is_(None))
            .order_by(SessionRow.seen_at.desc())
        )
        async with self.reads.connect() as connection:
            return [_session(row) for row in (await connection.execute(query)).all()]

    async def seen(self, session_id: str, now: float, address: str) -> None:
        """Note that a session was used just now, from ``address``."""
        async with self.engine.begin() as connection:
            await connection.execute(
                update(SessionRow).where(SessionRow.id == session_id).values(seen_at=_when(now), address=address[:64])
            )

    async def end_sessions(
        self, member: int, now: float, *, only: str | None = None, keep: str | None = None
    ) -> list[str]:
        """End the member's sessions (``only`` that one; all but ``keep``); the ids of those that ended."""
        where = [SessionRow.member_id == member, SessionRow.ended_at.is_(None)]
        if only is not None:
            where.append(SessionRow.id == only)
        if keep is not None:
            where.append(SessionRow.id != keep)
        async with self.engine.begin() as connection:
            ids = list((await connection.scalars(select(SessionRow.id).where(*where))).all())
            if ids:
                await connection.execute(
                    update(SessionRow)
                    .where(SessionRow.id.in_(ids), SessionRow.ended_at.is_(None))
                    .values(ended_at=_when(now))
                )
        return ids

    async def ended_since(self, since: float) -> list[str]:
        """The ids of the sessions that ended at ``since`` or later."""
        query = select(SessionRow.id).where(SessionRow.ended_at >= _when(since))
        async with self.reads.connect() as connection:
            return list((await connection.scalars(query)).all())

    async def prune_sessions(self, ended_before: float, created_before: float) -> int:
        """Delete the sessions that ended before ``ended_before`` or began before ``created_before`` (their
        cookie has expired); how many went."""
        gone = delete(SessionRow).where(
            or_(SessionRow.ended_at < _when(ended_before), SessionRow.created_at < _when(created_before))
        )
        async with self.engine.begin() as connection:
            return (await connection.execute(gone)).rowcount

    async def snapshot(
        self, keys: tuple[str, ...]
    ) -> tuple[dict[str, int | None], list[Member], dict[str, dict[str, Any]]]:
        """What each process reads again every second, on one connection: `player_names`, `members`,
        and the settings ``keys`` that are stored (`setting`, each)."""
        async with self.reads.connect() as connection:
            names = await _player_names(connection)
            members = await _members(connection)
            rows = await connection.execute(select(SettingRow.key, SettingRow.value).where(SettingRow.key.in_(keys)))
            settings = {key: value for key, value in rows if isinstance(value, dict)}
        return names, members, settings

    async def setting(self, key: str) -> dict[str, Any] | None:
        """A stored setting, or None."""
        async with self.reads.connect() as connection:
            value = await connection.scalar(select(SettingRow.value).where(SettingRow.key == key))
        return value if isinstance(value, dict) else None

    async def set_setting(self, key: str, value: dict[str, Any]) -> None:
        """Store a setting (replacing the old value), in one statement: processes of one club starting
        together may set the same one at once (server/cluster)."""
        upsert = postgresql_insert if self.engine.dialect.name == "postgresql" else sqlite_insert
        statement = upsert(SettingRow).values(key=key, value=value)
        async with self.engine.begin() as connection:
            await connection.execute(statement.on_conflict_do_update(index_elements=["key"], set_={"value": value}))

    async def audit(
        self,
        actor: str,
        action: str,
        target: str,
        detail: str,
        now: float,
        *,
        actor_id: int | None = None,
        target_id: int | None = None,
    ) -> None:
        """Add a line to the audit log (``actor_id``, ``target_id``: the members named, if any)."""
        row = {
            "at": _when(now),
            "actor": actor[:40],
            "actor_id": actor_id,
            "action": action,
            "target": target[:80],
            "target_id": target_id,
            "detail": detail[:200],
        }
        async with self.engine.begin() as connection:
            await connection.execute(insert(AuditRow).values(**row))

    async def audit_log(self, limit: int = 50, before: int | None = None) -> list[dict[str, object]]:
        """Up to ``limit`` lines of the audit log, newest first: the latest, or those older than line ``before``."""
        query = select(AuditRow).order_by(AuditRow.id.desc()).limit(limit)
        if before is not None:
            query = query.where(AuditRow.id < before)
        async with self.reads.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [
            {
                "id": r.id,
                "at": int(_stamp(r.at) * 1000),
                "actor": r.actor,
                "actor_id": r.actor_id,
                "action": r.action,
                "target": r.target,
                "target_id": r.target_id,
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

    async def guest_name(self, name: str) -> bool:
        """Whether a guest (no member) has sat under ``name`` (case aside), at a table now or before."""
        query = select(PlayerRow.id).where(func.lower(PlayerRow.name) == name.lower(), PlayerRow.member_id.is_(None))
        async with self.reads.connect() as connection:
            return (await connection.scalar(query.limit(1))) is not None

    async def guest_names(self) -> list[str]:
        """Every name a guest (no member) has sat under, at a table now or before."""
        async with self.reads.connect() as connection:
            return list((await connection.scalars(select(PlayerRow.name).where(PlayerRow.member_id.is_(None)))).all())

    async def player_names(self) -> dict[str, int | None]:
        """Every name that has sat at a table, with the member it belongs to (None: nobody's)."""
        async with self.reads.connect() as connection:
            return await _player_names(connection)


async def _player_names(connection: AsyncConnection) -> dict[str, int | None]:
    rows = (await connection.execute(select(PlayerRow.name, PlayerRow.member_id))).all()
    return {r.name: r.member_id for r in rows}


async def _members(connection: AsyncConnection) -> list[Member]:
    return [_member(row) for row in await connection.execute(select(MemberRow).order_by(MemberRow.id))]
