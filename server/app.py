"""The Starlette application: routes, the lobby's life span, and the JSON lobby API.

The HTTP API (documented in docs/protocol.md) creates tables, seats people and bots, and starts
games; play itself runs over the `/ws` socket.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute

from server.history.pages import history_pages
from server.history.routes import history_routes
from server.lobby import Lobby
from server.pages import page_routes
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import database_url, make_engine
from server.tables.actor import TableActor
from server.tables.errors import TableError
from server.tables.messages import AddBots, Join, Leave, Remove, Start
from server.ws import SocketConfig, table_socket

__all__ = ["create_app"]

MAX_BODY = 16 * 1024
log = logging.getLogger("sparrow.app")

Handler = Callable[[Request], Awaitable[Response]]


def _api(handler: Callable[[Request], Awaitable[object]]) -> Handler:
    """Turn a handler's result into JSON and a `TableError` into a JSON refusal with its status."""

    async def endpoint(request: Request) -> Response:
        config: SocketConfig = request.app.state.socket_config
        if request.method == "POST" and not config.origin_allowed(request):
            # Another site's page may post to us too (a text/plain "simple" request needs no preflight).
            error = TableError("auth/bad_origin", "requests from another site's pages are not accepted", status=403)
            return JSONResponse({"error": error.to_json()}, status_code=error.status)
        try:
            result = await handler(request)
        except TableError as exc:
            return JSONResponse({"error": exc.to_json()}, status_code=exc.status)
        return JSONResponse(result)

    endpoint.__name__ = handler.__name__
    return endpoint


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object body.

    :raises TableError: (400/413) when it is too big, not JSON, or not an object.
    """
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise TableError("input/too_large", f"a request body may be at most {MAX_BODY} bytes", status=413)
    try:
        data = json.loads(raw or b"{}")
    except ValueError:
        raise TableError("input/malformed", "the request body must be a JSON object") from None
    if not isinstance(data, dict):
        raise TableError("input/malformed", "the request body must be a JSON object")
    return data


def _lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def _table(request: Request) -> TableActor:
    return _lobby(request).get(request.path_params["table_id"])


def _token(data: dict[str, Any]) -> str:
    token = data.get("token")
    if not isinstance(token, str):
        raise TableError("auth/missing_token", 'this needs your seat token: {"token": …}', status=401)
    return token


async def healthz(request: Request) -> Response:
    """200 while the server can serve and store; 503, with the reason, while its writes fail."""
    lobby = _lobby(request)
    trouble = lobby.journal.trouble
    body: dict[str, object] = {"ok": trouble is None, "tables": len(lobby.tables), "accepting": lobby.accepting}
    if trouble is not None:
        body["storage"] = trouble
    return JSONResponse(body, status_code=200 if trouble is None else 503)


async def list_tables(request: Request) -> object:
    return {"tables": _lobby(request).public_tables()}


async def create_table(request: Request) -> object:
    return await _lobby(request).create(await _body(request))


async def show_table(request: Request) -> object:
    return _table(request).state.public()


async def join_table(request: Request) -> object:
    data = await _body(request)
    return await _table(request).ask(Join(data.get("name", ""), data.get("seat")))


async def leave_table(request: Request) -> object:
    return await _table(request).ask(Leave(_token(await _body(request))))


async def add_bots(request: Request) -> object:
    return await _table(request).ask(AddBots(_token(await _body(request))))


async def remove_seat(request: Request) -> object:
    data = await _body(request)
    return await _table(request).ask(Remove(_token(data), data.get("seat")))


async def start_table(request: Request) -> object:
    return await _table(request).ask(Start(_token(await _body(request))))


def create_app(
    lobby: Lobby | None = None, socket_config: SocketConfig | None = None, *, db: str | None = None
) -> Starlette:
    """The Sparrow application. Tests may pass their own lobby (with a fake clock). Otherwise the
    lobby journals to the database ``db`` (see `server.store.session.database_url`; ``"memory"``
    keeps nothing), which is upgraded to the current schema, and unfinished tables are restored.
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.socket_config = socket_config or SocketConfig()
        engine = None
        app.state.store = None
        if lobby is not None:
            app.state.lobby = lobby
        elif db == "memory":
            app.state.lobby = Lobby()
        else:
            engine = make_engine(database_url(db))
            await upgrade(engine)
            app.state.store = SqlJournal(engine)
            app.state.lobby = Lobby(journal=app.state.store)
            restored = await app.state.lobby.restore()
            log.info("restored %d unfinished table(s) from %s", restored, engine.url.render_as_string())
        try:
            yield
        finally:
            await app.state.lobby.close(1012)  # clients reconnect when the server is back (lesson 12)
            if engine is not None:
                await app.state.store.close()  # the journal's last writes are committed before the engine goes
                await engine.dispose()

    routes = [
        Route("/healthz", healthz, name="healthz"),
        Route("/api/tables", _api(list_tables), methods=["GET"], name="list_tables"),
        Route("/api/tables", _api(create_table), methods=["POST"], name="create_table"),
        Route("/api/tables/{table_id}", _api(show_table), methods=["GET"], name="show_table"),
        Route("/api/tables/{table_id}/join", _api(join_table), methods=["POST"], name="join_table"),
        Route("/api/tables/{table_id}/leave", _api(leave_table), methods=["POST"], name="leave_table"),
        Route("/api/tables/{table_id}/bots", _api(add_bots), methods=["POST"], name="add_bots"),
        Route("/api/tables/{table_id}/remove", _api(remove_seat), methods=["POST"], name="remove_seat"),
        Route("/api/tables/{table_id}/start", _api(start_table), methods=["POST"], name="start_table"),
        WebSocketRoute("/ws", table_socket, name="ws"),
        *page_routes(),
        *history_routes(),
        *history_pages(),
    ]
    # A hand's replay is 120–190 kB of JSON; compressed it is a tenth of that (sockets compress their
    # own frames with permessage-deflate; this middleware leaves them alone).
    middleware = [Middleware(GZipMiddleware, minimum_size=1024)]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
