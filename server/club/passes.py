"""`Passes`: what lets people in without an account of their own yet, as the club controls it: a
member's guest link (admitting the number of guests the member chose, 1 to 3), the sign-up code
(which may expire on a date, or admit only N people), and the admin's list of every outstanding
invitation, reset link, guest link and sign-up code, each revocable.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

from server.club.guest_sockets import GuestSockets
from server.club.links import GUESTS_MAX, Admissions, Link, LinkStore
from server.club.sessions import GUEST_MAX_AGE
from server.tables.errors import TableError

if TYPE_CHECKING:
    from server.club.club import Club
    from server.club.store import Member

__all__ = ["GuestAccess", "Passes"]

SIGNUP_USES_MAX = 10_000


@dataclass(frozen=True, slots=True)
class GuestAccess:
    """What a guest link gives the browser holding it: the table, and whether this browser took one
    of its places already (``admitted``)."""

    link: Link
    admitted: bool

    @property
    def table(self) -> str:
        """The table it opens."""
        assert self.link.table is not None
        return self.link.table

    def to_json(self) -> dict[str, object]:
        """What the table page says of it."""
        return {"guests": self.link.uses_max, "left": self.link.left, "admitted": self.admitted}


def _used_up(link: Link) -> TableError:
    guests = f"{link.uses_max} guest{'s' if link.uses_max != 1 else ''}"
    return TableError(
        "club/guest_link_used",
        f"this guest link was for {guests}, and every place is taken: ask the member who sent it for a new one",
        status=409,
    )


class Passes:
    """Guest links, the sign-up code, and the outstanding links of one club."""

    def __init__(self, club: Club, store: LinkStore | None) -> None:
        self.club = club
        self.store = store
        self.admissions = Admissions(club.config.secret, GUEST_MAX_AGE)
        self.sockets = GuestSockets()  # closed when their link is revoked
        # Tells the club's other processes that a guest link was revoked (`server.cluster.node`).
        self.on_revoked: Callable[[int], None] = lambda link_id: None

    def _store(self) -> LinkStore:
        if self.store is None:
            raise TableError(
                "club/no_accounts", "this server keeps no accounts (it runs without a database)", status=404
            )
        return self.store

    # ------------------------------------------------------------- guest links
    async def guest_link(self, member: Member, table: str, guests: object) -> tuple[str, Link]:
        """A new guest link's code to ``table`` for ``guests`` guests (1 to 3), valid for a day.

        :raises TableError: (409) unless the club mode is "invite"; (400) for another number.
        """
        if self.club.mode != "invite":
            raise TableError("club/no_guests", "this club does not take guests by invitation", status=409)
        if isinstance(guests, bool) or not isinstance(guests, int) or not 1 <= guests <= GUESTS_MAX:
            raise TableError("club/bad_guests", f"a guest link admits 1 to {GUESTS_MAX} guests")
        code, now = secrets.token_urlsafe(24), self.club.clock()
        store = self._store()
        link_id = await store.add(
            "guest", code, table=table, by=member.id, uses_max=guests, now=now, expires=now + GUEST_MAX_AGE
        )
        link = await store.get(link_id)
        assert link is not None
        return code, link

    async def guest_links(self, member: Member, table: str) -> list[dict[str, object]]:
        """The guest links ``member`` made to ``table`` that still admit someone, oldest first."""
        links, _ = await self._store().outstanding(self.club.clock())
        return [
            {"id": link.id, "guests": link.uses_max, "used": link.used, "expires": link.expires_at}
            for link in links
            if link.kind == "guest" and link.table == table and link.created_by == member.id
        ]

    async def guest_access(self, code: str | None, admitted: str | None) -> GuestAccess | TableError | None:
        """What the guest link ``code`` gives a browser holding the note ``admitted``: access, a
        refusal to show (revoked, expired, used up by others), or None (no link at all)."""
        if not code or len(code) > 100 or self.store is None or self.club.mode != "invite":
            return None
        link = await self.store.find(code, "guest")
        if link is None or link.table is None:
            return None
        if link.revoked:
            return TableError("club/guest_link_revoked", "this guest link was revoked", status=403)
        if link.expires_at is not None and link.expires_at <= self.club.clock() * 1000:
            return TableError(
                "club/guest_link_expired", "this guest link has expired (it worked for a day)", status=403
            )
        seated = link.id in self.admissions.read(admitted)
        if not seated and link.left == 0:
            return _used_up(link)
        return GuestAccess(link, seated)

    async def take(self, access: GuestAccess) -> None:
        """Use one of the link's places for a guest taking a seat.

        :raises TableError: ``club/guest_link_used`` (409) when none is left.
        """
        if not await self._store().take(access.link.id, self.club.clock()):
            raise _used_up(access.link)

    async def give_back(self, access: GuestAccess) -> None:
        """Return the place of a seat that was refused after all."""
        await self._store().give_back(access.link.id)

    async def refresh(self) -> None:
        """Close the sockets held here with guest links another process revoked (run with the club's
        reload: what the bus says may be lost)."""
        if self.store is not None and self.sockets.links:
            self.sockets.revoked(await self.store.revoked_among(self.sockets.links))

    # ------------------------------------------------------------ sign-up code
    async def set_signup_code(self, admin: Member, code: object, until: object = None, uses: object = None) -> None:
        """Set (or, with an empty code, turn off) the sign-up code, valid through the day ``until``
        (``YYYY-MM-DD``, UTC; None: no end) for at most ``uses`` people (None: any number)."""
        store = self._store()
        if code in (None, ""):
            await store.drop("signup")
            await self.club.audit(admin, "sign-up code", "off", "")
            return
        if not isinstance(code, str) or not 6 <= len(code) <= 100:
            raise TableError("club/bad_code", "a sign-up code must be 6 to 100 characters long")
        now = self.club.clock()
        expires = None if until in (None, "") else _end_of(until, now)
        if uses in (None, ""):
            limit = None
        elif isinstance(uses, bool) or not isinstance(uses, int) or not 1 <= uses <= SIGNUP_USES_MAX:
            raise TableError("club/bad_uses", f"a sign-up code admits 1 to {SIGNUP_USES_MAX} people, or any number")
        else:
            limit = uses
        await store.drop("signup")
        await store.add("signup", code, table=None, by=admin.id, uses_max=limit, now=now, expires=expires)
        detail = ", ".join(
            part
            for part in (
                f"until {until}" if expires is not None else "",
                f"for {limit} people" if limit is not None else "",
            )
            if part
        )
        await self.club.audit(admin, "sign-up code", "set", detail)

    async def signup_link(self) -> Link | None:
        """The sign-up code's record while it admits anyone."""
        if self.store is None:
            return None
        links, _ = await self.store.outstanding(self.club.clock())
        return next((link for link in links if link.kind == "signup"), None)

    async def take_signup(self, code: object) -> Link:
        """Use one place of the sign-up code ``code``.

        :raises TableError: ``club/bad_code`` (403) for a wrong code, or one that expired or was used up.
        """
        store = self._store()
        link = await store.find(code, "signup") if isinstance(code, str) and len(code) <= 100 else None
        if link is None or link.revoked:
            raise TableError("club/bad_code", "that is not this club's sign-up code", status=403)
        if not await store.take(link.id, self.club.clock()):
            raise TableError("club/bad_code", "that sign-up code has expired or admitted all it may", status=403)
        return link

    async def give_back_signup(self, link: Link) -> None:
        """Return a place of the sign-up code for a sign-up refused after all."""
        await self._store().give_back(link.id)

    async def adopt_old_signup(self) -> None:
        """A sign-up code stored as a setting (before codes were records) becomes a record."""
        if self.store is None or self.club.store is None:
            return
        stored = await self.club.store.setting("signup")
        if not stored or not stored.get("code_hash"):
            return
        await self.store.adopt_signup(str(stored["code_hash"]), self.club.clock())
        await self.club.store.set_setting("signup", {})

    # ---------------------------------------------------------------- listing
    async def outstanding(self) -> dict[str, list[dict[str, object]]]:
        """Every invitation, reset link, guest link and sign-up code that still lets someone in."""
        links, invitations = await self._store().outstanding(self.club.clock())
        members = self.club.members

        def name(member: int | None) -> str | None:
            return members[member].name if member in members else None

        return {
            "invitations": [
                {
                    "id": i.id,
                    "kind": i.kind,
                    "name": name(i.member) if i.kind == "reset" else i.name,
                    "by": name(i.created_by),
                    "created": i.created_at,
                    "expires": i.expires_at,
                }
                for i in invitations
            ],
            "links": [
                {
                    "id": link.id,
                    "kind": link.kind,
                    "table": link.table,
                    "by": name(link.created_by),
                    "uses": link.uses_max,
                    "used": link.used,
                    "created": link.created_at,
                    "expires": link.expires_at,
                }
                for link in links
            ],
        }

    async def revoke_link(self, who: Member, link_id: object) -> Link:
        """Revoke a guest link (its maker or an admin) or the sign-up code (an admin).

        :raises TableError: (404) for no such working link, (403) for someone else's.
        """
        store = self._store()
        link = await store.get(link_id) if isinstance(link_id, int) else None
        if link is None or link.revoked:
            raise TableError("club/no_link", "there is no such link, or it was revoked already", status=404)
        if not who.admin and (link.kind != "guest" or link.created_by != who.id):
            raise TableError("auth/not_admin", "only its maker or an admin may revoke a link", status=403)
        await store.revoke(link.id, self.club.clock())
        if link.kind == "guest":  # its guests' sockets close, here and in the club's other processes
            self.sockets.revoked([link.id])
            self.on_revoked(link.id)
        what = f"guest link to {link.table}" if link.kind == "guest" else "sign-up code"
        await self.club.audit(who, "revoked", what, f"it had admitted {link.used}")
        return link

    async def revoke_invitation(self, admin: Member, invitation_id: object) -> None:
        """End an unused invitation or reset link now.

        :raises TableError: (404) for no such unused invitation.
        """
        found = (
            await self._store().revoke_invitation(invitation_id, self.club.clock())
            if isinstance(invitation_id, int)
            else None
        )
        if found is None:
            raise TableError("club/bad_invitation", "there is no such unused invitation", status=404)
        whom = self.club.members[found.member].name if found.member in self.club.members else found.name
        what = "password reset link" if found.kind == "reset" else f"{found.kind} invitation"
        await self.club.audit(admin, "revoked", what, whom or "anyone with the link")


def _end_of(day: object, now: float) -> float:
    """The end (UTC) of the day ``day`` names (``YYYY-MM-DD``), which must not be over yet."""
    try:
        parsed = date.fromisoformat(day) if isinstance(day, str) and len(day) == 10 else None
    except ValueError:
        parsed = None
    if parsed is None:
        raise TableError("club/bad_date", "an end date is written YYYY-MM-DD, e.g. 2027-01-31")
    end = datetime.combine(parsed + timedelta(days=1), time(), UTC).timestamp()
    if end <= now:
        raise TableError("club/bad_date", "that day is over: choose today or a later day")
    return end
