"""The history pages: the games list (`/games`), a game (`/games/{id}`), a hand's replay
(`/games/{id}/hands/{n}`), a player (`/players/{name}`) and the leaderboard (`/leaderboard`, rendered
here from the same query as its JSON). Like the lobby and table pages they are
shells: each page's script (static/js/games.js, game.js, replay.js, player.js) fills it from the
history JSON API (`server.history.routes`). A page only checks that what it names exists, so that a
wrong link answers 404 at once, and passes the API's address to its script.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from server.history.queries import listed
from server.history.reviews import RECENT
from server.history.routes import person
from server.pages import page_renderer
from server.store.journal import SqlJournal
from server.store.leaderboard import PERIODS, leaderboard, period_start
from server.store.models import GameRow, SeatRow
from server.tables.settings import NAME_MAX

__all__ = ["history_pages"]

PAGE_SIZE = 20  # games per page of the games list


def _journal(request: Request) -> SqlJournal | None:
    journal = getattr(request.app.state, "store", None)
    return journal if isinstance(journal, SqlJournal) else None


def history_pages() -> list[BaseRoute]:
    """The history page routes, to add to the application's routes."""
    render = page_renderer()

    def missing(request: Request, title: str, message: str) -> Response:
        return render(request, "history/missing.html", {"title": title, "message": message}, status=404)

    def no_history(request: Request) -> Response:
        return missing(request, "No history here", "This server keeps no history: it runs without a database.")

    async def stored_game(request: Request) -> GameRow | Response:
        """The listed game the address names; else the page that says there is none (or no history)."""
        journal = _journal(request)
        if journal is None:
            return no_history(request)
        async with journal.sessions() as session:
            game: GameRow | None = await session.get(GameRow, request.path_params["game_id"])
        if game is None or not listed(game):
            return missing(request, "No such game", "There is no stored game at this address.")
        return game

    async def games_page(request: Request) -> Response:
        if _journal(request) is None:
            return no_history(request)
        player = request.query_params.get("player", "").strip()[:NAME_MAX]
        return render(request, "history/games.html", {"player": player, "page_size": PAGE_SIZE, "name_max": NAME_MAX})

    async def game_page(request: Request) -> Response:
        game = await stored_game(request)
        if isinstance(game, Response):
            return game
        return render(request, "history/game.html", {"game": game, "running": game.status == "playing"})

    async def hand_page(request: Request) -> Response:
        game = await stored_game(request)
        if isinstance(game, Response):
            return game
        running = game.status == "playing"
        last = game.hands + 1 if running else game.hands  # a running game's hand in progress has a replay too
        text = request.path_params["number"]
        number = int(text) if text.isascii() and text.isdigit() and len(text) < 6 else 0
        if not 1 <= number <= last:
            return missing(request, "No such hand", f"This game has hands 1 to {last}." if last else "No hand yet.")
        context = {
            "game": game,
            "number": number,
            "last": last,
            "running": running,
            "in_progress": running and number == last,
        }
        return render(request, "history/replay.html", context)

    async def player_page(request: Request) -> Response:
        journal = _journal(request)
        if journal is None:
            return no_history(request)
        name = request.path_params["name"]
        member = person(request, name)
        mine = SeatRow.member_id == member if member is not None else SeatRow.name == name
        async with journal.sessions() as session:
            sat = await session.scalar(select(SeatRow.game_id).where(mine, SeatRow.bot.is_(False)).limit(1))
        if sat is None:
            return missing(request, "No such player", "Nobody of that name has played here.")
        return render(request, "history/player.html", {"name": name, "recent": RECENT})

    async def leaderboard_page(request: Request) -> Response:
        journal = _journal(request)
        if journal is None:
            return no_history(request)
        period = request.query_params.get("period", "all")
        if period not in PERIODS:
            period = "all"
        async with journal.sessions() as session:
            board = await leaderboard(session, since=period_start(period, datetime.now(UTC)))
        context = {"board": board, "period": period, "periods": list(PERIODS)}
        return render(request, "history/leaderboard.html", context)

    return [
        Route("/leaderboard", leaderboard_page, methods=["GET"], name="leaderboard_page"),
        Route("/games", games_page, methods=["GET"], name="games_page"),
        Route("/games/{game_id}", game_page, methods=["GET"], name="game_page"),
        Route("/games/{game_id}/hands/{number}", hand_page, methods=["GET"], name="hand_page"),
        Route("/players/{name:path}", player_page, methods=["GET"], name="player_page"),
    ]
