"""`Gate`: the ASGI middleware that finds who is asking (a member's session cookie, a guest's link to
one table) and turns away whoever the club mode does not let in: a page sends them to the login
page (or, for a guest link that no longer admits them, says why), the JSON API answers 401 (or the
link's refusal), a socket is refused before it opens.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from sqlalchemy.exc import DBAPIError
from starlette.requests import HTTPConnection
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from server.club.club import Club
from server.club.links import ADMITTED_COOKIE
from server.club.passes import GuestAccess
from server.club.sessions import GUEST_COOKIE, SESSION_COOKIE
from server.outage import storage_down
from server.tables.errors import TableError

__all__ = ["Gate", "PUBLIC"]

# Paths anyone may open in every club mode: logging in, joining, the rule book, static files, health.
PUBLIC = re.compile(
    r"^/(static/.*|login|signup|welcome/[^/]+|rules|healthz|api/me|api/club/(login|welcome|signup|invitation/[^/]+))$"
)
_TABLE_PATH = re.compile(r"^/(?:t|api/tables)/([^/]+)(?:/[a-z]+)?$")


class Gate:
    """Sets ``scope["sparrow.member"]`` (a `Member` or None), ``scope["sparrow.session"]`` (its
    `Session`), ``scope["sparrow.guest"]`` (the table a guest link admits to, or None) and
    ``scope["sparrow.guest_access"]`` (that link's `GuestAccess`), and refuses what the club mode keeps out."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        club: Club = scope["app"].state.club
        connection = HTTPConnection(scope)
        address = connection.client.host if connection.client else "?"
        access: GuestAccess | TableError | None = None
        try:
            found = await club.session_of(connection.cookies.get(SESSION_COOKIE), address)
            member = None if found is None else found[0]
            if member is None and not scope["path"].startswith("/static/"):  # a guest link: "invite" mode only
                code = connection.query_params.get("guest") or connection.cookies.get(GUEST_COOKIE)
                access = await club.passes.guest_access(code, connection.cookies.get(ADMITTED_COOKIE))
        except (DBAPIError, OSError) as exc:  # the database cannot answer: 503, and the outage is logged once
            answer = storage_down(scope, exc)
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1013, "reason": "the server cannot reach its database"})
            else:
                await answer(scope, receive, send)
            return
        guest = access.table if isinstance(access, GuestAccess) else None
        scope["sparrow.member"] = member
        scope["sparrow.session"] = None if found is None else found[1]
        scope["sparrow.guest"] = guest
        scope["sparrow.guest_access"] = access if isinstance(access, GuestAccess) else None
        path = scope["path"]
        if club.mode == "open" or member is not None or PUBLIC.match(path) or _guest_may(path, guest):
            await self.app(scope, receive, send)
            return
        refused = access if isinstance(access, TableError) else None
        if scope["type"] == "websocket":
            reason = "log in first" if refused is None else refused.message[:120]
            await send({"type": "websocket.close", "code": 1008, "reason": reason})
            return
        response: Response
        if path.startswith("/api/"):
            error = {"reason": "auth/login_required", "message": "log in first: this club is for its members"}
            if refused is not None:
                error = refused.to_json()  # type: ignore[assignment]
            response = JSONResponse({"error": error}, status_code=401 if refused is None else refused.status)
        elif refused is not None:
            response = HTMLResponse(_REFUSED_PAGE.format(message=html.escape(refused.message)), refused.status)
        else:
            target = path + (f"?{scope['query_string'].decode('latin-1')}" if scope.get("query_string") else "")
            response = RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
        await response(scope, receive, send)


_REFUSED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Guest link</title><link rel="stylesheet" href="/static/css/sparrow.css"></head>
<body><main class="panel"><h1>This guest link does not let you in</h1><p>{message}.</p>
<p><a href="/login">Members log in here.</a></p></main></body></html>
"""


def _guest_may(path: str, table: str | None) -> bool:
    """A guest with a pass to ``table`` may open that table's page, its API, and the socket (which
    checks the table named in ``hello``)."""
    if table is None:
        return False
    if path == "/ws":
        return True
    match = _TABLE_PATH.match(path)
    return match is not None and match.group(1) == table
