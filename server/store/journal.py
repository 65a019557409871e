"""`SqlJournal`: the table journal in the database.

Every write goes through one `GroupWriter` (server/store/writer.py): a call waits while its write
is committed, possibly in the same transaction as other tables' writes made meanwhile, and returns
only once it is committed. So an action is durable before any client hears of it (lesson 11), and
under load many tables share one commit. Every call, not only `record`, goes through the writer
and the writes run in the order the calls were made, so a game's row (or seats) is committed in the
same transaction as its first action or an earlier one, never after it. A write that fails alone
(say, a duplicate action) fails its own call and no other.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, Table, bindparam, delete, insert, select, text, update
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, ProgrammingError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from server.store.models import ActionRow, ChatRow, GameRow, HandRow, LeaseRow, PlayerRow, SeatRow
from server.store.pg_records import write_records
from server.store.session import make_sessions
from server.store.writer import BATCH_CAP, GroupWriter, WriterError
from server.tables.journal import Record, SeatRecord, StoredTable, WriteRefused

__all__ = ["SqlJournal", "StaleOwner", "action_row", "game_row", "hand_row"]

CHAT_KEPT = 50
_TABLE_LINE = -1  # the seat stored for a line the table itself wrote (seat None: the seating draw, R2.6)
log = logging.getLogger("sparrow.store")
_WRONG_QUERY = (IntegrityError, ProgrammingError, DataError)  # the query was wrong (a bug), not the database away


def _when(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def to_seconds(when: datetime) -> float:
    if when.tzinfo is None:  # SQLite hands back naive datetimes; they were written in UTC
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


# What the writer is given: a `Record`, or one of these (the arguments of the other calls).
@dataclass(frozen=True, slots=True)
class _Created:
    table: StoredTable


@dataclass(frozen=True, slots=True)
class _Seats:
    table: str
    seats: list[SeatRecord | None]
    owner: int | None


@dataclass(frozen=True, slots=True)
class _Started:
    table: str
    at: float


@dataclass(frozen=True, slots=True)
class _Stopped:
    table: str


@dataclass(frozen=True, slots=True)
class _Status:
    """The game is adjourned, or being played again (``status``)."""

    table: str
    status: str


@dataclass(frozen=True, slots=True)
class _Chat:
    table: str
    line: dict[str, object]


_Write = Record | _Created | _Seats | _Started | _Stopped | _Status | _Chat


@dataclass(frozen=True, slots=True)
class _Fenced:
    """A write of a table held through a lease (server/cluster/leases.py), with the lease's token."""

    write: _Write
    table: str
    token: int


class StaleOwner(WriteRefused):
    """The write was refused: another process took the table over (its lease token is newer). The
    journal says so in one line (a warning), once per refused write."""


def _table_of(write: _Write) -> str:
    return write.table.id if isinstance(write, _Created) else write.table


class SqlJournal:
    """A journal in a SQLAlchemy database (SQLite or PostgreSQL). Each call returns once its write
    is committed; `close` (before the engine is disposed) waits for the writes still under way.
    ``batch_cap`` is the most writes one transaction holds (1: a transaction per write).
    """

    def __init__(self, engine: AsyncEngine, *, batch_cap: int = BATCH_CAP) -> None:
        self.engine = engine
        self.sessions = make_sessions(engine)
        # On PostgreSQL a batch of actions alone is one statement (`one_statement`), made without a
        # transaction around it: committed as it ends, one round trip (server/store/pg_records.py).
        alone = one_statement if engine.dialect.name == "postgresql" else None
        self.writer: GroupWriter[_Write | _Fenced] = GroupWriter(
            engine, _write, landed=_landed, cap=batch_cap, autocommit=alone
        )
        self.trouble: str | None = None  # why the last write failed, until one succeeds (for /healthz)
        # The fencing token of each table this process holds through a lease (several processes on
        # one database): its writes carry it. Empty for a server on its own.
        self.tokens: dict[str, int] = {}
        self.on_stale: Callable[[str], None] | None = None  # told of a table whose write was fenced off

    async def _submit(self, write: _Write) -> None:
        table = _table_of(write)
        token = self.tokens.get(table)
        try:
            await self.writer.submit(write if token is None else _Fenced(write, table, token))
        except StaleOwner as exc:
            log.warning("%s", exc)  # (the one line: no traceback, for a fenced process may refuse many)
            if self.on_stale is not None:
                self.on_stale(table)
            raise
        except Exception as exc:
            if self.trouble is None:  # said once, not by every table at every try until it writes again
                why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
                bug = not isinstance(exc, OSError | DBAPIError | WriterError) or isinstance(exc, _WRONG_QUERY)
                log.error("the database cannot write (%s); writes are refused until it can", why, exc_info=bug)
            self.trouble = f"writes are failing: {type(exc).__name__}: {exc}"[:300]
            raise
        self.writes_again()

    def writes_again(self) -> None:
        """A write has succeeded: the trouble, if there was any, is over (said once)."""
        if self.trouble is not None:
            log.warning("the database writes again")
        self.trouble = None

    async def table_created(self, table: StoredTable) -> None:
        """Insert the game row."""
        await self._submit(_Created(table))

    async def seats_changed(self, table: str, seats: list[SeatRecord | None], owner: int | None) -> None:
        """Replace the game's seat rows and owner."""
        await self._submit(_Seats(table, list(seats), owner))

    async def started(self, table: str, at: float) -> None:
        """Mark the game playing."""
        await self._submit(_Started(table, at))

    async def record(self, record: Record) -> None:
        """Append the action; a finished deal also writes its hand row and the seats' totals."""
        await self._submit(record)

    async def stopped(self, table: str) -> None:
        """Mark an unfinished game as no longer live (an imported one): it is kept but not restored."""
        await self._submit(_Stopped(table))

    async def adjourned(self, table: str) -> None:
        """Mark the game adjourned: it is not restored on start, and is loaded when someone opens it."""
        await self._submit(_Status(table, "adjourned"))

    async def resumed(self, table: str) -> None:
        """Mark the adjourned game playing again."""
        await self._submit(_Status(table, "playing"))

    async def chat(self, table: str, line: dict[str, object]) -> None:
        """Append a chat line."""
        await self._submit(_Chat(table, dict(line)))

    async def close(self) -> None:
        """Wait until every write already made is committed (or failed); later writes are refused."""
        await self.writer.close()

    async def unfinished(self) -> list[StoredTable]:
        """Every waiting or playing game with its seats, actions and recent chat, oldest first."""
        async with self.sessions() as session:
            games = (
                await session.scalars(
                    select(GameRow).where(GameRow.status.in_(("waiting", "playing"))).order_by(GameRow.created_at)
                )
            ).all()
            return [await _stored(session, game) for game in games]

    async def load(self, table: str) -> StoredTable | None:
        """The table ``table`` as stored, with its seats, actions and recent chat."""
        async with self.sessions() as session:
            game = await session.get(GameRow, table)
            return None if game is None else await _stored(session, game)

    async def status(self, table: str) -> str | None:
        """The status of the game ``table``, None if there is no such game."""
        async with self.sessions() as session:
            status: str | None = await session.scalar(select(GameRow.status).where(GameRow.id == table))
            return status

    async def adjourned_tables(self, member: int | None, limit: int) -> list[StoredTable]:
        """The newest ``limit`` public adjourned games (those where ``member`` sat, unless None) with
        their seats, newest first."""
        query = select(GameRow).where(GameRow.status == "adjourned", GameRow.public.is_(True))
        if member is not None:
            query = query.where(GameRow.id.in_(select(SeatRow.game_id).where(SeatRow.member_id == member)))
        async with self.sessions() as session:
            games = (await session.scalars(query.order_by(GameRow.created_at.desc()).limit(limit))).all()
            seats = await _seats(session, [game.id for game in games])
        return [_table(game, seats.get(game.id, [None] * 4)) for game in games]


def _write(connection: Connection, writes: Sequence[_Write | _Fenced]) -> None:
    """Make ``writes`` in order in the open transaction; each run of records is written as one.

    :raises StaleOwner: when a fenced write's token is no longer its table's (the whole batch fails,
        and the writer makes its writes again one by one: only that write fails).
    """
    fences = {w.table: w.token for w in writes if isinstance(w, _Fenced)}
    if connection.dialect.name == "postgresql" and one_statement(writes):
        records = [w.write if isinstance(w, _Fenced) else w for w in writes]
        held = write_records(connection, fences, *_rows(records))  # type: ignore[arg-type]
        _refuse_stale(fences, {table: token for table, token in fences.items() if table in held})
        return
    if fences:
        _check_fences(connection, fences)
    run: list[Record] = []
    for fenced in writes:
        write = fenced.write if isinstance(fenced, _Fenced) else fenced
        if isinstance(write, Record):
            run.append(write)
            continue
        if run:
            _records(connection, run)
            run = []
        _other(connection, write)
    if run:
        _records(connection, run)


_FENCES = text(f"SELECT table_id, token FROM {LeaseRow.__tablename__} WHERE table_id = ANY(:tables) FOR KEY SHARE")


def _check_fences(connection: Connection, fences: dict[str, int]) -> None:
    """Refuse the batch if a table's lease token is not the one its write carries. The lease rows are
    read FOR KEY SHARE: a takeover (which locks the row FOR UPDATE before raising the token) waits
    until this transaction ends, so it never misses a write this one commits; a renewal (an UPDATE
    of the expiry alone, no key) does not wait for it, so a process stalled in the middle of a write
    still has its leases renewed (server/cluster/renewer.py).
    """
    rows = connection.execute(_FENCES, {"tables": list(fences)})  # one statement, built once: every batch runs it
    _refuse_stale(fences, {table: token for table, token in rows})


def one_statement(writes: Sequence[_Write | _Fenced]) -> bool:
    """Whether ``writes`` are actions alone, which PostgreSQL takes in one statement, fence included."""
    return all(isinstance(w.write if isinstance(w, _Fenced) else w, Record) for w in writes)


def _refuse_stale(fences: dict[str, int], current: dict[str, int]) -> None:
    """:raises StaleOwner: for the first table of ``fences`` whose lease token is not ``current``'s."""
    for table, token in fences.items():
        if current.get(table) != token:
            raise StaleOwner(
                f"table {table}: another process has taken it over (this process held lease token {token}); "
                "this write is refused"
            )


def _landed(connection: Connection, fenced: _Write | _Fenced) -> bool:
    """Whether ``write`` is in the database already (made by a writer that died before saying so).
    An action is there if its row is: its batch was one transaction. The seats, the start and the
    stop set what they set, so making them again changes nothing; a chat line is looked for.
    """
    found: Select[Any]
    write = fenced.write if isinstance(fenced, _Fenced) else fenced
    match write:
        case Record(table=table, version=seq):  # an action's number is the version it made
            found = select(ActionRow.seq).where(ActionRow.game_id == table, ActionRow.seq == seq)
        case _Created(table=stored):
            found = select(GameRow.id).where(GameRow.id == stored.id)
        case _Chat(table=table, line=line):
            at = _when(int(line["at"]) / 1000)  # type: ignore[call-overload]
            found = select(ChatRow.id).where(ChatRow.game_id == table, ChatRow.at == at, ChatRow.text == line["text"])
        case _:
            return False
    return connection.execute(found.limit(1)).first() is not None


def _records(connection: Connection, records: list[Record]) -> None:
    """The rows of ``records`` with one statement per kind of row: the action rows, the hand rows of
    finished deals, the seats' totals, and each game's row as the last of its records leaves it.
    """
    actions, hands, totals, games = _rows(records)
    if connection.dialect.name == "sqlite":
        _records_sqlite(connection, actions, hands, totals, games)
        return
    connection.execute(insert(ActionRow), actions)
    if hands:
        connection.execute(insert(HandRow), hands)
    if totals:
        scores = update(SeatRow).where(SeatRow.game_id == bindparam("g_id"), SeatRow.seat == bindparam("g_seat"))
        params = [{"g_id": table, "g_seat": seat, "g_score": total} for (table, seat), total in totals.items()]
        connection.execute(scores.values(score=bindparam("g_score")), params)
    for keys, rows in _shapes(games).items():
        game = update(GameRow).where(GameRow.id == bindparam("g_id"))
        connection.execute(game.values({k: bindparam(f"g_{k}") for k in keys}), rows)


_Rows = tuple[list[dict[str, Any]], list[dict[str, Any]], dict[tuple[str, int], int], dict[str, dict[str, Any]]]


def _rows(records: list[Record]) -> _Rows:
    """The action rows of ``records``, the hand rows of finished deals, the seats' totals, and each
    game's new values as the last of its records leaves them.
    """
    actions = []
    hands = []
    games: dict[str, dict[str, Any]] = {}
    totals: dict[tuple[str, int], int] = {}
    for record in records:
        actions.append(action_row(record))
        values = games.setdefault(record.table, {})
        values["version"] = record.version
        for event in record.events:
            if event["type"] == "deal_end":
                hands.append(_hand_values(record, event))
                seat_totals = list(event["totals"])  # type: ignore[call-overload]
                values.update(hands=record.deal + 1, scores=seat_totals)
                for seat, total in enumerate(seat_totals):
                    totals[record.table, seat] = total
            elif event["type"] == "game_end":
                values.update(status="over", finished_at=_when(record.at), scores=event["scores"])
    return actions, hands, totals, games


def _shapes(games: dict[str, dict[str, Any]]) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    """The games' new values grouped by the columns they set, as ``g_``-prefixed bind parameters."""
    shapes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for table, values in games.items():
        shapes.setdefault(tuple(sorted(values)), []).append({"g_id": table, **{f"g_{k}": v for k, v in values.items()}})
    return shapes


# SQLite: every kind of row in ONE statement per batch (per 999 parameters), with the statements
# compiled once and the rows bound with the columns' own processors: the same rows Core writes.
# Core spends several times as long preparing these statements as SQLite takes to run them
# (docs/benchmarks.md, "Journal: group commit"). And SQLite runs a statement with the interpreter
# lock released: the writer thread takes the lock back after each one, which on a busy event loop can
# take a whole switch interval (5 ms), and every table whose write is in the batch waits for it.
# executemany would do that once per row: four times more for the seats' totals at every deal's end.
Processor = Callable[[Any], Any] | None
SQLITE_VARIABLES = 999  # the fewest bound parameters a SQLite statement may have (SQLite before 3.32)


def _records_sqlite(
    connection: Connection,
    actions: list[dict[str, Any]],
    hands: list[dict[str, Any]],
    totals: dict[tuple[str, int], int],
    games: dict[str, dict[str, Any]],
) -> None:
    _insert_rows(connection, ActionRow.__table__, actions)  # type: ignore[arg-type]
    if hands:
        _insert_rows(connection, HandRow.__table__, hands)  # type: ignore[arg-type]
    if totals:
        _update_scores(connection, totals)
    for keys, rows in _shapes(games).items():
        _update_games(connection, keys, rows)


def _processor(table: Table, key: str, dialect: Dialect) -> Processor:
    column = table.c[key]
    return column.type.dialect_impl(dialect).bind_processor(dialect)


@functools.lru_cache(maxsize=16)
def _insert_parts(
    table: Table, keys: tuple[str, ...], dialect: Dialect
) -> tuple[str, str, tuple[tuple[str, Processor], ...]]:
    """The INSERT of columns ``keys`` into ``table`` cut before its VALUES group, that group, and per
    parameter its key and the column's processor.
    """
    compiled = insert(table).compile(dialect=dialect, column_keys=list(keys))
    head, _, group = str(compiled).partition(" VALUES ")
    positions = compiled.positiontup or []
    return head, group, tuple((key, _processor(table, key, dialect)) for key in positions)


@functools.lru_cache(maxsize=512)
def _many(head: str, group: str, rows: int) -> str:
    return f"{head} VALUES {', '.join([group] * rows)}"


def _insert_rows(connection: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """``rows`` (dicts with the same keys) as Core would bind them, in one INSERT … VALUES (…), (…)
    per 999 parameters.
    """
    if not rows:
        return
    head, group, params = _insert_parts(table, tuple(rows[0]), connection.dialect)
    step = SQLITE_VARIABLES // len(params)
    for start in range(0, len(rows), step):
        chunk = rows[start : start + step]
        flat = [row[key] if process is None else process(row[key]) for row in chunk for key, process in params]
        connection.exec_driver_sql(_many(head, group, len(chunk)), tuple(flat))


@functools.lru_cache(maxsize=512)
def _games_sql(keys: tuple[str, ...], rows: int, quote: Callable[[str], str]) -> str:
    cases = " ".join(["WHEN ? THEN ?"] * rows)
    sets = ", ".join(f"{quote(key)} = CASE id {cases} END" for key in keys)
    ids = ", ".join(["?"] * rows)
    return f"UPDATE {GameRow.__tablename__} SET {sets} WHERE id IN ({ids})"


@functools.lru_cache(maxsize=16)
def _game_processors(keys: tuple[str, ...], dialect: Dialect) -> tuple[tuple[str, Processor], ...]:
    """Per column of ``keys``: its ``g_``-prefixed parameter name and its processor."""
    table: Table = GameRow.__table__  # type: ignore[assignment]
    return tuple((f"g_{key}", _processor(table, key, dialect)) for key in keys)


def _update_games(connection: Connection, keys: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    """Each game's new values of columns ``keys`` (``g_``-prefixed in ``rows``), in one UPDATE …
    SET column = CASE id WHEN … END per 999 parameters.
    """
    dialect = connection.dialect
    processors = _game_processors(keys, dialect)
    step = SQLITE_VARIABLES // (2 * len(keys) + 1)
    for start in range(0, len(rows), step):
        chunk = rows[start : start + step]
        flat = [
            value
            for key, process in processors
            for row in chunk
            for value in (row["g_id"], row[key] if process is None else process(row[key]))
        ]
        flat += [row["g_id"] for row in chunk]
        sql = _games_sql(keys, len(chunk), dialect.identifier_preparer.quote)
        connection.exec_driver_sql(sql, tuple(flat))


@functools.lru_cache(maxsize=512)
def _scores_sql(rows: int, games: int) -> str:
    cases = " ".join(["WHEN game_id = ? AND seat = ? THEN ?"] * rows)
    ids = ", ".join(["?"] * games)
    return f"UPDATE {SeatRow.__tablename__} SET score = CASE {cases} ELSE score END WHERE game_id IN ({ids})"


def _update_scores(connection: Connection, totals: dict[tuple[str, int], int]) -> None:
    """The seats' running totals, in one UPDATE per 999 parameters (a deal's end sets all four)."""
    items = list(totals.items())
    step = SQLITE_VARIABLES // 4  # three per seat, and the game's id once for (at most) every seat
    for start in range(0, len(items), step):
        chunk = items[start : start + step]
        ids = list(dict.fromkeys(table for (table, _), _total in chunk))
        flat = [value for (table, seat), total in chunk for value in (table, seat, total)]
        connection.exec_driver_sql(_scores_sql(len(chunk), len(ids)), (*flat, *ids))


def game_row(table: StoredTable) -> dict[str, Any]:
    """The ``games`` row of a table just created: its settings frozen, waiting for players."""
    s = table.settings
    return {
        "id": table.id,
        "name": s.name,
        "ruleset": s.ruleset.name,
        "ruleset_version": s.ruleset.version,
        "options": s.ruleset.rules.to_json(),
        "overrides": dict(s.ruleset.overrides),
        "timers": s.timers.to_json(),
        "public": s.public,
        "hints": s.hints,
        "seed": table.seed,
        "status": "waiting",
        "owner_seat": None,
        "version": 0,
        "hands": 0,
        "scores": None,
        "created_at": _when(table.created),
    }


def _other(connection: Connection, write: _Write) -> None:
    """One write other than an action."""
    match write:
        case _Created(table):
            connection.execute(insert(GameRow), [game_row(table)])
        case _Seats(table, seats, owner):
            connection.execute(delete(SeatRow).where(SeatRow.game_id == table))
            rows = []
            for i, seat in enumerate(seats):
                if seat is None:
                    continue
                bot = seat.token_hash is None if seat.bot is None else seat.bot
                player = None if bot else _player(connection, seat.name, seat.member)
                row = {"game_id": table, "seat": i, "name": seat.name, "bot": bot, "player_id": player}
                rows.append(
                    row
                    | {
                        "token_hash": seat.token_hash,
                        "member_id": None if bot else seat.member,
                        "level": seat.level if bot else None,
                    }
                )
            if rows:
                connection.execute(insert(SeatRow), rows)
            connection.execute(update(GameRow).where(GameRow.id == table).values(owner_seat=owner))
        case _Started(table, at):
            values = {"status": "playing", "started_at": _when(at)}
            connection.execute(update(GameRow).where(GameRow.id == table).values(**values))
        case _Stopped(table):
            connection.execute(update(GameRow).where(GameRow.id == table).values(status="stopped"))
        case _Status(table, status):
            connection.execute(update(GameRow).where(GameRow.id == table).values(status=status))
        case _Chat(table, line):
            chat = {
                "game_id": table,
                "seat": _TABLE_LINE if line["seat"] is None else int(line["seat"]),  # type: ignore[call-overload]
                "name": str(line["name"]),
                "text": str(line["text"]),
                "at": _when(int(line["at"]) / 1000),  # type: ignore[call-overload]
            }
            connection.execute(insert(ChatRow), [chat])
        case _:
            raise TypeError(f"not a journal write: {write!r}")


def _player(connection: Connection, name: str, member: int | None) -> int:
    """The id of the ``players`` row of ``name`` (made if new); a member's name is marked as theirs."""
    found = connection.scalar(select(PlayerRow.id).where(PlayerRow.name == name))
    if found is not None:
        if member is not None:
            connection.execute(
                update(PlayerRow).where(PlayerRow.id == found, PlayerRow.member_id.is_(None)).values(member_id=member)
            )
        return found
    try:
        with connection.begin_nested():  # another process may add the same name at the same moment
            values = {"name": name, "created_at": datetime.now(UTC), "member_id": member}
            result = connection.execute(insert(PlayerRow).values(**values))
        key = result.inserted_primary_key
        assert key is not None
        return int(key[0])
    except IntegrityError:
        found = connection.scalar(select(PlayerRow.id).where(PlayerRow.name == name))
        assert found is not None
        return found


def action_row(record: Record) -> dict[str, Any]:
    """The ``actions`` row of one recorded action."""
    return {
        "game_id": record.table,
        "seq": record.version,
        "seat": record.seat,
        "action": record.action,
        "events": record.events,
        "auto": record.auto,
        "at": _when(record.at),
    }


def hand_row(record: Record, event: dict[str, Any]) -> HandRow:
    """The ``hands`` row of a deal that ended with ``event`` (its `deal_end`)."""
    return HandRow(**_hand_values(record, event))


def _hand_values(record: Record, event: dict[str, Any]) -> dict[str, Any]:
    return {
        "game_id": record.table,
        "number": record.deal,
        "round_wind": record.round_wind,
        "dealer": record.dealer,
        "winner": event.get("winner"),
        "termination": str(event.get("termination")),
        "win_by": event.get("win_by"),
        "discarder": event.get("discarder"),
        "value": _winning_value(event),
        "result": event,
        "changes": list(event.get("changes") or [0, 0, 0, 0]),
        "totals": list(event.get("totals") or []),
        "finished_at": _when(record.at),
    }


def _winning_value(event: dict[str, Any]) -> int | None:
    winner, scores = event.get("winner"), event.get("scores")
    if not isinstance(winner, int) or not isinstance(scores, list) or not 0 <= winner < len(scores):
        return None
    value = scores[winner].get("value") if isinstance(scores[winner], dict) else None
    return value if isinstance(value, int) else None


async def _seats(session: AsyncSession, games: list[str]) -> dict[str, list[SeatRecord | None]]:
    """The seats of each of ``games``."""
    found: dict[str, list[SeatRecord | None]] = {}
    if not games:
        return found
    for row in await session.scalars(select(SeatRow).where(SeatRow.game_id.in_(games))):
        seats = found.setdefault(row.game_id, [None] * 4)
        seats[row.seat] = SeatRecord(row.name, row.token_hash, member=row.member_id, level=row.level)
    return found


def _table(game: GameRow, seats: list[SeatRecord | None]) -> StoredTable:
    """The table of ``game`` with ``seats``, without its log or chat."""
    from game.rulesets import ruleset  # (here: the journal's writer process imports this module, and no game)
    from server.tables.settings import TableSettings, Timers

    settings = TableSettings(
        game.name, ruleset(game.ruleset, game.overrides), Timers.from_json(game.timers), game.public, game.hints
    )
    return StoredTable(game.id, settings, game.seed, to_seconds(game.created_at), game.status, game.owner_seat, seats)


async def _stored(session: AsyncSession, game: GameRow) -> StoredTable:
    table = _table(game, (await _seats(session, [game.id])).get(game.id, [None] * 4))
    table.actions = [
        (row.seat, dict(row.action))
        for row in await session.scalars(select(ActionRow).where(ActionRow.game_id == game.id).order_by(ActionRow.seq))
    ]
    recent = (
        await session.scalars(
            select(ChatRow).where(ChatRow.game_id == game.id).order_by(ChatRow.id.desc()).limit(CHAT_KEPT)
        )
    ).all()
    table.chat = [
        {
            "seat": None if c.seat == _TABLE_LINE else c.seat,
            "name": c.name,
            "text": c.text,
            "at": round(to_seconds(c.at) * 1000),
        }
        for c in reversed(recent)
    ]
    return table
