"""`Club`: who the members are, who may come in (the club mode), logging in and out, invitations,
and the admin's changes, each written to the audit log.

Members are few (a club), so the server keeps them all in memory and checks a session cookie
without a query; every change is written to the database first, then made in memory.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from game.rulesets import RULESETS
from server.club.links import LinkStore
from server.club.lockout import Lockout
from server.club.logins import Logins, device
from server.club.names import likeness, login_key, member_name
from server.club.passes import Passes
from server.club.passwords import check_new_password, hash_password, verify_password
from server.club.sessions import Signer
from server.club.shared_ends import SharedEnds
from server.club.store import ClubStore, Member, NameTaken, Session
from server.origins import OriginError, configured
from server.rates.counter import Rates
from server.tables.errors import TableError
from server.tables.settings import Timers

__all__ = ["MODES", "OPEN_CLUB", "Club", "ClubConfig"]

log = logging.getLogger("sparrow.club")

MODES = {
    "open": "open: anyone who reaches the server plays under a name of their choice",
    "members": "members only: guests see the login page",
    "invite": "members, and guests a member invites to one table by link",
}
INVITE_TTL = 7 * 24 * 3600.0  # an invitation link works for a week …
FIRST_ADMIN_TTL = 24 * 3600.0  # … the first-admin link for a day
RESET_TTL = 24 * 3600.0
RENAME_EVERY = 30 * 24 * 3600.0  # a member renames themselves at most once in 30 days
AUDIT_PAGE = 50  # lines of the audit log shown at a time


@dataclass(frozen=True, slots=True)
class ClubConfig:
    """How the club starts: its secret, a club mode to set on start (None: the stored one), the
    address links are printed with, and whether this process prints the first-admin link while the club
    has no admin (with ``--workers`` only the first worker's first start does)."""

    secret: str
    mode: str | None = None
    base_url: str = ""
    announce: bool = True


OPEN_CLUB = ClubConfig("not a secret: for tests and tools that play as guests", mode="open")


def _code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def _ref(session_id: str) -> str:
    """How *Your account* names a session: not its id, which (with the secret) makes its cookie."""
    return hashlib.sha256(f"session:{session_id}".encode()).hexdigest()[:20]


class Club:
    """The club of one server. Without a database (``engine`` None) there are no accounts and the
    club is open."""

    def __init__(self, engine: AsyncEngine | None, config: ClubConfig, *, clock: Callable[[], float] = time.time):
        self.store = None if engine is None else ClubStore(engine)
        self.config = config
        self.signer = Signer(config.secret)
        self.clock = clock
        self.mode = "open"
        self.members: dict[int, Member] = {}
        self._by_key: dict[str, Member] = {}
        self._names: dict[str, int | None] = {}  # name (case-folded) → the member it belongs to
        self._likes: dict[str, int] = {}  # what a member's name looks like (`likeness`) → the member
        self.lockout = Lockout(Rates())  # (the app's own `Rates`, counted in every process, once it starts)
        self.logins = Logins(self.store, lambda: self.clock())
        # The lobby closes a member's sockets (with the reason given, if one is).
        self.on_cut_off: Callable[..., object] = lambda member, reason=None: None
        self.defaults: dict[str, Any] = {"ruleset": "classical", "timers": Timers().to_json()}  # for new tables
        self.origins: list[str] = []  # other sites whose pages may use the server (besides --allow-origin)
        self.limits: dict[str, object] = {}  # limits per visitor the admin changed (`Limits.with_values`)
        self.on_limits: Callable[[dict[str, object]], None] = lambda values: None  # (the app's `Rates.adjust`)
        self.allowed_origins: frozenset[str] = frozenset()
        self.passes = Passes(self, None if engine is None else LinkStore(engine))  # guest links, sign-up code
        self._kept_meanwhile: set[int] | None = None  # members `_keep` changed while `reload` read them
        self.shared: SharedEnds | None = None  # sessions ended in any process (set when it is one of several)

    # ------------------------------------------------------------------ start
    async def open(self) -> None:
        """Load members and the club mode; apply the configured mode."""
        if self.store is None:
            return
        await self.reload()
        await self.passes.adopt_old_signup()
        if self.config.mode is not None and self.config.mode != self.mode:
            await self.set_mode(None, self.config.mode)

    async def reload(self) -> None:
        """Read the members and the club's settings from the database. Several server processes of one
        club (server/cluster) each reload every second, so that a change made through one holds in all:
        a member disabled or logged out everywhere meanwhile has their sockets here closed too."""
        if self.store is None:
            return
        store = self.store
        self._kept_meanwhile = set()
        try:
            named, listed, settings = await store.snapshot(("defaults", "origins", "mode", "limits"))
            names = {name.casefold(): owner for name, owner in named.items()}
            members = {member.id: member for member in listed}
            defaults, origins, stored = settings.get("defaults"), settings.get("origins"), settings.get("mode")
        finally:
            kept, self._kept_meanwhile = self._kept_meanwhile, None
        # A member who joined or was renamed here while the database was read is newer here than there.
        members |= {key: self.members[key] for key in kept if key in self.members}
        before, self.members = self.members, members
        self._by_key = {member.name.casefold(): member for member in members.values()}
        self._names = names | {key: member.id for key, member in self._by_key.items()}
        self._likes = {likeness(name): owner for name, owner in self._names.items() if owner is not None}
        if defaults:
            self.defaults = defaults
        if origins:
            self.origins = list(origins.get("origins", []))
            self.allowed_origins = configured(self.origins)
        self.mode = str(stored["mode"]) if stored and stored.get("mode") in MODES else "members"
        self.limits = dict(settings.get("limits") or {})
        try:
            self.on_limits(self.limits)
        except ValueError as exc:  # (stored by another release of the server, say)
            log.warning("the limits the admin set are not used: %s", exc)
        await self.logins.refresh()
        await self.passes.refresh()
        if self.shared is not None:
            await self.shared.retry()
        for member in members.values():
            old = before.get(member.id)
            if member.disabled and old is not None and not old.disabled:
                self.on_cut_off(member.id)

    @property
    def accounts(self) -> bool:
        """Whether this server keeps accounts (it has a database)."""
        return self.store is not None

    def _keep(self, member: Member) -> None:
        if self._kept_meanwhile is not None:
            self._kept_meanwhile.add(member.id)
        old = self.members.get(member.id)
        if old is not None:
            self._by_key.pop(old.name.casefold(), None)
        self.members[member.id] = member
        self._by_key[member.name.casefold()] = member
        self._names[member.name.casefold()] = member.id
        self._likes[likeness(member.name)] = member.id

    def _store(self) -> ClubStore:
        if self.store is None:
            raise TableError(
                "club/no_accounts", "this server keeps no accounts (it runs without a database)", status=404
            )
        return self.store

    def _now(self) -> float:
        return self.clock()

    # --------------------------------------------------------------- sessions
    async def session_of(self, cookie: str | None, address: str) -> tuple[Member, Session] | None:
        """The member a session cookie belongs to and its session, if it is valid: signed by this
        server's secret, not expired, of a session that has not ended, of an enabled member."""
        found = self.signer.read_session(cookie)
        session = None if found is None else await self.logins.find(found, address)
        member = None if session is None else self.members.get(session.member)
        if session is None or member is None or member.disabled:
            return None
        if self.shared is not None and await self._ended_elsewhere(session.id):
            return None
        return member, session

    async def _ended_elsewhere(self, session_id: str) -> bool:
        """Whether another process of the club ended this session after this one last read the ended
        ones from the database (`SharedEnds`; the database itself when Redis cannot say)."""
        assert self.shared is not None and self.store is not None
        said = await self.shared.ended(session_id)
        if said is not None:
            return said
        stored = await self.store.session(session_id)
        return stored is None or stored.ended is not None

    async def _end(self, member: int, reason: str, *, only: str | None = None, keep: str | None = None) -> list[str]:
        """`Logins.end`, and the ends recorded for the club's other processes (`SharedEnds`) before
        the caller answers."""
        ended = await self.logins.end(member, reason, only=only, keep=keep)
        if self.shared is not None and ended:
            await self.shared.share(ended)
        return ended

    async def start_session(self, member: Member, agent: str, address: str) -> str:
        """A new session of ``member`` on the browser that sent User-Agent ``agent``: its cookie's value."""
        session = await self.logins.start(member.id, agent, address)
        return self.signer.session(session.id)

    async def logged_in(self, member: Member, agent: str, address: str) -> str:
        """`start_session` after ``member`` logged in with their password (written to the audit log)."""
        cookie = await self.start_session(member, agent, address)
        await self._audit(member, "logged in", member.name, f"from {address}, {device(agent)}", member.id)
        return cookie

    async def logout(self, member: Member, session: Session) -> None:
        """End this session (the browser's cookie stops working, even copied) and close its sockets."""
        await self._end(member.id, "you logged out", only=session.id)
        await self._audit(member, "logged out", member.name, f"from {session.address}", member.id)

    async def sessions(self, member: Member, current: Session | None) -> list[dict[str, object]]:
        """The member's sessions for *Your account*: device, address, when started and last seen."""
        return [
            {
                "id": _ref(s.id),
                "device": device(s.agent),
                "address": s.address,
                "started": int(s.created * 1000),
                "seen": int(s.seen * 1000),
                "current": current is not None and s.id == current.id,
            }
            for s in await self.logins.of(member.id)
        ]

    async def end_session(self, member: Member, ref: object) -> bool:
        """End one of the member's sessions, named by its id in `sessions`; True if it was the one given.

        :raises TableError: ``club/no_session`` (404) for one that is not theirs, or ended.
        """
        found = [s for s in await self.logins.of(member.id) if isinstance(ref, str) and _ref(s.id) == ref]
        if not found:
            raise TableError("club/no_session", "you have no such session (it may have ended)", status=404)
        session = found[0]
        await self._end(member.id, "this session was ended", only=session.id)
        detail = f"{device(session.agent)} at {session.address}"
        await self._audit(member, "ended a session", member.name, detail, member.id)
        return True

    def name_owner(self, name: str) -> int | None:
        """The member a name belongs to (their name, or one given to them), or that it looks like
        (`likeness`: "Аdmin" with a Cyrillic А is Admin's), or None."""
        owner = self._names.get(name.casefold())
        return owner if owner is not None else self._likes.get(likeness(name))

    def _name_free(self, name: str, member: int | None = None) -> None:
        """Refuse ``name`` for a member (``member``, if they have one already) when it is, or looks
        like, another member's.

        :raises TableError: ``club/name_taken`` (409), ``club/name_look_alike`` (409).
        """
        owner = self._names.get(name.casefold())
        if owner is not None and owner != member:
            raise TableError("club/name_taken", f"the name {name!r} belongs to a member already", status=409)
        alike = self._likes.get(likeness(name))
        if owner is None and alike is not None and alike != member:
            shown = self.members[alike].name if alike in self.members else "a member's name"
            raise TableError(
                "club/name_look_alike", f"the name {name!r} looks like {shown!r}, a member's name", status=409
            )

    # ----------------------------------------------------------------- logins
    async def login(self, name: object, password: object, address: str) -> Member:
        """The member with this name and password.

        :raises TableError: ``auth/bad_login`` (401) for an unknown name or a wrong password alike
            (checked in the same time), ``auth/locked`` (429) after too many failures, for a while.
        """
        key = login_key(name)
        wait = await self.lockout.wait(key, address)
        if wait > 0:
            minutes = max(1, round(wait / 60))
            message = f"too many failed logins: try again in {minutes} minute(s)"
            raise TableError("auth/locked", message, status=429, retry_after=wait)
        member = self._by_key.get(key) if key else None
        ok = await verify_password(member.password_hash if member else None, password)
        if not ok or member is None or member.disabled:
            locked = await self.lockout.failed(key, address)
            if locked:
                log.warning("login locked out: %r from %s (%s)", name, address, ", ".join(locked))
                if self.store is not None:
                    shown = name if isinstance(name, str) else "?"
                    detail = f"from {address} ({', '.join(locked)})"
                    await self._audit(None, "lockout", shown[:40], detail, None if member is None else member.id)
            raise TableError("auth/bad_login", "wrong name or password", status=401)
        await self.lockout.succeeded(key, address)
        failures = await self.lockout.name_locked(key)
        if failures:  # the admin hears that strangers are guessing, and that the member still got in
            log.warning("login of %r from %s while the name is locked out for the addresses that failed", name, address)
            detail = f"from {address}, which had not failed; {failures} failed logins for the name in its window"
            await self._audit(member, "logged in during a lockout", member.name, detail, member.id)
        return member

    async def unlock(self, admin: Member, member_id: int) -> Member:
        """Let a member log in again at once, from every address, however many failed logins their
        name had (`Lockout.unlock`).

        :raises TableError: (404) when there is no such member.
        """
        member = self.members.get(member_id)
        if member is None:
            raise TableError("club/no_member", "there is no such member", status=404)
        await self.lockout.unlock(login_key(member.name))
        await self._audit(admin, "unlocked logins", member.name, "", member.id)
        return member

    async def logout_everywhere(self, member: Member) -> Member:
        """End every session of ``member`` (their cookies stop working, and the sockets opened with them
        close); returns them."""
        ended = await self._end(member.id, "you logged out everywhere")
        self.on_cut_off(member.id, "you logged out everywhere")
        await self._audit(member, "logged out everywhere", member.name, f"{len(ended)} session(s) ended", member.id)
        return member

    async def change_password(self, member: Member, session: Session | None, old: object, new: object) -> Member:
        """Set a new password (the old one must be right): the member's other sessions end and their
        sockets close, ``session`` (the one asking) goes on, and reset links made before stop working.

        :raises TableError: for a wrong old password or an unacceptable new one.
        """
        password = check_new_password(new)
        if not await verify_password(member.password_hash, old):
            raise TableError("auth/bad_login", "your current password is not right", status=403)
        digest = await hash_password(password)
        store = self._store()
        await store.update_member(member.id, password_hash=digest)
        member.password_hash = digest
        await store.revoke_resets(member.id, self._now())
        keep = None if session is None else session.id
        ended = await self._end(member.id, "your password was changed", keep=keep)
        await self._audit(member, "changed password", member.name, f"{len(ended)} other session(s) ended", member.id)
        return member

    # ------------------------------------------------------------ invitations
    async def invite(
        self,
        by: Member | None,
        kind: str = "member",
        *,
        name: str | None = None,
        member: int | None = None,
        ttl: float = INVITE_TTL,
    ) -> str:
        """A new single-use invitation code of ``kind`` (admin, member or reset)."""
        if name is not None:
            name = member_name(name, "the invited name")
        code = secrets.token_urlsafe(24)
        store = self._store()
        await store.add_invitation(
            _code_hash(code), kind, name=name, member=member, by=None if by is None else by.id, now=self._now(), ttl=ttl
        )
        return code

    def link(self, code: str) -> str:
        """The address of the page where an invitation is used."""
        return f"{self.config.base_url}/welcome/{code}"

    async def first_admin_link(self) -> str | None:
        """A one-time link to become the first admin, while the club has no admin (None once it has)."""
        if self.store is None or self._has_admin():
            return None
        return self.link(await self.invite(None, "admin", ttl=FIRST_ADMIN_TTL))

    def _has_admin(self) -> bool:
        return any(m.admin and not m.disabled for m in self.members.values())

    async def invitation(self, code: object) -> dict[str, object]:
        """What an unused invitation is for (shown on its page before it is used).

        :raises TableError: (404) for a code that is unknown, used or expired.
        """
        if not isinstance(code, str) or len(code) > 100:
            raise TableError("club/bad_invitation", "that invitation link is not valid", status=404)
        found = await self._store().peek_invitation(_code_hash(code), self._now())
        if found is None:
            raise TableError(
                "club/bad_invitation", "that invitation link is not valid: it was used, or it expired", status=404
            )
        if found.kind == "admin" and found.name is None and self._has_admin():
            # A first-admin link (printed at each start while there was no admin) is for the first one only.
            raise TableError(
                "club/bad_invitation", "that link was for the club's first admin, and it has one", status=404
            )
        named = self.members[found.member].name if found.member in self.members else found.name
        return {"kind": found.kind, "name": named}

    async def accept(self, code: object, name: object, password: object) -> Member:
        """Use an invitation: become a member (or the admin) with this name and password, or, for a
        reset link, set the member's new password (their other sessions end).

        :raises TableError: for a bad code, a taken or bad name, or an unacceptable password.
        """
        what = await self.invitation(code)
        password = check_new_password(password)
        store = self._store()
        assert isinstance(code, str)
        found = await store.peek_invitation(_code_hash(code), self._now())
        assert found is not None
        if found.kind == "reset":
            member = self.members.get(found.member or -1)
            if member is None:
                raise TableError("club/bad_invitation", "that member no longer exists", status=404)
            digest = await hash_password(password)
            if not await store.use_invitation(_code_hash(code), self._now()):
                raise TableError("club/bad_invitation", "that invitation link was used just now", status=404)
            await store.update_member(member.id, password_hash=digest)
            member.password_hash = digest
            await store.revoke_resets(member.id, self._now())
            ended = await self._end(member.id, "your password was reset")
            await self._audit(member, "reset password", member.name, f"{len(ended)} session(s) ended", member.id)
            return member
        chosen = member_name(what["name"] if what["name"] else name)
        self._name_free(chosen)
        digest = await hash_password(password)
        if not await store.use_invitation(_code_hash(code), self._now()):
            raise TableError("club/bad_invitation", "that invitation link was used just now", status=404)
        try:
            member = await store.add_member(chosen, digest, found.kind == "admin", self._now())
        except NameTaken:
            raise TableError(
                "club/name_taken", f"the name {chosen!r} belongs to a member already", status=409
            ) from None
        self._keep(member)
        how = "as the first admin" if member.admin else "by invitation"
        await self._audit(member, "joined", chosen, how, member.id)
        return member

    async def signup(self, club_code: object, name: object, password: object) -> Member:
        """Join with the club's sign-up code (if the admin has set one).

        :raises TableError: for a wrong code, a taken name or an unacceptable password.
        """
        store = self._store()
        link = await self.passes.take_signup(club_code)  # a wrong code is refused before anything else
        try:
            chosen = member_name(name)
            self._name_free(chosen)
            password = check_new_password(password)
            try:
                member = await store.add_member(chosen, await hash_password(password), False, self._now())
            except NameTaken:
                raise TableError(
                    "club/name_taken", f"the name {chosen!r} belongs to a member already", status=409
                ) from None
        except TableError:
            await self.passes.give_back_signup(link)  # nobody joined: the place stays free
            raise
        self._keep(member)
        await self._audit(member, "joined", chosen, "with the club code", member.id)
        return member

    # ------------------------------------------------------------------ admin
    def require_admin(self, member: Member | None) -> Member:
        """``member`` if an admin.

        :raises TableError: (403) otherwise.
        """
        if member is None or not member.admin:
            raise TableError("auth/not_admin", "only the club's admins may do that", status=403)
        return member

    def _target(self, member_id: object) -> Member:
        member = self.members.get(member_id) if isinstance(member_id, int) else None
        if member is None:
            raise TableError("club/no_member", "there is no such member", status=404)
        return member

    async def set_disabled(self, admin: Member, member_id: object, disabled: bool) -> Member:
        """Disable a member (their sessions end and their sockets close at once) or enable them again."""
        member = self._target(member_id)
        if member.id == admin.id and disabled:
            raise TableError("club/self", "you cannot disable yourself", status=409)
        await self._store().update_member(member.id, disabled=disabled, epoch=member.epoch + 1)
        member.disabled, member.epoch = disabled, member.epoch + 1
        if disabled:
            await self._end(member.id, "your membership was disabled")
            self.on_cut_off(member.id)
        await self._audit(admin, "disabled" if disabled else "enabled", member.name, "", member.id)
        return member

    async def set_admin(self, admin: Member, member_id: object, value: bool) -> Member:
        """Make a member an admin, or not."""
        member = self._target(member_id)
        if member.id == admin.id and not value:
            raise TableError("club/self", "you cannot take away your own admin rights", status=409)
        await self._store().update_member(member.id, admin=value)
        member.admin = value
        await self._audit(admin, "made admin" if value else "no longer admin", member.name, "", member.id)
        return member

    async def reset_link(self, admin: Member, member_id: object) -> str:
        """A one-time link with which a member sets a new password."""
        member = self._target(member_id)
        await self._store().revoke_resets(member.id, self._now())  # only the newest link works
        code = await self.invite(admin, "reset", member=member.id, ttl=RESET_TTL)
        await self._audit(admin, "password reset link", member.name, "valid for a day", member.id)
        return self.link(code)

    async def invitation_link(self, admin: Member, name: object, days: object) -> str:
        """A single-use invitation link (optionally for one name only), valid ``days`` days."""
        if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 30:
            raise TableError("club/bad_days", "an invitation is valid for 1 to 30 days")
        only = None if name in (None, "") else member_name(name, "the invited name")
        if only is not None:
            self._name_free(only)
        code = await self.invite(admin, "member", name=only, ttl=days * 24 * 3600.0)
        await self._audit(admin, "invited", only or "anyone with the link", f"valid for {days} day(s)")
        return self.link(code)

    async def set_mode(self, admin: Member | None, mode: object) -> None:
        """Set the club mode (one of `MODES`)."""
        if not isinstance(mode, str) or mode not in MODES:
            raise TableError("club/bad_mode", f"the club mode must be one of {', '.join(MODES)}")
        await self._store().set_setting("mode", {"mode": mode})
        self.mode = mode
        await self._audit(admin, "club mode", mode, MODES[mode])

    async def rename(self, member: Member, name: object, by: Member | None = None) -> Member:
        """Give ``member`` a new name; their record keeps every game (the old name stays theirs). A
        member renames themselves once in `RENAME_EVERY`; an admin (``by``) renames anyone at any time.

        :raises TableError: for a bad name, one that is (or looks like) someone else's, one a guest
            plays under (or one that looks like it), or a rename too soon after the last.
        """
        chosen = member_name(name)
        own = by is None or (by.id == member.id and not by.admin)
        now = self._now()
        if own and member.renamed is not None and now < member.renamed + RENAME_EVERY:
            since = datetime.fromtimestamp(member.renamed, UTC).date().isoformat()
            after = datetime.fromtimestamp(member.renamed + RENAME_EVERY, UTC).date().isoformat()
            raise TableError(
                "club/rename_too_soon",
                f"you renamed yourself on {since}: the next rename can be from {after} (an admin can rename you)",
                status=409,
            )
        self._name_free(chosen, member.id)
        if self._names.get(chosen.casefold()) is None and await self._store().guest_name(chosen):
            # A guest who sits (or sat) under it would lose it: their seat and record stay theirs.
            said = f"a guest plays under the name {chosen!r}: choose another"
            raise TableError("club/guest_name", said, status=409)
        alike = await self._guest_look_alike(chosen)
        if alike is not None:  # (as a guest may not sit under a look-alike of a member's name)
            said = f"the name {chosen!r} looks like {alike!r}, a name a guest plays under: choose another"
            raise TableError("club/name_look_alike", said, status=409)
        changes: dict[str, object] = {"name": chosen}
        if own:
            changes["renamed_at"] = datetime.fromtimestamp(now, UTC)
        try:
            await self._store().update_member(member.id, **changes)
        except NameTaken:
            raise TableError(
                "club/name_taken", f"the name {chosen!r} belongs to a member already", status=409
            ) from None
        old = member.name
        member.name = chosen
        if own:
            member.renamed = now
        self._by_key.pop(old.casefold(), None)
        self._keep(member)
        await self._audit(by or member, "renamed", chosen, f"was {old}", member.id)
        return member

    async def _guest_look_alike(self, name: str) -> str | None:
        """A name a guest sits (or sat) under that looks like ``name`` (`likeness`), or None. (Renames
        are rare; the names, as many as guests have chosen, are compared off the event loop.)"""
        like = likeness(name)
        guests = await self._store().guest_names()
        return await asyncio.to_thread(lambda: next((g for g in guests if likeness(g) == like), None))

    async def rename_member(self, admin: Member, member_id: object, name: object) -> Member:
        """An admin renames a member, at any time (`rename`'s other rules hold)."""
        return await self.rename(self._target(member_id), name, by=admin)

    async def set_defaults(self, admin: Member, ruleset_name: object, timers: object) -> None:
        """The ruleset and timers the lobby's form offers for a new table."""
        if not isinstance(ruleset_name, str) or ruleset_name not in RULESETS:
            raise TableError("table/bad_rules", f"the ruleset must be one of {', '.join(RULESETS)}")
        chosen = {"ruleset": ruleset_name, "timers": Timers.from_json(timers).to_json()}
        await self._store().set_setting("defaults", chosen)
        self.defaults = chosen
        await self._audit(admin, "table defaults", str(ruleset_name), str(chosen["timers"])[:200])

    async def set_origins(self, admin: Member, origins: object) -> None:
        """Other sites whose pages may use this server (as ``--allow-origin`` does)."""
        if not isinstance(origins, list) or len(origins) > 20 or not all(isinstance(o, str) for o in origins):
            raise TableError("club/bad_origin", "origins must be a list of at most 20 such as https://club.example")
        try:
            allowed = configured(origins)
        except OriginError as exc:
            raise TableError("club/bad_origin", str(exc)) from None
        await self._store().set_setting("origins", {"origins": sorted(allowed)})
        self.origins, self.allowed_origins = sorted(allowed), allowed
        await self._audit(admin, "allowed origins", ", ".join(self.origins) or "none", "")

    async def set_limits(self, admin: Member, values: object) -> None:
        """Change limits per visitor (``{"sockets": 40, …}``; the others are as `sparrow serve --limit`
        set them), in every process of the club.

        :raises TableError: (400) for a name or a value that is not one.
        """
        if not isinstance(values, dict):
            raise TableError("club/bad_limit", 'limits are {"name": value}, such as {"sockets": 40}')
        try:
            self.on_limits(values)
        except ValueError as exc:
            self.on_limits(self.limits)
            raise TableError("club/bad_limit", str(exc)) from None
        await self._store().set_setting("limits", values)
        self.limits = dict(values)
        shown = ", ".join(f"{name}={'none' if value is None else value}" for name, value in values.items())
        await self._audit(admin, "changed limits", shown or "as the server started", "")

    async def signup_open(self) -> bool:
        """Whether people may sign up with a club code (one is set, and admits someone still)."""
        return await self.passes.signup_link() is not None

    async def give_name(self, admin: Member, name: object, member_id: object) -> int:
        """Give the games stored under an old free-text name to a member; returns how many."""
        member = self._target(member_id)
        if not isinstance(name, str) or name.casefold() not in self._names:
            raise TableError("club/no_name", "nobody has played under that name", status=404)
        owner = self._names[name.casefold()]
        if owner is not None and owner != member.id:
            raise TableError("club/name_taken", f"the name {name!r} belongs to another member", status=409)
        count = await self._store().give_name(name, member.id)
        self._names[name.casefold()] = member.id
        self._likes[likeness(name)] = member.id
        await self._audit(admin, "gave games", member.name, f"{count} seat(s) played as {name!r}", member.id)
        return count

    async def note_name(self, name: str) -> None:
        """A guest sat under ``name``: it is known from now on (for `give_name`)."""
        self._names.setdefault(name.casefold(), None)

    async def audit(self, admin: Member, action: str, target: str, detail: str) -> None:
        """Log a member's action on something outside the members themselves (a table, a link)."""
        await self._audit(admin, action, target, detail)

    async def _audit(
        self, actor: Member | None, action: str, target: str, detail: str, target_id: int | None = None
    ) -> None:
        """Write a line of the audit log: who acted (a member, or the server), on whom (by name, and by id
        when a member: names change)."""
        name, actor_id = ("server", None) if actor is None else (actor.name, actor.id)
        await self._store().audit(name, action, target, detail, self._now(), actor_id=actor_id, target_id=target_id)

    async def audit_log(self, before: object = None) -> dict[str, object]:
        """A page of the audit log, newest first: the latest `AUDIT_PAGE` lines, or those before line
        ``before``; ``next`` is the ``before`` of the page after (None on the last).

        :raises TableError: ``input/malformed`` for a ``before`` that is not a line number.
        """
        if before is not None and (isinstance(before, bool) or not isinstance(before, int) or before < 0):
            raise TableError("input/malformed", "before must be the number of a line of the audit log")
        lines = await self._store().audit_log(AUDIT_PAGE + 1, before)
        more = len(lines) > AUDIT_PAGE
        lines = lines[:AUDIT_PAGE]
        return {"audit": lines, "next": lines[-1]["id"] if more else None}
