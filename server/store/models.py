"""The database schema (SQLAlchemy 2, typed declarative models). Change it only with a new Alembic
migration in migrations/versions; never edit a shipped one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, ForeignKey, Index, Integer, MetaData, String, Text, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "ActionRow",
    "AuditRow",
    "Base",
    "ChatRow",
    "GameRow",
    "HandRow",
    "InvitationRow",
    "LeaseRow",
    "MemberRow",
    "PlayerRow",
    "SeatRow",
    "SessionRow",
    "SettingRow",
]

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Base of every model; constraint names follow :data:`NAMING` so migrations are stable."""

    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class MemberRow(Base):
    """A club member's account: a unique name, an argon2id password hash, and the session epoch
    (raised by "log out everywhere", a password change or a disabling: older session cookies fail)."""

    __tablename__ = "members"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(24))
    name_key: Mapped[str] = mapped_column(String(24), unique=True)  # the name case-folded: "Ann" and "ann" are one
    password_hash: Mapped[str] = mapped_column(String(200))
    admin: Mapped[bool] = mapped_column(Boolean, default=False)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    epoch: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    renamed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # their last own rename


class InvitationRow(Base):
    """A single-use link: to become the first admin, to join the club, or to reset a password.
    Only the SHA-256 of its code is kept."""

    __tablename__ = "invitations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(8))  # admin, member or reset
    name: Mapped[str | None] = mapped_column(String(24))  # the only name it may be used with, if any
    member_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"))  # whose password a reset sets
    created_by: Mapped[int | None] = mapped_column(ForeignKey("members.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class LinkRow(Base):
    """A link that admits several people: a member's guest link to one table, or the club's sign-up
    code. It admits at most ``uses_max`` (None: any number), until it expires or is revoked. Only the
    SHA-256 of its code is kept."""

    __tablename__ = "club_links"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(8))  # guest or signup
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    table_id: Mapped[str | None] = mapped_column(String(16))  # a guest link's table
    created_by: Mapped[int | None] = mapped_column(ForeignKey("members.id"))
    uses_max: Mapped[int | None] = mapped_column(Integer)
    used: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class AuditRow(Base):
    """One admin action (or a lockout), for the admin page's audit log."""

    __tablename__ = "audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    actor: Mapped[str] = mapped_column(String(40))  # a member's name, or "server"
    actor_id: Mapped[int | None] = mapped_column(Integer)  # the member who acted (names change), if one did
    action: Mapped[str] = mapped_column(String(40))
    target: Mapped[str] = mapped_column(String(80))
    target_id: Mapped[int | None] = mapped_column(Integer)  # the member acted on, if one was
    detail: Mapped[str] = mapped_column(String(200))


class SessionRow(Base):
    """A member logged in on one browser: the signed session cookie carries the id; the session ends
    (``ended_at``) when they log out there or everywhere, change their password, or end it by hand."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(43), primary_key=True)  # random, unguessable
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # updated at most once a minute
    agent: Mapped[str] = mapped_column(String(200))  # the browser's User-Agent, cut short
    address: Mapped[str] = mapped_column(String(64))  # where it was last seen from
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)


class SettingRow(Base):
    """One club setting (the club mode, the sign-up code's hash, table defaults), as JSON."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[dict[str, Any]]


class PlayerRow(Base):
    """A display name that has sat at a table. A name a member used, or one the admin gave to a member
    (games from before accounts), belongs to that member: their records count it."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(24), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    member_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"))


class GameRow(Base):
    """One table's game: the ruleset frozen as JSON with its hash, the seed, status and scores."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    ruleset: Mapped[str] = mapped_column(String(40))
    ruleset_version: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]]
    overrides: Mapped[dict[str, Any]]
    timers: Mapped[dict[str, Any]]
    public: Mapped[bool] = mapped_column(Boolean)
    hints: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())  # the ready hint
    seed: Mapped[int] = mapped_column(BigInteger)
    # waiting, playing, adjourned, over, stopped (indexed with created_at)
    status: Mapped[str] = mapped_column(String(10))
    owner_seat: Mapped[int | None] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer, default=0)  # actions applied
    hands: Mapped[int] = mapped_column(Integer, default=0)  # deals finished
    scores: Mapped[list[Any] | None]  # running totals after the last finished deal; final once over
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SeatRow(Base):
    """Who sat where. A person's seat token is kept only as a SHA-256 hash."""

    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(24))
    bot: Mapped[bool] = mapped_column(Boolean)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    member_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"))  # the member who sat here, if one did
    token_hash: Mapped[str | None] = mapped_column(String(64))
    score: Mapped[int | None] = mapped_column(Integer)  # running total, final once the game is over
    level: Mapped[str | None] = mapped_column(String(8))  # a bot's level; None for a person (and older bots)


class ActionRow(Base):
    """One accepted action, in order: the log a game is rebuilt and replayed from."""

    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)  # the game version this action produced
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]]
    events: Mapped[list[Any]]
    auto: Mapped[str | None] = mapped_column(String(8))  # "timer" or "bot" when the server acted
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class HandRow(Base):
    """One finished deal: who won and how, every seat's score and payment, and the totals after it."""

    __tablename__ = "hands"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_wind: Mapped[str] = mapped_column(String(1))
    dealer: Mapped[int] = mapped_column(Integer)
    winner: Mapped[int | None] = mapped_column(Integer)
    termination: Mapped[str] = mapped_column(String(16))
    win_by: Mapped[str | None] = mapped_column(String(16))  # wall, loose, discard or robbed_kong (R7)
    discarder: Mapped[int | None] = mapped_column(Integer)  # who dealt in, for a win on a discard or a robbed kong
    value: Mapped[int | None] = mapped_column(Integer)  # the winning hand's value (R10), before payment
    result: Mapped[dict[str, Any]]  # the whole deal_end event: hands, score items, payments
    changes: Mapped[list[Any]]
    totals: Mapped[list[Any]]
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ChatRow(Base):
    """A chat line at a table."""

    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(24))
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


Index("ix_seats_player_game", SeatRow.player_id, SeatRow.game_id)
Index("ix_games_status_created", GameRow.status, GameRow.created_at)
Index("ix_seats_member_game", SeatRow.member_id, SeatRow.game_id)  # a member's adjourned tables, for the lobby


class LeaseRow(Base):
    """Which server process runs a live table, while several share one PostgreSQL database
    (server/cluster/leases.py). ``token`` goes up by one each time the table changes hands, and every
    journal write of the table carries the token its writer holds: a write with an older one is
    refused (a fencing token), so a process that lost the table can no longer change it."""

    __tablename__ = "table_leases"

    table_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    owner: Mapped[str] = mapped_column(String(80), index=True)  # the process: host, pid and a random part
    token: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
