"""The club's outstanding links, as records an admin sees and revokes: invitations (to join, to become
the first admin, to reset a password), guest links (a member's link for guests to one table, admitting
as many as the member chose) and the sign-up code (which may expire, or admit only so many).

Only the SHA-256 of a code is stored. A guest link's holder may look at its table; every seat a
guest takes with it uses one of its places (`take`, counted in the database, so the count holds in
every process and across restarts), given back if the seat is refused (`give_back`). The browser
that took one keeps a signed note of it (`ADMITTED_COOKIE`) so that it keeps its way in (to watch,
and to play the seat it took) once the link is used up; the note never takes another seat.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.store.models import InvitationRow, LinkRow

__all__ = ["ADMITTED_COOKIE", "GUESTS_MAX", "Admissions", "Link", "LinkStore", "Outstanding", "code_hash"]

ADMITTED_COOKIE = "sparrow_admitted"
GUESTS_MAX = 3  # a guest link admits 1 to 3 guests (a table has 3 seats besides the member's)


def code_hash(code: str) -> str:
    """The stored form of a link's code."""
    return hashlib.sha256(code.encode()).hexdigest()


def _when(t: float) -> datetime:
    return datetime.fromtimestamp(t, UTC)


def _ms(t: datetime | None) -> int | None:
    if t is None:
        return None
    if t.tzinfo is None:  # SQLite gives back naive datetimes: they were stored as UTC
        t = t.replace(tzinfo=UTC)
    return int(t.timestamp() * 1000)


@dataclass(frozen=True, slots=True)
class Link:
    """A guest link or the sign-up code, as stored."""

    id: int
    kind: str  # guest or signup
    table: str | None
    created_by: int | None
    uses_max: int | None  # None: any number
    used: int
    created_at: int  # ms
    expires_at: int | None  # ms; None: never
    revoked: bool

    @property
    def left(self) -> int | None:
        """How many more it admits (None: any number)."""
        return None if self.uses_max is None else max(0, self.uses_max - self.used)


@dataclass(frozen=True, slots=True)
class Outstanding:
    """An invitation nobody used yet (its code is not kept: it can be revoked, not shown again)."""

    id: int
    kind: str  # admin, member or reset
    name: str | None
    member: int | None
    created_by: int | None
    created_at: int
    expires_at: int


def _link(row: LinkRow) -> Link:
    return Link(
        row.id,
        row.kind,
        row.table_id,
        row.created_by,
        row.uses_max,
        row.used,
        _ms(row.created_at) or 0,
        _ms(row.expires_at),
        row.revoked_at is not None,
    )


class LinkStore:
    """The rows of `LinkRow` and the outstanding rows of `InvitationRow`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def add(
        self,
        kind: str,
        code: str,
        *,
        table: str | None,
        by: int | None,
        uses_max: int | None,
        now: float,
        expires: float | None,
    ) -> int:
        """Store a new link; its id."""
        row = {
            "kind": kind,
            "code_hash": code_hash(code),
            "table_id": table,
            "created_by": by,
            "uses_max": uses_max,
            "used": 0,
            "created_at": _when(now),
            "expires_at": None if expires is None else _when(expires),
            "revoked_at": None,
        }
        async with self.engine.begin() as connection:
            key = (await connection.execute(insert(LinkRow).values(**row))).inserted_primary_key
        assert key is not None
        return int(key[0])

    async def find(self, code: str, kind: str) -> Link | None:
        """The link of ``kind`` with this code (revoked, expired and used up ones too), or None."""
        async with self.engine.connect() as connection:
            query = select(LinkRow).where(LinkRow.code_hash == code_hash(code), LinkRow.kind == kind)
            row = (await connection.execute(query)).first()
        return None if row is None else _link(row)  # type: ignore[arg-type]

    async def get(self, link_id: int) -> Link | None:
        """The link with this id, or None."""
        async with self.engine.connect() as connection:
            row = (await connection.execute(select(LinkRow).where(LinkRow.id == link_id))).first()
        return None if row is None else _link(row)  # type: ignore[arg-type]

    async def take(self, link_id: int, now: float) -> bool:
        """Use one of the link's places, in one statement (two guests at once cannot both take the
        last); False if it has none left, or is revoked or expired."""
        async with self.engine.begin() as connection:
            result = await connection.execute(
                update(LinkRow)
                .where(
                    LinkRow.id == link_id,
                    LinkRow.revoked_at.is_(None),
                    or_(LinkRow.expires_at.is_(None), LinkRow.expires_at > _when(now)),
                    or_(LinkRow.uses_max.is_(None), LinkRow.used < LinkRow.uses_max),
                )
                .values(used=LinkRow.used + 1)
            )
        return result.rowcount == 1

    async def give_back(self, link_id: int) -> None:
        """Return a place taken for a seat that was then refused."""
        async with self.engine.begin() as connection:
            await connection.execute(
                update(LinkRow).where(LinkRow.id == link_id, LinkRow.used > 0).values(used=LinkRow.used - 1)
            )

    async def outstanding(self, now: float) -> tuple[list[Link], list[Outstanding]]:
        """The links that still admit someone, and the invitations not yet used, oldest first."""
        at = _when(now)
        links = (
            select(LinkRow)
            .where(
                LinkRow.revoked_at.is_(None),
                or_(LinkRow.expires_at.is_(None), LinkRow.expires_at > at),
                or_(LinkRow.uses_max.is_(None), LinkRow.used < LinkRow.uses_max),
            )
            .order_by(LinkRow.id)
        )
        invitations = (
            select(InvitationRow)
            .where(InvitationRow.used_at.is_(None), InvitationRow.expires_at > at)
            .order_by(InvitationRow.id)
        )
        async with self.engine.connect() as connection:
            link_rows = (await connection.execute(links)).all()
            invitation_rows = (await connection.execute(invitations)).all()
        return [_link(r) for r in link_rows], [  # type: ignore[arg-type]
            Outstanding(r.id, r.kind, r.name, r.member_id, r.created_by, _ms(r.created_at) or 0, _ms(r.expires_at) or 0)
            for r in invitation_rows
        ]

    async def revoke(self, link_id: int, now: float) -> bool:
        """Revoke a link; False if there was no such link still working."""
        async with self.engine.begin() as connection:
            result = await connection.execute(
                update(LinkRow).where(LinkRow.id == link_id, LinkRow.revoked_at.is_(None)).values(revoked_at=_when(now))
            )
        return result.rowcount == 1

    async def revoked_among(self, link_ids: list[int]) -> list[int]:
        """Those of ``link_ids`` that were revoked."""
        if not link_ids:
            return []
        query = select(LinkRow.id).where(LinkRow.id.in_(link_ids), LinkRow.revoked_at.is_not(None))
        async with self.engine.connect() as connection:
            return [int(r[0]) for r in (await connection.execute(query)).all()]

    async def revoke_invitation(self, invitation_id: int, now: float) -> Outstanding | None:
        """End an unused invitation now (it expires); what it was, or None if it was used or gone."""
        async with self.engine.begin() as connection:
            row = (
                await connection.execute(
                    select(InvitationRow).where(
                        InvitationRow.id == invitation_id,
                        InvitationRow.used_at.is_(None),
                        InvitationRow.expires_at > _when(now),
                    )
                )
            ).first()
            if row is None:
                return None
            await connection.execute(
                update(InvitationRow).where(InvitationRow.id == invitation_id).values(expires_at=_when(now))
            )
        return Outstanding(
            row.id,
            row.kind,
            row.name,
            row.member_id,
            row.created_by,
            _ms(row.created_at) or 0,
            _ms(row.expires_at) or 0,
        )

    async def adopt_signup(self, digest: str, now: float) -> None:
        """Store a sign-up code known only by its hash (kept as a setting by earlier versions); nothing
        if it is stored already."""
        row = {"kind": "signup", "code_hash": digest, "used": 0, "created_at": _when(now)}
        try:
            async with self.engine.begin() as connection:
                await connection.execute(insert(LinkRow).values(**row))
        except IntegrityError:  # another process of the club did it first
            pass

    async def drop(self, kind: str) -> None:
        """Forget every link of ``kind`` (the sign-up code: a new one replaces the old)."""
        async with self.engine.begin() as connection:
            await connection.execute(delete(LinkRow).where(LinkRow.kind == kind))


class Admissions:
    """The signed note a guest's browser keeps of the guest links it took a seat with."""

    def __init__(self, secret: str, max_age: int) -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt="sparrow.admitted")
        self.max_age = max_age

    def read(self, value: str | None) -> list[int]:
        """The link ids in a note (none if it is missing, forged or expired)."""
        if not value or len(value) > 400:
            return []
        try:
            data = self._serializer.loads(value, max_age=self.max_age)
        except (BadSignature, ValueError):
            return []
        return [x for x in data if type(x) is int] if isinstance(data, list) else []

    def note(self, value: str | None, link_id: int) -> str:
        """A note holding ``link_id`` besides the (at most 9 latest) ones ``value`` holds."""
        kept = [x for x in self.read(value) if x != link_id][-9:]
        return self._serializer.dumps([*kept, link_id])
