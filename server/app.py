"""The Starlette application: routes, the lobby's life span, and the JSON lobby API.

The HTTP API (documented in docs/protocol.md) creates tables, seats people and bots, and starts
games; play itself runs over the `/ws` socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, ProgrammingError
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute

from game.hand import prepare
from server.api import api, body, member
from server.club.club import Club, ClubConfig
from server.club.gate import Gate
from server.club.links import ADMITTED_COOKIE
from server.club.lockout import Lockout
from server.club.passes import GuestAccess
from server.club.routes import club_routes
from server.club.secret import load_secret
from server.club.sessions import GUEST_MAX_AGE, keep_cookie
from server.club.shared_ends import SharedEnds
from server.cluster.identity import cluster_prefix
from server.handshake import SocketKey
from server.history.pages import history_pages
from server.history.reviews import review_routes
from server.history.routes import history_routes
from server.https import Hsts
from server.lobby import Lobby
from server.lobby import Request as Request_
from server.outage import Outage
from server.outage import storage_down as outage_answer
from server.pages import page_routes
from server.rates.counter import Rates, storage_for
from server.rates.gate import RateGate
from server.rates.policy import Limits
from server.startup import StartFault, described
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import database_url, make_engine
from server.tables.errors import TableError
from server.tables.messages import AddBots, Join, Leave, Remove, Start
from server.ws import SocketConfig, table_socket

if TYPE_CHECKING:
    from server.cluster.node import Node

__all__ = ["create_app"]

log = logging.getLogger("sparrow.app")


def _lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


async def _ask(request: Request, msg: Request_) -> object:
    """Ask the table in the path ``msg``, wherever it runs."""
    return await _lobby(request).request(request.path_params["table_id"], msg)


class _Who(NamedTuple):
    token: str | None
    member: int | None


async def _who(request: Request) -> tuple[_Who, dict[str, Any]]:
    """Who is asking (their seat token, or the logged-in member), and the request's body."""
    data = await body(request)
    token = data.get("token")
    who = member(request)
    if not isinstance(token, str) and who is None:
        raise TableError("auth/missing_token", 'this needs your seat token: {"token": …}', status=401)
    return _Who(token if isinstance(token, str) else None, None if who is None else who.id), data


def _player_name(request: Request, given: object) -> object:
    """The name a person sits under: a member's own name; a guest's choice, unless it is a member's.

    :raises TableError: (409) when a guest asks for a name that belongs to a member.
    """
    who = member(request)
    if who is not None:
        return who.name
    club: Club = request.app.state.club
    if isinstance(given, str) and club.name_owner(" ".join(given.split())) is not None:
        shown = given.strip()
        said = f"{shown!r} is, or looks like, a member's name: log in to use it"
        raise TableError("seat/member_name", said, status=409)
    return given


def _person(request: Request) -> str:
    """Whom a new table counts against while it waits for players (`Lobby.max_waiting`): the
    logged-in member, else the address the request came from (behind a trusted proxy, the visitor's
    from X-Forwarded-For), counted as every per-address limit counts it (an IPv6 one by its /64)."""
    who = member(request)
    if who is not None:
        return f"member {who.id}"
    rates: Rates = request.app.state.rates
    return rates.address(request.client.host if request.client else None)


async def storage_down(request: Request, exc: Exception) -> Response:
    """A request that needed the database while it could not answer (down, locked, unreachable):
    503 with the project's refusal instead of a 500 and a traceback per request; the outage is logged
    when it starts and when it ends (`server.outage`). Errors that say the query was wrong go on to be
    a 500 (a bug)."""
    if request.scope["type"] != "http" or isinstance(exc, IntegrityError | ProgrammingError | DataError):
        raise exc
    return outage_answer(request.scope, exc)


async def healthz(request: Request) -> Response:
    """200 while the server can serve and store; 503, with the reason, while its writes fail or (one of
    several processes) while it is cut off from the others' bus."""
    lobby = _lobby(request)
    trouble = lobby.journal.trouble
    node = request.app.state.forwarding
    cut_off = None if node is None else node.bus.cut_off()
    ok = trouble is None and cut_off is None
    body: dict[str, object] = {"ok": ok, "tables": len(lobby.tables), "accepting": lobby.accepting}
    if node is not None:
        body["cluster"] = node.describe()
    if trouble is not None:
        body["storage"] = trouble
    if cut_off is not None:
        body["bus"] = cut_off
    return JSONResponse(body, status_code=200 if ok else 503)


LIST_LIMIT, LIST_MAX = 100, 500  # tables in one page of the lobby list: by default, at most


async def list_tables(request: Request) -> object:
    """A page of the public tables, newest first: ``limit`` of them, created before the cursor
    ``before``; ``next`` is the next page's cursor (null on the last)."""
    limit, before = _page(request)
    who = member(request)  # an adjourned table is listed to the members who sat at it, and to admins
    public = await _lobby(request).public_listed(None if who is None else who.id, admin=who is not None and who.admin)
    listed = sorted(
        ((created, str(t["id"]), t) for created, t in public),
        key=lambda entry: entry[:2],
        reverse=True,  # (the id orders tables made in the same instant)
    )
    page: list[tuple[float, str, dict[str, object]]] = []
    more = False
    for entry in listed:
        if before is not None and (entry[0], entry[1]) >= before:
            continue
        if len(page) == limit:
            more = True
            break
        page.append(entry)
    cursor = f"{page[-1][0]!r}~{page[-1][1]}" if more else None
    return {"tables": [t for _, _, t in page], "next": cursor}


def _page(request: Request) -> tuple[int, tuple[float, str] | None]:
    """The lobby list's ``limit`` and ``before`` (a cursor from ``next``: when and which table).

    :raises TableError: (400) for a limit or cursor that is not one.
    """
    query = request.query_params
    text = query.get("limit", str(LIST_LIMIT))
    if not (text.isascii() and text.isdigit() and 1 <= int(text[:4]) <= LIST_MAX and len(text) <= 4):
        raise TableError("input/bad_query", f"limit must be a whole number from 1 to {LIST_MAX}")
    before = query.get("before")
    if before is None:
        return int(text), None
    created, _, table = before.partition("~")
    try:
        when = float(created)
    except ValueError:
        when = math.nan
    if not math.isfinite(when) or not table or len(before) > 100:
        raise TableError("input/bad_query", "before must be a cursor from a page's next")
    return int(text), (when, table)


async def create_table(request: Request) -> object:
    data = await body(request)
    data["player"] = _player_name(request, data.get("player", ""))
    who = member(request)
    return await _lobby(request).create(data, member=None if who is None else who.id, person=_person(request))


async def show_table(request: Request) -> object:
    return await _lobby(request).show(request.path_params["table_id"])


async def join_table(request: Request) -> object:
    data = await body(request)
    who = member(request)
    name = _player_name(request, data.get("name", ""))
    join = Join(name, data.get("seat"), None if who is None else who.id)  # type: ignore[arg-type]
    access: GuestAccess | None = request.scope.get("sparrow.guest_access")
    if who is not None or access is None:
        return await _ask(request, join)
    club: Club = request.app.state.club
    # Every seat a guest takes uses one of the link's places, counted in the database (whatever
    # cookies the browser holds: the note it keeps lets it back in to watch, never to another seat) …
    await club.passes.take(access)
    try:
        seated = await _ask(request, join)
    except TableError:
        await club.passes.give_back(access)  # … which stays free when the seat is refused
        raise
    # This browser may come back by the link once its places are all taken.
    response = JSONResponse(seated)
    admitted = club.passes.admissions.note(request.cookies.get(ADMITTED_COOKIE), access.link.id)
    keep_cookie(response, request, ADMITTED_COOKIE, admitted, GUEST_MAX_AGE)
    return response


async def leave_table(request: Request) -> object:
    who, _ = await _who(request)
    return await _ask(request, Leave(*who))


async def add_bots(request: Request) -> object:
    who, data = await _who(request)
    return await _ask(request, AddBots(*who, data.get("level")))


async def remove_seat(request: Request) -> object:
    who, data = await _who(request)
    return await _ask(request, Remove(who.token, data.get("seat"), who.member))


async def start_table(request: Request) -> object:
    who, _ = await _who(request)
    return await _ask(request, Start(*who))


async def rematch(request: Request) -> object:
    who, data = await _who(request)
    keep_seats = data.get("keep_seats", False)
    if not isinstance(keep_seats, bool):
        raise TableError("table/bad_keep_seats", "keep_seats must be true or false")
    lobby = _lobby(request)
    return await lobby.rematch(request.path_params["table_id"], who.token, who.member, _person(request), keep_seats)


async def guest_link(request: Request) -> object:
    """A member's link for guests to this one table (club mode "invite"): ``{"guests": 1 to 3}``
    (default 1) of them may take a seat with it."""
    who = member(request)
    if who is None:
        raise TableError("auth/login_required", "only members may invite guests", status=401)
    data = await body(request)
    table_id = request.path_params["table_id"]
    await _lobby(request).show(table_id)  # 404 unless the table is live
    club: Club = request.app.state.club
    code, link = await club.passes.guest_link(who, table_id, data.get("guests", 1))
    path = str(request.url_for("table_page", table_id=table_id).path)
    return {"link": f"{path}?guest={code}", "id": link.id, "guests": link.uses_max, "expires": link.expires_at}


async def guest_links(request: Request) -> object:
    """The guest links the member made to this table that still admit someone (to revoke them)."""
    who = member(request)
    if who is None:
        raise TableError("auth/login_required", "only members make guest links", status=401)
    club: Club = request.app.state.club
    return {"links": await club.passes.guest_links(who, request.path_params["table_id"])}


def create_app(
    lobby: Lobby | None = None,
    socket_config: SocketConfig | None = None,
    *,
    db: str | AsyncEngine | None = None,
    club: ClubConfig | None = None,
    redis: str | None = None,
    limits: Limits | None = None,
    rates: Rates | None = None,
    started: Callable[[], None] | None = None,
) -> Starlette:
    """The Sparrow application. Tests may pass their own lobby (with a fake clock). Otherwise the
    lobby journals to the database ``db`` (see `server.store.session.database_url`; ``"memory"``
    keeps nothing; or an engine made already, which the app disposes of as it stops), which is
    upgraded to the current schema, and unfinished tables are restored.

    The club (accounts, club mode) lives in that database: with a lobby of its own or ``"memory"``
    there are no accounts and the server is open to anyone. ``club`` gives the secret key (default:
    `load_secret`), a club mode to set on start, and the address printed links start with.

    With ``redis`` (a Redis URL; ``db`` must then be PostgreSQL) this is one of several processes
    sharing the database (server/cluster): it runs the tables it holds a lease on, takes over those
    nobody holds, and gets every other request to the process running its table.

    Every visitor is held to ``limits`` (`server.rates`), counted in Redis when there is one (each
    process counts the same), else in this process; tests may pass their own ``rates``.

    ``started`` is called once everything is ready, before the first request is served and before the
    first-admin link is printed (`sparrow serve` says where it serves, and freezes the start-up heap
    then: server/collector.py). A start that fails on a fault of the disk or the database (not a bug)
    raises `StartFault`, its one line kept in ``app.state.start_fault`` too (`server.startup`).
    """

    async def begin(app: Starlette, engine: AsyncEngine | None) -> Node | None:
        """Everything up to serving, on the database behind ``engine`` (None: no database): the club,
        the tables; the node, when this is one of several processes."""
        app.state.socket_config = socket_config or SocketConfig()
        # The engine's lookup tables are built before any table runs here, beside the loop: built by a
        # table's first move instead, they held the loop most of a second (seconds on a busy machine),
        # long enough for a process that had just taken tables over to lose them again. Built while
        # the database is read (a second of CPU beside round trips that wait, from as far away as the
        # database is).
        preparing = asyncio.ensure_future(asyncio.to_thread(prepare))
        app.state.store = app.state.outage = None
        app.state.forwarding = node = None
        if lobby is not None:
            app.state.lobby = lobby
        elif engine is None:
            app.state.lobby = Lobby()
        else:
            await upgrade(engine)
            app.state.store = SqlJournal(engine)
            app.state.outage = Outage(engine)
            app.state.lobby = Lobby(journal=app.state.store)
        # Without a database there are no accounts, so nothing signed outlives the process.
        config = club or ClubConfig(load_secret() if engine is not None else secrets.token_urlsafe(32))
        app.state.club = Club(engine, config)
        # (The processes on one database share Redis keys named after it: server/cluster/identity.py.)
        clustered = redis is not None and engine is not None and engine.dialect.name == "postgresql"
        prefix = await cluster_prefix(engine) if clustered and engine is not None else None
        shared = storage_for(redis, prefix) if prefix is not None else None
        app.state.rates = rates or Rates(limits, shared)
        app.state.club.lockout = Lockout(app.state.rates)
        app.state.club.on_limits = app.state.rates.adjust
        await app.state.club.open()
        app.state.club.on_cut_off = app.state.lobby.cut_off
        await preparing
        if engine is not None and redis is not None:
            from server.cluster.node import Node

            if prefix is None:
                raise ValueError("several processes share a PostgreSQL database, not " + engine.dialect.name)
            node = Node(app.state.lobby, app.state.store, redis, app.state.socket_config, prefix=prefix)
            app.state.lobby.elsewhere = app.state.forwarding = node
            node.club = app.state.club
            app.state.club.passes.on_revoked = node.revoked_link
            bus = node.bus  # (sessions ended in any process are refused in all: server/club/shared_ends.py)
            app.state.club.shared = SharedEnds(bus.redis, prefix, bus.reached_for)
            await node.start()  # takes the unfinished tables nobody runs
            log.info("process %s runs %d table(s) of %s", node.id, len(app.state.lobby.tables), engine.url)
        elif engine is not None:
            restored = await app.state.lobby.restore()
            log.info("restored %d unfinished table(s) from %s", restored, engine.url.render_as_string())
        app.state.lobby.start()  # finished tables nobody is at leave memory after a while
        if started is not None:
            started()
        if engine is not None and app.state.club.config.announce:
            link = await app.state.club.first_admin_link()
            if link is not None:
                # The last thing `sparrow serve` prints, set apart, so that a newcomer finds it.
                print(
                    f"\n    This club has no admin yet. Open this link to set your password and become its admin"
                    f"\n    (it works once, for a day):\n\n    {link}\n",
                    flush=True,
                )
        return node

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.start_fault = None
        engine: AsyncEngine | None = None
        try:
            if lobby is None and db != "memory":
                engine = db if isinstance(db, AsyncEngine) else make_engine(database_url(db))
            node = await begin(app, engine)
        except Exception as exc:  # a fault of the disk or the database is said in one line; a bug is not
            file = engine.url.database if engine is not None and engine.dialect.name == "sqlite" else None
            if engine is not None:  # (the process ends: its connections are closed, not left to the collector)
                with contextlib.suppress(Exception):
                    await engine.dispose()
            said = described(exc, file)
            if said is None:
                raise
            app.state.start_fault = said  # (`sparrow serve` prints it, and exits with status 2)
            raise StartFault(said) from exc
        try:
            yield
        finally:
            await app.state.lobby.close(1012)  # clients reconnect when the server is back (lesson 12)
            await app.state.rates.close()
            if engine is not None:
                await app.state.outage.close()
                await app.state.store.close()  # the journal's last writes are committed before the engine goes
                if node is not None:
                    await node.close()  # the tables are let go now: another process takes them at once
                await engine.dispose()

    routes = [
        Route("/healthz", healthz, name="healthz"),
        Route("/api/tables", api(list_tables), methods=["GET"], name="list_tables"),
        Route("/api/tables", api(create_table), methods=["POST"], name="create_table"),
        Route("/api/tables/{table_id}", api(show_table), methods=["GET"], name="show_table"),
        Route("/api/tables/{table_id}/join", api(join_table), methods=["POST"], name="join_table"),
        Route("/api/tables/{table_id}/leave", api(leave_table), methods=["POST"], name="leave_table"),
        Route("/api/tables/{table_id}/bots", api(add_bots), methods=["POST"], name="add_bots"),
        Route("/api/tables/{table_id}/remove", api(remove_seat), methods=["POST"], name="remove_seat"),
        Route("/api/tables/{table_id}/start", api(start_table), methods=["POST"], name="start_table"),
        Route("/api/tables/{table_id}/guest", api(guest_link), methods=["POST"], name="guest_link"),
        Route("/api/tables/{table_id}/guest", api(guest_links), methods=["GET"], name="guest_links"),
        Route("/api/tables/{table_id}/rematch", api(rematch), methods=["POST"], name="rematch"),
        WebSocketRoute("/ws", table_socket, name="ws"),
        *page_routes(),
        *history_routes(),
        *review_routes(),
        *history_pages(),
        *club_routes(),
    ]
    # A hand's replay is 120–190 kB of JSON; compressed it is a tenth of that (sockets compress their
    # own frames with permessage-deflate; this middleware leaves them alone).
    middleware = [
        Middleware(Hsts),
        Middleware(GZipMiddleware, minimum_size=1024),
        Middleware(RateGate, handshakes=True),  # (a socket `Gate` refuses counts too)
        Middleware(SocketKey),  # (a handshake without a valid Sec-WebSocket-Key: 400)
        Middleware(Gate),
        Middleware(RateGate),
    ]
    # (OSError: a connection to the database that could not be made or was reset)
    handlers = {DBAPIError: storage_down, OSError: storage_down}
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan, exception_handlers=handlers)
