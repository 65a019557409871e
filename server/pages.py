"""The browser client's pages: the lobby (`/`), a table (`/t/{table_id}`, also the invite link) and the
static files (`/static`). The pages are shells; the scripts in static/js/ fill them from the lobby API
and the table's socket (docs/protocol.md). Templates only render the context prepared here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import jinja2
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from game.rulesets import RULESETS
from server.club.sessions import GUEST_COOKIE, GUEST_MAX_AGE, keep_cookie
from server.lobby import Lobby
from server.rulebook import rule_book
from server.store.journal import SqlJournal
from server.store.models import GameRow
from server.tables.errors import TableError
from server.tables.settings import NAME_MAX, TABLE_NAME_MAX, Timers

__all__ = ["TEMPLATES", "STATIC", "SECURITY_HEADERS", "Render", "templates_env", "page_renderer", "page_routes"]

_ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = _ROOT / "templates"
STATIC = _ROOT / "static"

# Pages load nothing but their own scripts, styles and fonts, and talk only to their own server; an
# injected `<img onerror=…>` could not run even if some text were ever rendered as HTML.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def templates_env(directory: Path = TEMPLATES) -> Jinja2Templates:
    """The page templates in ``directory``: autoescaped, strict about undefined names, with a
    ``url_for`` that gives paths."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory), autoescape=True, undefined=jinja2.StrictUndefined
    )

    @jinja2.pass_context
    def url_for(context: dict[str, Any], name: str, /, **path_params: Any) -> str:
        # A path, not an absolute URL: the pages stay right behind a proxy that terminates TLS.
        request: Request = context["request"]
        return request.url_for(name, **path_params).path

    env.globals["url_for"] = url_for
    return Jinja2Templates(env=env, context_processors=[_visitor])


def _visitor(request: Request) -> dict[str, Any]:
    """Who is looking (every page's header shows it): ``me``, the logged-in member or None, and
    ``accounts``, whether this server has accounts at all, and ``club_mode``."""
    club = getattr(request.app.state, "club", None)
    return {
        "me": request.scope.get("sparrow.member"),
        "accounts": bool(club and club.accounts),
        "club_mode": club.mode if club else "open",
    }


class Render(Protocol):
    """Renders page template ``name`` with ``context`` as a response with the security headers."""

    def __call__(self, request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response: ...


def page_renderer(directory: Path = TEMPLATES) -> Render:
    """A :class:`Render` for the templates in ``directory``: every page goes out with :data:`SECURITY_HEADERS`."""
    templates = templates_env(directory)

    def render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        return templates.TemplateResponse(request, name, context, status_code=status, headers=SECURITY_HEADERS)

    return render


async def _ended(request: Request, table_id: str) -> bool:
    """Whether ``table_id`` is a stored game that has ended (over, or closed by an admin once it had
    started: a table closed while it waited for players has no game to show)."""
    journal = getattr(request.app.state, "store", None)
    if not isinstance(journal, SqlJournal) or len(table_id) > 64:
        return False
    async with journal.sessions() as session:
        game = await session.get(GameRow, table_id)
    return game is not None and game.status in ("over", "stopped") and game.started_at is not None


def page_routes(templates_dir: Path = TEMPLATES, static_dir: Path = STATIC) -> list[BaseRoute]:
    """The page routes and the static mount, to add to the application's routes."""
    render = page_renderer(templates_dir)

    async def lobby_page(request: Request) -> Response:
        defaults = request.app.state.club.defaults  # the club's, as its admin set them
        return render(
            request,
            "lobby.html",
            {
                "rulesets": list(RULESETS),
                "default_ruleset": defaults["ruleset"],
                "timers": Timers.from_json(defaults["timers"]),
                "name_max": NAME_MAX,
                "table_name_max": TABLE_NAME_MAX,
            },
        )

    async def table_page(request: Request) -> Response:
        table_id = request.path_params["table_id"]
        lobby: Lobby = request.app.state.lobby
        try:
            table = await lobby.show(table_id)
        except TableError as exc:
            if exc.status == 404 and await _ended(request, table_id):  # its game is over: see it in the history
                return RedirectResponse(request.url_for("game_page", game_id=table_id), status_code=303)
            return render(request, "missing.html", {"table_id": table_id, "message": exc.message}, status=exc.status)
        access = request.scope.get("sparrow.guest_access")
        # A guest by link: how many it seats, and how many places are left.
        guest_link = access.to_json() if access is not None and access.table == table_id else None
        context = {"table_id": table_id, "table_name": table["name"], "name_max": NAME_MAX, "guest_link": guest_link}
        page = render(request, "table.html", context)
        guest = request.query_params.get("guest")
        if guest and request.scope.get("sparrow.guest") == table_id:
            # The page's script calls the API and opens the socket without the pass in their addresses:
            # the browser keeps it (`server.club.gate.Gate` reads it there) for as long as it is valid.
            keep_cookie(page, request, GUEST_COOKIE, guest, GUEST_MAX_AGE)
        return page

    async def rules_page(request: Request) -> Response:
        return render(request, "rules.html", {"book": Markup(rule_book().html)})

    return [
        Route("/", lobby_page, methods=["GET"], name="lobby_page"),
        Route("/rules", rules_page, methods=["GET"], name="rules_page"),
        Route("/t/{table_id}", table_page, methods=["GET"], name="table_page"),
        Mount("/static", StaticFiles(directory=static_dir), name="static"),
    ]
