"""`TableActor`: one asyncio task and one inbox per table (ARCHITECTURE lessons 1–8).

The actor is the only code that touches its table's `Game`. Joins, intents, chat, timer firings
and disconnects are messages handled one at a time. It never awaits a socket: it puts frames on
each connection's bounded queue. After every change it projects the state for each connection
through the engine's one `view()` and sends the difference from what that connection last got.

Three parts live in modules of their own and are inherited: the seats (server/tables/seating.py),
who is at the table (server/tables/presence.py), and its moving to another server process while it
plays (server/tables/handover.py); server/tables/parts.py declares what they share.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable

from game.actions import Action, ActionType
from game.bots import Bot as LevelBot
from game.bots import make_bot
from game.errors import RulesError
from game.game import Game, GamePhase, replay
from game.seatview import SeatView
from server import logs, metrics
from server.protocol import MAX_ID
from server.statediff import Memo, diff
from server.tables.clock import Clock, Timer
from server.tables.connection import Connection, compact, encode
from server.tables.errors import TableError
from server.tables.handover import Baton, Handover
from server.tables.journal import (
    STAND_IN,
    Journal,
    Record,
    StoredTable,
    WriteOutcomeUnknown,
    WriteRefused,
)
from server.tables.messages import (
    Act,
    AddBots,
    Adjourn,
    AdjournNow,
    Attach,
    BotMove,
    Chat,
    Deadline,
    Deserted,
    Detach,
    GraceOver,
    HandOver,
    Join,
    Leave,
    Message,
    PauseOver,
    PutAway,
    Reload,
    Rematch,
    RematchMade,
    Remove,
    Resync,
    Start,
    Stop,
)
from server.tables.presence import Presence
from server.tables.seating import DEFAULT_LEVEL, Seating, SeatState
from server.tables.settings import TableSettings, clean_text
from server.tables.view import TableState

__all__ = ["SeatState", "TableActor"]

log = logging.getLogger("sparrow.table")

CHAT_MAX = 300
RESTORE_GRACE = 30.0  # after a restart, seconds added to every clock while people reconnect
STOP_WAIT = 5.0  # seconds a stopping table may take to finish its inbox before it is cancelled
FAILURE_LIMIT = 5  # a table that fails more often than this within FAILURE_SPAN seconds closes
FAILURE_SPAN = 60.0
INTERNAL_ERROR = 1011  # close code of a table that could not be rebuilt
ADJOURN_AFTER = 24 * 3600.0  # seconds a paused table waits before it is adjourned
RETRY_FIRST, RETRY_MAX = 0.5, 5.0  # seconds between tries of a bot move or deadline that could not be stored
Bot = Callable[[Game, int], Action]
_Asked = Join | Leave | AddBots | Remove | Start | Rematch | AdjournNow | PutAway | Attach  # requests answered


class TableActor(Seating, Presence, Handover):
    """One live table: its seats (`Seating`), game, timers and connections (`Presence`), which may move
    to another server process (`Handover`)."""

    def __init__(
        self,
        table_id: str,
        settings: TableSettings,
        *,
        clock: Clock,
        journal: Journal,
        seed: int | None = None,
        bot: Bot | None = None,
    ) -> None:
        self.id = table_id
        self.settings = settings
        self.clock = clock
        self.journal = journal
        self.seed = secrets.randbits(63) if seed is None else seed  # never leaves the server while play runs
        self.bot = bot  # one policy for every bot seat (tests); None: each seat's level decides
        self._bots: dict[tuple[int, str], LevelBot] = {}  # the bot playing a seat at a level, made when first needed
        self.seats: list[SeatState | None] = [None] * 4
        self.owner: int | None = None  # the seat whose person may add bots and start
        self.game: Game | None = None
        self.status = "waiting"  # waiting → playing → over; closed when stopped
        self.created = clock.now()
        self.connections: set[Connection] = set()
        self.chat: deque[dict[str, object]] = deque(maxlen=50)
        self._ack: tuple[Connection, int] | None = None  # an intent's ack, waiting to ride in its diff
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.window = 0  # the current decision's token: opaque, fresh for each decision (lesson 16)
        self.deadline: float | None = None
        self.deadline_kind: str | None = None
        self._marker: object = None
        self._deadline_timer: Timer | None = None
        self._pause_timer: Timer | None = None
        self._pause_at: float | None = None  # when the fair pause's timer fires
        self._bot_timers: dict[int, Timer] = {}
        self._grace_timers: dict[int, Timer] = {}
        self._task: asyncio.Task[None] | None = None
        self._failures: list[float] = []  # when the table last failed (lesson 15)
        self._unread = False  # to be rebuilt from a journal that could not be read: nothing is written
        self.paused_since: float | None = None  # nobody was here for the grace period: no clocks run
        self.adjourn_after = ADJOURN_AFTER
        self._empty_since: float | None = None  # when the last seated person's last socket closed
        self._presence_timer: Timer | None = None
        # People's answers kept until the fair pause ends (R6.9), with the socket and request to answer.
        self.held: dict[int, tuple[Action, Connection, int]] = {}
        self.rematch: str | None = None  # the table where the same seats play again
        self._rematching = False
        self._over_at: float | None = None  # when the game ended (or the finished table was loaded)
        self._left_at = self.created  # when the last socket left
        # Who opened the table (a member, or an address: `Lobby.max_waiting`) and their seat's token
        # hash; kept in memory only.
        self.opened_by: tuple[str, str] | None = None
        self.state = TableState(self)

    @classmethod
    def restore(
        cls,
        stored: StoredTable,
        *,
        clock: Clock,
        journal: Journal,
        bot: Bot | None = None,
        grace: float = RESTORE_GRACE,
    ) -> TableActor:
        """Rebuild a table from storage to the exact action (lesson 11). Everyone starts away: the
        current decision's deadline and each person's grace period are counted from now, plus ``grace``.

        :raises RulesError: if the stored log does not replay (it was written by this engine, so it should).
        """
        actor = cls(stored.id, stored.settings, clock=clock, journal=journal, seed=stored.seed, bot=bot)
        actor.created = stored.created
        actor._load(stored)
        if actor.status == "playing":
            assert actor.game is not None
            now = clock.now()
            for i, s in enumerate(actor.seats):
                if s is not None and not s.bot:
                    s.away_since = now
                    actor._grace_timers[i] = actor._post_at(
                        now + stored.settings.timers.grace + grace, GraceOver(i, now)
                    )
            actor._arm_deadline(actor.game, extra=grace)
            actor._schedule_bots()
            actor._watch_presence(extra=grace)
        elif actor.status == "adjourned":  # brought back because someone opens it: nobody is here yet
            for s in actor.seats:
                if s is not None and not s.bot:
                    s.away_since = actor.paused_since
        return actor

    @classmethod
    def loaded(cls, stored: StoredTable, *, clock: Clock, journal: Journal, bot: Bot | None = None) -> TableActor:
        """The table ``stored``, rebuilt to the exact action, its clocks not armed and its task not started:
        it goes on where another server process hands it over (`Handover.go_on`).

        :raises RulesError: if the stored log does not replay.
        """
        actor = cls(stored.id, stored.settings, clock=clock, journal=journal, seed=stored.seed, bot=bot)
        actor.created = stored.created
        actor._load(stored)
        return actor

    def _load(self, stored: StoredTable) -> None:
        """Set seats, owner, chat and game to what ``stored`` holds, replaying its actions.

        :raises RulesError: if the stored log does not replay.
        """
        self.seats = [
            None if r is None else SeatState(r.name, r.token_hash, r.member, level=r.level) for r in stored.seats
        ]
        self.owner = stored.owner
        self.chat.clear()
        self.chat.extend(stored.chat)
        self.game, self._marker, self._ack = None, None, None
        self.status = "waiting"
        if stored.status not in ("playing", "adjourned", "over"):
            return
        game = self.game = Game(stored.settings.ruleset.rules, stored.seed)
        self.status = "playing"
        self._new_decision(game)
        for seat, action in stored.actions:
            game.apply(seat, action)
            self._new_decision(game)
        if game.phase is GamePhase.OVER:
            self.status = "over"
            self._over_at = self.clock.now()
        elif stored.status == "adjourned":  # no clock runs until someone opens it (`_someone_here`)
            self.status = "adjourned"
            self.deadline = None
            if self.paused_since is None:
                self.paused_since = self.clock.now()

    # ---------------------------------------------------------------- running
    def start(self) -> None:
        """Start the actor's task on the running loop."""
        self._task = asyncio.get_running_loop().create_task(
            self.run(), name=f"table-{self.id}", context=logs.table_context(self.id)
        )

    async def run(self) -> None:
        """Handle inbox messages one at a time until :class:`Stop` (or until the table has to close
        because it cannot be rebuilt). A failure is a bug: the table is rebuilt from its journal and
        plays on (lesson 15).
        """
        while self.status != "closed":
            msg = await self.inbox.get()
            logs.handling(msg)  # the seat its log lines concern
            try:
                await self.handle(msg)
            except WriteOutcomeUnknown:
                log.error("table %s: a write's outcome is unknown; rebuilding it from its journal", self.id)
                await self._recover(msg, answer=False)  # the snapshot after the rebuild tells the truth
            except Exception:  # a bug must not take the table down; the user gets a plain refusal
                log.exception("table %s failed on %s; rebuilding it from its journal", self.id, type(msg).__name__)
                await self._recover(msg)
            finally:
                self.inbox.task_done()
            stop = isinstance(msg, Stop | HandOver)
            del msg  # (or it is held until the next message comes: a closed socket's Connection, say)
            if stop:
                return

    def post(self, msg: Message) -> None:
        """Put a message in the inbox (never blocks)."""
        self.inbox.put_nowait(msg)

    async def ask(self, msg: _Asked) -> object:
        """Post a request and wait for its answer.

        :raises TableError: the table's refusal.
        """
        if self.status == "closed":
            raise TableError("table/closed", "this table has closed", status=410)
        self.post(msg)
        return await msg.reply

    async def stop(self, code: int = 1001, *, wait: float = STOP_WAIT) -> None:
        """Stop the table once its inbox is handled, closing its sockets with ``code``; wait for the
        task, at most ``wait`` seconds: a table that cannot stop by then is cancelled and closed.
        """
        if self._task is not None and not self._task.done():
            self.post(Stop(code))
            try:
                await asyncio.wait_for(asyncio.shield(self._task), wait)
            except TimeoutError:
                log.error("table %s did not stop within %g s; it is cancelled", self.id, wait, extra={"table": self.id})
                self._task.cancel()
                with contextlib.suppress(BaseException):
                    await self._task
        if self.status != "closed":  # never leave a socket open on a table that is gone
            self._close(code)

    async def hand_over(self, *, wait: float = STOP_WAIT) -> tuple[Baton, list[Connection]] | None:
        """Stop here once the inbox is handled, leaving the sockets open, for another server process to
        go on (`handed_over`): the baton and the sockets; None when the table has stopped already, or
        could not stop within ``wait`` seconds (it is then cancelled, and its sockets closed, 1012).
        """
        if self.status == "closed" or self._task is None or self._task.done():
            return None
        msg = HandOver()
        self.post(msg)
        try:
            async with asyncio.timeout(wait):
                answer = await asyncio.shield(msg.reply)
        except TimeoutError:
            log.error("table %s did not stop within %g s to move; it is cancelled", self.id, wait)
            self.abandon(1012)
            return None
        assert isinstance(answer, tuple)
        return answer

    def abandon(self, code: int) -> None:
        """Stop at once, handling and writing nothing more: another server process runs the table now
        (server/cluster). Its sockets close with ``code``; whoever waits on a request is refused."""
        if self.status != "closed":
            self._close(code)
        if self._task is not None and not self._task.done():
            self._task.cancel()

    @property
    def quiet_since(self) -> float | None:
        """Since when the game has been over with nobody at the table (None while it is not over, or
        while a socket is open): the lobby lets such a table go after a while (`Lobby.retire`)."""
        if self._over_at is None or self.status != "over" or self.connections:
            return None
        return max(self._over_at, self._left_at)

    @property
    def idle_since(self) -> float | None:
        """Since when the table has waited for players with no socket open (None once the game has
        started, or while a socket is open): the lobby closes such a table after a while
        (`Lobby.retire`). A restored table counts from its restart."""
        if self.status != "waiting" or self.connections:
            return None
        return self._left_at

    @property
    def waiting_for(self) -> str | None:
        """Whose table this is among those waiting to start (`Lobby.max_waiting`): whoever opened it,
        while the game has not started and they still own it (None once they left, or after a restart)."""
        if self.status != "waiting" or self.opened_by is None or self.owner is None:
            return None
        person, token_hash = self.opened_by
        seat = self.seats[self.owner]
        return person if seat is not None and seat.token_hash == token_hash else None

    @property
    def done(self) -> bool:
        """The task has ended."""
        return self._task is not None and self._task.done()

    async def _recover(self, msg: Message, *, answer: bool = True) -> None:
        """After a failure on ``msg``: answer whoever waits on it, then rebuild the table from its
        journal to the last stored action, keep its sockets and send each a snapshot. A table that
        keeps failing, or whose log cannot be rebuilt, closes (1011) instead of looping; one whose
        journal cannot be read (the database is down) waits for it (`_reload`).
        """
        metrics.TABLE_FAILURES.inc()
        if answer:
            with contextlib.suppress(Exception):  # the answer itself may be what failed
                self._fail(msg)
        now = self.clock.now()
        self._failures = [t for t in self._failures if now - t < FAILURE_SPAN] + [now]
        if len(self._failures) > FAILURE_LIMIT:
            log.error("table %s failed %d times within %g s; it closes", self.id, len(self._failures), FAILURE_SPAN)
            self._close(INTERNAL_ERROR)
            return
        await self._reload()

    async def _reload(self, attempt: int = 0) -> None:
        """Rebuild the table from its journal and send every socket a snapshot. While the journal
        cannot be read (lesson 17: a write's outcome was unknown because the database stopped
        answering, and it still does not) the table keeps its sockets, refuses whatever would write,
        and reads it again after the backoff of ``attempt``. A log that cannot be rebuilt closes it (1011).
        """
        try:
            stored = await self.journal.load(self.id)
        except Exception:
            if not self._unread:
                log.exception("table %s cannot read its journal back; it waits for it", self.id)
            self._unread = True
            self._cancel_all()  # no timer or bot writes on a game that may not be what was stored
            self._retry(attempt, Reload(attempt + 1))
            return
        try:
            if stored is None:
                raise LookupError("the journal has no such table")
            self._rebuild(stored)
        except Exception:
            log.exception("table %s could not be rebuilt from its journal; it closes", self.id)
            self._close(INTERNAL_ERROR)
            return
        if self._unread:
            log.warning("table %s was read back from its journal; it plays on", self.id)
            self._unread = False
        for conn in list(self.connections):
            if not conn.closed:
                self._snapshot(conn)

    def _rebuild(self, stored: StoredTable) -> None:
        """Replace the game, seats and timers with what the journal holds; who is connected, away
        or substituted stays as it was (the sockets are still here).
        """
        before = {s.token_hash: s for s in self.seats if s is not None and not s.bot}
        self._cancel_all()
        self._load(stored)
        now = self.clock.now()
        for i, seat in enumerate(self.seats):
            old = None if seat is None or seat.bot else before.get(seat.token_hash)
            if seat is None or old is None:
                continue
            seat.connections, seat.away_since, seat.substitute = old.connections, old.away_since, old.substitute
            if seat.away_since is not None and not seat.substitute and self.status == "playing":
                when = max(now, seat.away_since + self.settings.timers.grace)
                self._grace_timers[i] = self._post_at(when, GraceOver(i, seat.away_since))
        for conn in list(self.connections):  # a socket whose seat is no longer its own watches instead
            if conn.seat is not None:
                seat = self.seats[conn.seat]
                if seat is None or seat.token_hash != conn.token:
                    conn.seat = None
        if self.game is not None and self.status == "playing" and self.paused_since is None:
            self._arm_deadline(self.game)
            self._schedule_bots()
            self._empty_since = None
            self._watch_presence()
        elif self.status == "playing" and self.paused_since is not None:  # paused: it is adjourned in time
            since = self.paused_since
            self._presence_timer = self._post_at(since + self.adjourn_after, Adjourn(since))

    def _fail(self, msg: Message, error: TableError | None = None) -> None:
        error = error or TableError(
            "server/internal", "the server could not handle that; the table is unchanged", status=500
        )
        reply = getattr(msg, "reply", None)
        if reply is not None and not reply.done():
            reply.set_exception(error)
        if isinstance(msg, Act | Chat):
            request = msg.request if isinstance(msg.request, int) and 0 <= msg.request <= MAX_ID else None
            msg.conn.send(encode("refused", {"id": request, **error.to_json()}))

    # --------------------------------------------------------------- dispatch
    async def handle(self, msg: Message) -> None:
        """Handle one message."""
        if self._unread and isinstance(msg, _WRITES):
            # Waiting to be read back from the journal: what would write is refused, and a timer's or a
            # bot's move dropped (the rebuild arms them again).
            self._fail(
                msg,
                TableError(
                    "server/storage", "the server cannot read this table back from storage yet; try again", status=503
                ),
            )
            return
        match msg:
            case Join() | Leave() | AddBots() | Remove() | Start() | Rematch() | AdjournNow() | PutAway() | Attach():
                try:
                    result = await self._request(msg)
                except TableError as exc:
                    if not msg.reply.done():
                        msg.reply.set_exception(exc)
                    return
                if not msg.reply.done():
                    msg.reply.set_result(result)
                if isinstance(msg, Attach):
                    self._snapshot(msg.conn)
                self._publish()
            case Detach(conn):
                self._detach(conn)
            case RematchMade(table):
                self._rematching, self.rematch = False, table
                self._publish()
            case Act():
                await self._act(msg)
            case Chat():
                await self._chat(msg)
            case Resync(conn):
                if conn in self.connections:
                    self._snapshot(conn)
            case Deadline(window, attempt):
                await self._deadline(window, attempt)
            case BotMove(window, seat, attempt):
                await self._bot_move(window, seat, attempt)
            case PauseOver(window, attempt):
                await self._end_pause(window, attempt)
            case Deserted(since):
                self._deserted(since)
            case Adjourn(since, attempt):
                await self._adjourn(since, attempt)
            case GraceOver(seat, since):
                self._grace_over(seat, since)
            case Reload(attempt):
                if self._unread:
                    await self._reload(attempt)
            case HandOver(reply):
                reply.set_result(self._hand_over())
            case Stop(code):
                self._close(code)
            case _:
                log.warning("table %s ignored unknown message %r", self.id, msg)

    async def _request(self, msg: _Asked) -> object:
        match msg:
            case Join(name, seat, member):
                return await self._join(name, seat, member)
            case Leave(token, member):
                return await self._leave(token, member)
            case AddBots(token, member, level):
                return await self._add_bots(token, member, level)
            case Remove(token, seat, member, admin):
                return await self._remove(token, seat, member, admin)
            case Start(token, member):
                return await self._start(token, member)
            case Rematch(token, member):
                return self._plan_rematch(token, member)
            case AdjournNow():
                return await self._adjourn_now()
            case PutAway(paused=paused):
                return await self._put_away(paused)
            case Attach(conn, token, member):
                if self.status == "adjourned":
                    await self._resume_stored()
                return self._attach(conn, token, member)
        raise AssertionError(msg)

    # ----------------------------------------------------------- storage
    async def _journal(self, write: Awaitable[None]) -> None:
        try:
            await write
        except WriteOutcomeUnknown:
            raise  # not "nothing changed": the table is rebuilt from what was stored (`_recover`)
        except Exception as exc:
            if isinstance(exc, WriteRefused):  # the journal said why, in one line
                log.debug("table %s could not write to storage: %s", self.id, exc)
            elif self.journal.trouble is None:
                log.exception("table %s could not write to storage", self.id)
            else:  # the journal said why when its writes began to fail: not again per table and try
                log.debug("table %s could not write to storage: %s", self.id, self.journal.trouble)
            message = "the server could not save that; nothing changed, try again"
            raise TableError("server/storage", message, status=503) from None

    # ------------------------------------------------------------- publishing
    def _snapshot(self, conn: Connection) -> None:
        state = self.state.document(conn.seat)
        conn.seq += 1
        conn.last = state
        conn.send(encode("snapshot", {"seq": conn.seq, "now": _ms(self.clock.now()), "state": state}))

    def _publish(self, only: int | None = None) -> None:
        """Send each connection (of seat ``only``, if given) the diff between what it last got and its
        view now.
        """
        live = [conn for conn in self.connections if not conn.closed and (only is None or conn.seat == only)]
        documents = self.state.documents(conn.seat for conn in live)
        diffs: dict[tuple[int | None, int], str | None] = {}
        # The documents share their public parts, as did the ones sent last time: the memo diffs each
        # shared part once for all seats. It is keyed by identity, so every old document is held until
        # the loop ends.
        memo: Memo = {}
        olds = [conn.last for conn in live]
        for conn in live:
            new = documents[conn.seat]
            key = (conn.seat, id(conn.last))
            if key not in diffs:  # connections that were in step share one diff
                change = diff(conn.last, new, memo)
                diffs[key] = None if change is None else compact(change)
            ops_json = diffs[key]
            if ops_json is None:
                conn.last = new
                continue
            conn.seq += 1
            conn.last = new
            ack = ""
            if self._ack is not None and self._ack[0] is conn:
                ack = f',"ack":{self._ack[1]}'
                self._ack = None
            conn.send(f'{{"t":"diff","d":{{"seq":{conn.seq},"ops":{ops_json}{ack}}}}}')
        del olds

    # ---------------------------------------------------------------- intents
    async def _act(self, msg: Act) -> None:
        conn = msg.conn
        try:
            if conn not in self.connections:
                return
            if conn.seat is None:
                raise TableError("seat/spectator", "spectators cannot act; join a seat to play")
            if self.game is None:
                raise TableError("table/not_started", "the game has not started yet")
            if msg.window != self.window:
                raise TableError("window/stale", "too late: that decision had already closed")
            if self._pause_timer is not None and self._pausing(self.game):
                self._hold(conn, msg.request, msg.action)  # R6.9: nothing is decided before the pause ends
                window = self.game.deal.window
                assert window is not None
                if all(s in self.held for s in window.options if not self._robot(s)):
                    await self._end_pause(self.window)  # every person asked has answered: no need to wait
                return
            self._ack = (conn, msg.request)  # `_publish` folds it into the sender's diff
            await self._apply(conn.seat, msg.action)
        except TableError as exc:
            self._ack = None
            conn.send(encode("refused", {"id": msg.request, **exc.to_json()}))
            return
        if self._ack is not None:  # the action changed nothing this socket sees: a bare ack
            self._ack = None
            conn.send(encode("ack", {"id": msg.request}))

    def _hold(self, conn: Connection, request: int, raw: object) -> None:
        """Keep a person's answer to a claim window until the fair pause ends (R6.9): applied now, a
        claim that nothing can outrank would close the window at once, and everyone would learn how
        early it closed that no other seat could have won on the tile. Only the answering seat sees
        its answer held (``answer`` in its state); the answer is acknowledged once it is applied and
        stored, when the pause ends, so a crash meanwhile loses nothing that was acknowledged.

        :raises TableError: for an action that is not one of the seat's options, or a second answer.
        """
        game = self.game
        assert game is not None and conn.seat is not None
        try:
            action = Action.from_json(raw)
        except RulesError as exc:
            raise TableError(exc.code, str(exc)) from None
        if conn.seat in self.held or action not in game.legal_actions(conn.seat):
            raise TableError("action/not_offered", "that is not one of your answers to this claim (or you answered)")
        self.held[conn.seat] = (action, conn, request)
        self._publish(only=conn.seat)

    def _drop_held(self) -> None:
        """Refuse every answer still held for the fair pause (R6.9): its window closed before it counted."""
        stale = TableError("window/stale", "the claim window closed before your answer counted").to_json()
        for _action, conn, request in self.held.values():
            conn.send(encode("refused", {"id": request, **stale}))
        self.held.clear()

    async def _apply(self, seat: int, action: object, auto: str | None = None, *, publish: bool = True) -> None:
        """Apply an action through the engine, record it, then tell everyone (unless not ``publish``:
        the caller then calls `_after_change` itself).

        :raises TableError: the engine's refusal, with its reason code; nothing changed.
        """
        game = self.game
        assert game is not None
        deal, dealer, wind = game.deal_number, game.deal.dealer, game.deal.round_wind.code
        try:
            if isinstance(action, str):
                events = game.apply(seat, action)
            elif isinstance(action, dict):
                events = game.apply(seat, action)
            else:
                raise TableError("action/malformed", 'an action is an object such as {"type": "discard", ...}')
        except RulesError as exc:
            raise TableError(exc.code, str(exc)) from None
        recorded = game.log[-1][1]
        try:
            await self._journal(
                self.journal.record(
                    Record(self.id, game.version, seat, recorded, events, self.clock.now(), auto, deal, dealer, wind)
                )
            )
        except TableError:
            # Durability first (lesson 11): an action that could not be stored did not happen.
            self.game = replay(game.rules, self.seed, game.log[:-1])
            raise
        # An answer that leaves its claim window open changes only the answering seat's view: who
        # answered what stays secret until the window closes (R12.2), and the window, its deadline and
        # everyone's options stay as they were. The other seats are left out of this publish; a seat
        # left out is never out of step, as its next diff is taken from what it was last sent.
        if publish:
            only = seat if all(event["type"] == "answer" for event in events) else None
            self._after_change(only)

    async def _chat(self, msg: Chat) -> None:
        conn = msg.conn
        try:
            if conn.seat is None:
                raise TableError("chat/spectator", "spectators can read the chat but not write in it")
            state = self.seats[conn.seat]
            if state is None or state.token_hash != conn.token:  # the seat was freed (and maybe retaken)
                raise TableError("seat/not_yours", "this socket no longer holds a seat at this table")
            text = clean_text(msg.text, "a chat message", CHAT_MAX)
            line: dict[str, object] = {"seat": conn.seat, "name": state.name, "text": text, "at": _ms(self.clock.now())}
            await self._journal(self.journal.chat(self.id, line))
        except TableError as exc:
            conn.send(encode("refused", {"id": msg.request, **exc.to_json()}))
            return
        self.chat.append(line)
        conn.send(encode("ack", {"id": msg.request}))
        self._publish()

    # ------------------------------------------------------------ the clock
    def _after_change(self, only: int | None = None) -> None:
        """Open a new decision window if the last action closed one; arm its timers; publish (to the
        connections of seat ``only`` if given, else to all).
        """
        game = self.game
        assert game is not None
        if self._new_decision(game):
            self._arm_deadline(game)
            for timer in self._bot_timers.values():
                timer.cancel()
            self._bot_timers.clear()
        if game.phase is GamePhase.OVER:
            if self.status != "over":
                self._over_at = self.clock.now()
            self.status = "over"
            self._cancel_all()
        else:
            self._schedule_bots()
        self._publish(only)

    def _new_decision(self, game: Game) -> bool:
        """Whether the last action opened a new decision; if so it gets a fresh token. Tokens are
        random, not counters: a count would tell every seat how many answered a claim window (R12.2).
        """
        marker = self._decision_marker(game)
        if marker is self._marker or (isinstance(marker, tuple) and marker == self._marker):
            return False
        self._drop_held()  # a window that closed: the answers held for it are moot
        window = self.window
        while window == self.window:
            window = secrets.randbelow(MAX_ID) + 1
        self._marker, self.window = marker, window
        return True

    @staticmethod
    def _decision_marker(game: Game) -> object:
        # A claim window stays the same decision while seats answer it (compared by identity);
        # every other action opens a new one.
        if game.phase is GamePhase.BETWEEN:
            return ("between", game.deal_number)
        if game.phase is GamePhase.OVER:
            return ("over",)
        if game.deal.window is not None:
            return game.deal.window
        return ("turn", game.version)

    def _arm_deadline(self, game: Game, extra: float = 0.0) -> None:
        self._cancel(self._deadline_timer)
        if self.paused_since is not None:  # nobody is here: no clock runs (`_deserted`)
            self.deadline, self._deadline_timer = None, None
            return
        timers = self.settings.timers
        if game.phase is GamePhase.OVER:
            seconds, kind = None, None
        elif game.phase is GamePhase.BETWEEN:
            seconds, kind = timers.ready, "ready"
        elif game.deal.window is not None:
            seconds, kind = timers.claim, "claim"
        else:
            seconds, kind = timers.turn, "turn"
        self.deadline_kind = kind
        if seconds is None:
            self.deadline, self._deadline_timer = None, None
            return
        self.deadline = self.clock.now() + seconds + extra
        window = self.window
        self._deadline_timer = self._post_at(self.deadline, Deadline(window))
        self._cancel(self._pause_timer)
        self._pause_timer = None
        if self._pausing(game):
            # R6.9: the pause lasts the same whoever holds what; with no person to wait for, as long
            # as a bot thinks. (Not lengthened after a restart: whoever may claim keeps the claim
            # time, which is; a seat with nothing but pass loses nothing by passing.)
            people = [s for s in game.to_act() if not self._robot(s)]
            wait = timers.pause if people else min(timers.pause, timers.bot_delay)
            self._pause_at = self.clock.now() + wait
            self._pause_timer = self._post_at(self._pause_at, PauseOver(window))

    @staticmethod
    def _pausing(game: Game) -> bool:
        """Whether a fair-pause claim window is open (R6.9)."""
        return game.rules.claim_pause and game.phase is GamePhase.DEAL and game.deal.window is not None

    def _bot_kind(self, seat: int) -> str:
        """How the journal marks a bot's action: a person's seat played by a bot is a stand-in's."""
        state = self.seats[seat]
        return STAND_IN if state is not None and not state.bot else "bot"

    def _robot(self, seat: int) -> bool:
        state = self.seats[seat]
        return state is None or state.robot

    async def _end_pause(self, window: int, attempt: int = 0) -> None:
        """The pause is over, or every person asked has answered: each bot answers now (so when a bot
        answers never depends on its tiles), and each seat with nothing but pass passes. A person who
        may claim keeps the rest of the claim time (R6.9).
        """
        game = self.game
        if game is None or window != self.window or self.status != "playing" or not self._pausing(game):
            return
        if self.paused_since is not None:
            return
        self._cancel(self._pause_timer)
        self._pause_timer = None
        claim = game.deal.window
        answered = False
        acks: list[tuple[Connection, int]] = []
        try:
            # First the answers people gave during the pause, as they came: the window may close on
            # one of them (then the rest are moot, as they would have been had they come later).
            for seat, (action, conn, request) in list(self.held.items()):
                if game.phase is not GamePhase.DEAL or game.deal.window is not claim:
                    break
                try:
                    await self._apply(seat, action.to_json(), publish=False)
                except TableError as exc:
                    if exc.reason == "server/storage":
                        self._pause_timer = self._retry(attempt, PauseOver(window, attempt + 1))
                        return
                    conn.send(encode("refused", {"id": request, **exc.to_json()}))
                else:
                    acks.append((conn, request))
                del self.held[seat]
                answered = True
                game = self.game
                assert game is not None
            self._drop_held()  # the window closed on an earlier answer before these counted
            for seat in list(game.to_act()):
                if game.phase is not GamePhase.DEAL or game.deal.window is not claim:
                    return  # the window closed
                legal = game.legal_actions(seat)
                if self._robot(seat):
                    action, auto = self._decide(game, seat), self._bot_kind(seat)
                elif all(a.type is ActionType.PASS for a in legal):
                    action, auto = legal[0], "timer"
                else:
                    continue
                # Published together below: one frame per seat whoever had answered before, so how
                # many frames a seat gets says nothing about who else was asked what.
                if not await self._stored(seat, action.to_json(), auto, publish=False):
                    self._pause_timer = self._retry(attempt, PauseOver(window, attempt + 1))
                    return
                answered = True
                game = self.game
                assert game is not None
        finally:
            if answered:
                self._after_change()
            for conn, request in acks:  # after the diff that shows each answer applied
                conn.send(encode("ack", {"id": request}))

    def _schedule_bots(self) -> None:
        game = self.game
        if game is None or self.status != "playing" or self._pausing(game) or self.paused_since is not None:
            return  # in a fair pause, bots answer when it ends (`_end_pause`); a paused table waits
        for seat in game.to_act():
            state = self.seats[seat]
            if state is None or not state.robot or seat in self._bot_timers:
                continue
            self._bot_timers[seat] = self._post_at(
                self.clock.now() + self.settings.timers.bot_delay, BotMove(self.window, seat)
            )

    async def _bot_move(self, window: int, seat: int, attempt: int = 0) -> None:
        game = self.game
        state = self.seats[seat]
        if window != self.window or game is None or state is None or not state.robot or self.status != "playing":
            return
        if self.paused_since is not None:
            return
        self._bot_timers.pop(seat, None)
        if seat not in game.to_act():
            return
        if not await self._stored(seat, self._decide(game, seat).to_json(), self._bot_kind(seat)):
            self._bot_timers[seat] = self._retry(attempt, BotMove(window, seat, attempt + 1))

    def _decide(self, game: Game, seat: int) -> Action:
        """A bot's move for ``seat``, decided from that seat's view alone (R12): the table's one policy
        if it was given one, else a bot of the seat's level (a stand-in plays at `DEFAULT_LEVEL`)."""
        if self.bot is not None:
            return self.bot(game, seat)
        state = self.seats[seat]
        level = (state.level if state is not None else None) or DEFAULT_LEVEL
        bot = self._bots.get((seat, level))
        if bot is None:  # its own randomness (an easy bot's slips), nothing to do with the wall's
            bot = self._bots[seat, level] = make_bot(level, secrets.randbits(32))
        action: Action = bot.decide(SeatView.of_live(game, seat))
        return action

    async def _stored(self, seat: int, action: object, auto: str, *, publish: bool = True) -> bool:
        """`_apply` a move the server makes for a seat; False if it could not be stored (so it did
        not happen), for the caller to try again (`_retry`) rather than drop it (lesson 17).
        """
        try:
            await self._apply(seat, action, auto, publish=publish)
        except TableError as exc:
            if exc.reason != "server/storage":
                raise
            return False
        return True

    def _retry(self, attempt: int, msg: Message) -> Timer:
        """Post ``msg`` again after the backoff of its ``attempt``."""
        return self._post_at(self.clock.now() + _backoff(attempt), msg)

    async def _deadline(self, window: int, attempt: int = 0) -> None:
        """Time is up: act for every seat that has not (R6.3: unanswered claims pass)."""
        game = self.game
        if self.paused_since is not None:
            return
        while game is not None and window == self.window and self.status == "playing" and game.to_act():
            seat = game.to_act()[0]
            action = _timeout_action(game, seat).to_json()
            if not await self._stored(seat, action, "timer"):
                self._deadline_timer = self._retry(attempt, Deadline(window, attempt + 1))
                return
            for conn in self.connections:  # the seat is told what was done for it, nobody else
                if conn.seat == seat:
                    conn.send(encode("timed_out", {"action": action}))
            game = self.game  # a refused write replays the game into a new object

    def _post_at(self, when: float, msg: Message) -> Timer:
        """Post ``msg`` to the inbox at ``when``."""
        return self.clock.call_at(when, lambda: self.post(msg))

    # ----------------------------------------------------------------- close
    def _cancel(self, timer: Timer | None) -> None:
        if timer is not None:
            timer.cancel()

    def _cancel_all(self) -> None:
        self._cancel(self._deadline_timer)
        self._cancel(self._pause_timer)
        self._cancel(self._presence_timer)
        self._deadline_timer = self._pause_timer = self._presence_timer = None
        for timers in (self._bot_timers, self._grace_timers):
            for timer in timers.values():
                timer.cancel()
            timers.clear()

    def _close(self, code: int) -> None:
        self._cancel_all()
        self.status = "closed"
        for conn in list(self.connections):
            conn.close(code, "the server is restarting" if code == 1012 else "the table has closed")
        self.connections.clear()
        while not self.inbox.empty():  # answer whoever is still waiting
            pending = self.inbox.get_nowait()
            self.inbox.task_done()
            reply = getattr(pending, "reply", None)
            if reply is not None and not reply.done():
                reply.set_exception(TableError("table/closed", "this table has closed", status=410))


def _timeout_action(game: Game, seat: int) -> Action:
    """What the server does for a seat whose time ran out: pass a claim, discard the drawn tile
    (or, after a claim, the last tile offered), get ready for the next deal.
    """
    actions = game.legal_actions(seat)
    types = {a.type: a for a in actions}
    for kind in (ActionType.PASS, ActionType.READY):
        if kind in types:
            return types[kind]
    discards = [a for a in actions if a.type is ActionType.DISCARD]
    drawn = game.deal.drawn
    for action in discards:
        if action.tile == drawn:
            return action
    return discards[-1]


_WRITES = (
    Join,
    Leave,
    AddBots,
    Remove,
    Start,
    Rematch,
    AdjournNow,
    PutAway,
    Act,
    Chat,
    Deadline,
    BotMove,
    PauseOver,
    Adjourn,
)


def _backoff(attempt: int) -> float:
    """Seconds before a move whose write failed is tried again: 0.5, 1, 2, 4, then every 5."""
    return min(RETRY_FIRST * 2.0**attempt, RETRY_MAX)


def _ms(seconds: float) -> int:
    return int(seconds * 1000)
