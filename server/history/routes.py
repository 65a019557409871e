"""History routes over the stored games: the JSON API behind the history pages, and the game log
download (docs/log-format.md). A running game's history is public information only.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
from datetime import UTC, datetime

from cachetools import LRUCache
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from server.history.logfile import GameLog, write_log
from server.history.queries import game_detail, list_games, player_record
from server.history.replay import STARTS_BYTES, HandNotFound, hand_steps, keep, store
from server.store.games import load_log
from server.store.journal import SqlJournal
from server.store.leaderboard import PERIODS, leaderboard, period_start
from server.store.models import GameRow

__all__ = ["ANSWERS_BYTES", "history_routes"]

# Hand replays' JSON answers kept per database (server process): 100–400 kB each face up, uncompressed.
ANSWERS_BYTES = 32 * 2**20


def _journal(request: Request) -> SqlJournal | None:
    journal = getattr(request.app.state, "store", None)
    return journal if isinstance(journal, SqlJournal) else None


def _refuse(reason: str, message: str, status: int) -> Response:
    return JSONResponse({"error": {"reason": reason, "message": message}}, status_code=status)


async def game_log(request: Request) -> Response:
    """A finished game's log as JSON Lines; a running game's is refused (it would reveal the hands)."""
    journal = _journal(request)
    if journal is None:
        return _refuse("history/no_database", "this server keeps no history (it runs without a database)", 404)
    game_id = request.path_params["game_id"]
    async with journal.sessions() as session:
        found = await load_log(session, game_id)
    if found is None:
        return _refuse("game/not_found", f"there is no game {game_id!r}", 404)
    log, status = found
    if status not in ("over", "stopped"):
        return _refuse("game/running", "a game's log is published when the game ends", 409)
    body = "\n".join(write_log(log)) + "\n"
    headers = {"Content-Disposition": f'attachment; filename="sparrow-{game_id}.jsonl"'}
    return Response(body, media_type="application/x-ndjson", headers=headers)


_NO_DB = ("history/no_database", "this server keeps no history (it runs without a database)", 404)


def _whole(text: str | None, default: int, low: int, high: int) -> int | None:
    if text is None:
        return default
    # ASCII digits only: str.isdigit also takes "²", which int() refuses; and int() refuses over 4,300 digits.
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        return None
    return int(text) if low <= int(text) <= high else None


async def api_games(request: Request) -> Response:
    """Games, newest first: ``?player=NAME&limit=50&offset=0``."""
    journal = _journal(request)
    if journal is None:
        return _refuse(*_NO_DB)
    limit = _whole(request.query_params.get("limit"), 50, 1, 200)
    offset = _whole(request.query_params.get("offset"), 0, 0, 10**9)
    if limit is None or offset is None:
        return _refuse("input/bad_query", "limit must be 1–200 and offset a whole number", 400)
    async with journal.sessions() as session:
        player = request.query_params.get("player")
        member = None if not player else person(request, player)
        return JSONResponse(await list_games(session, player=player, member=member, limit=limit, offset=offset))


async def api_game(request: Request) -> Response:
    """One game: players, ruleset and its differences from classical, one row per hand, score series."""
    journal = _journal(request)
    if journal is None:
        return _refuse(*_NO_DB)
    async with journal.sessions() as session:
        detail = await game_detail(session, request.path_params["game_id"])
    if detail is None:
        return _refuse("game/not_found", "there is no such game", 404)
    return JSONResponse(detail)


@dataclasses.dataclass
class Replays:
    """What hand replays left behind, kept per database (one per application): the JSON answers of
    hands that will not change, and the games as they stood at the start of hands (`hand_steps`)."""

    answers: LRUCache[tuple[str, str, int, int | None], bytes] = dataclasses.field(
        default_factory=lambda: store(ANSWERS_BYTES)
    )
    starts: LRUCache[tuple[str, int], bytes] = dataclasses.field(default_factory=lambda: store(STARTS_BYTES))


def _replays(request: Request) -> Replays:
    replays = getattr(request.app.state, "replays", None)
    if not isinstance(replays, Replays):
        replays = request.app.state.replays = Replays()
    return replays


async def api_hand(request: Request) -> Response:
    """Every step of one hand: face up (finished game), as ``?seat=N`` saw it, or public (running game).

    A hand that has ended, or any hand of a game that has ended (its log no longer grows), answers the
    same each time: its answer is kept, under the game's status (which decides what is shown) and the
    viewer it was rendered for. The seat asked for is part of the key only once the game has ended:
    while it runs every asker gets the public view. A running game's hand in progress is never kept.
    """
    journal = _journal(request)
    if journal is None:
        return _refuse(*_NO_DB)
    number = _whole(request.path_params["number"], 0, 1, 10_000)
    seat_text = request.query_params.get("seat")
    seat = None if seat_text in (None, "") else _whole(seat_text, 0, 0, 3)
    if number is None or (seat_text not in (None, "") and seat is None):
        return _refuse("input/bad_query", "hands are numbered from 1 and seats are 0–3", 400)
    game_id = request.path_params["game_id"]
    replays = _replays(request)
    async with journal.sessions() as session:
        game = await session.get(GameRow, game_id)
        if game is None:
            return _refuse("game/not_found", "there is no such game", 404)
        status = game.status
        reveal = status in ("over", "stopped")
        key = (game_id, status, number, seat if reveal else None)
        kept = replays.answers.get(key)
        if kept is not None:
            return Response(kept, media_type="application/json")
        found = await load_log(session, game_id)  # the same game row: its status as read above
    if found is None:
        return _refuse("game/not_found", "there is no such game", 404)
    log, _ = found
    render = functools.partial(_render, log, number - 1, seat, status, replays.starts)
    try:
        body, ended = await asyncio.get_running_loop().run_in_executor(_REPLAYER, render)
    except HandNotFound as exc:
        return _refuse("hand/not_found", str(exc), 404)
    if ended or reveal:
        keep(replays.answers, key, body)
    return Response(body, media_type="application/json")


# Replays run in one thread of their own, not on the event loop: a hand late in a long game takes tens
# of milliseconds to replay and render, which the live tables would otherwise wait out. One thread, so
# the hand starts kept (`Replays.starts`) are only ever touched by it.
_REPLAYER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="sparrow-replay")


def _render(
    log: GameLog, number: int, seat: int | None, status: str, starts: LRUCache[tuple[str, int], bytes]
) -> tuple[bytes, bool]:
    """Hand ``number`` (0-based) of ``log`` as the route answers it, in JSON, and whether it has ended.

    :raises HandNotFound: as `hand_steps`.
    """
    steps, ended = hand_steps(log, number, seat=seat, reveal=status in ("over", "stopped"), starts=starts)
    steps["running"] = status == "playing"
    steps["names"] = [s["name"] for s in log.seats]  # seats change only before the first deal
    return bytes(JSONResponse(steps).body), ended


async def api_leaderboard(request: Request) -> Response:
    """People ranked by what they won over games finished in a period: ``?period=week|month|year|all``."""
    journal = _journal(request)
    if journal is None:
        return _refuse(*_NO_DB)
    period = request.query_params.get("period", "all")
    if period not in PERIODS:
        return _refuse("input/bad_query", f"period is one of {', '.join(PERIODS)}", 400)
    since = period_start(period, datetime.now(UTC))
    async with journal.sessions() as session:
        board = await leaderboard(session, since=since)
    standings = [dataclasses.asdict(row) for row in board]
    return JSONResponse(
        {"period": period, "since": None if since is None else since.isoformat(), "standings": standings}
    )


async def api_player(request: Request) -> Response:
    """A player's record."""
    journal = _journal(request)
    if journal is None:
        return _refuse(*_NO_DB)
    async with journal.sessions() as session:
        name = request.path_params["name"]
        record = await player_record(session, name, person(request, name))
    if record is None:
        return _refuse("player/not_found", "nobody of that name has played here", 404)
    return JSONResponse(record)


def person(request: Request, name: str) -> int | None:
    """The member whose record ``/players/NAME`` shows: the member of that name, or the member an old
    name belongs to; None for a guest's name."""
    club = getattr(request.app.state, "club", None)
    return None if club is None else club.name_owner(name)


def history_routes() -> list[BaseRoute]:
    """The history routes, to add to the application's routes."""
    return [
        Route("/games/{game_id}/log.json", game_log, name="game_log"),
        Route("/api/games", api_games, name="api_games"),
        Route("/api/games/{game_id}", api_game, name="api_game"),
        Route("/api/games/{game_id}/hands/{number}", api_hand, name="api_hand"),
        Route("/api/players/{name:path}", api_player, name="api_player"),
        Route("/api/leaderboard", api_leaderboard, name="api_leaderboard"),
    ]
