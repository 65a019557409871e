"""The review routes (issue 35): one seat's decisions beside the strong bot's, over HTTP.

- ``GET /api/games/{id}/review?seat=N``: the seat's figures per hand and over the game (no decisions).
- ``GET /api/games/{id}/hands/{n}/review?seat=N``: the seat's decisions in hand ``n``, each with the
  bot's first candidates (and the one the seat chose) and their reasons, and the marks.
- ``GET /api/reviews/players/{name}``: a player's figures over their recent finished games (at most
  ``RECENT``), from those games' reviews of the player's seat, game by game and pooled.

A finished game is public: any seat may be reviewed, every hand. A game still being played is
reviewed only as far as the asker may see: the asker proves a seat with its seat token (the header
``X-Seat-Token``, as the table page keeps it), and gets that seat's finished hands only. A seat's own
decisions in a finished hand show nothing the seat did not see then, and the hand's end is public.

A review replays the game from its start in a thread of its own (about half a second of CPU for 16
hands: never on the event loop), and its answers are kept like hand replays' answers: a finished
game's for good, a running game's while its count of finished hands stays the same.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json

from cachetools import LRUCache
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from game.review import GameReview
from server.history.logfile import GameLog
from server.history.queries import finished_seats, player_record
from server.history.replay import keep, store
from server.history.review import default_seat, review_log
from server.history.routes import person
from server.store.games import load_log
from server.store.journal import SqlJournal
from server.store.models import GameRow, SeatRow
from server.tables.journal import hash_token

__all__ = ["RECENT", "REVIEWS_BYTES", "TOKEN_HEADER", "review_routes"]

# Review answers kept per database (server process): a hand's answer is 20–80 kB, a game's summary 5 kB.
REVIEWS_BYTES = 16 * 2**20
TOKEN_HEADER = "X-Seat-Token"
_OPTIONS = 5  # candidates sent per decision (and the one the seat chose, if it is not among them)
# A player's figures pool the reviews of their most recent finished games, at most this many: about half
# a second of CPU each the first time (in the review thread, one game after another), kept afterwards.
RECENT = 20

Key = tuple[str, str, int, int]  # game, status, seat, finished hands


def _journal(request: Request) -> SqlJournal | None:
    journal = getattr(request.app.state, "store", None)
    return journal if isinstance(journal, SqlJournal) else None


def _refuse(reason: str, message: str, status: int) -> Response:
    return JSONResponse({"error": {"reason": reason, "message": message}}, status_code=status)


def _kept(request: Request) -> LRUCache[tuple[Key, int | None], bytes]:
    kept = getattr(request.app.state, "reviews", None)
    if not isinstance(kept, LRUCache):
        kept = request.app.state.reviews = store(REVIEWS_BYTES)
    return kept


async def api_review(request: Request) -> Response:
    """The seat's figures per hand and over the game."""
    return await _answer(request, None)


async def api_hand_review(request: Request) -> Response:
    """The seat's decisions in one hand."""
    text = request.path_params["number"]
    if not (text.isascii() and text.isdigit() and len(text) < 6 and int(text) >= 1):
        return _refuse("input/bad_query", "hands are numbered from 1", 400)
    return await _answer(request, int(text) - 1)


async def _answer(request: Request, hand: int | None) -> Response:
    journal = _journal(request)
    if journal is None:
        return _refuse("history/no_database", "this server keeps no history (it runs without a database)", 404)
    seat_text = request.query_params.get("seat", "")
    if seat_text not in ("", "0", "1", "2", "3"):
        return _refuse("input/bad_query", "seats are 0–3", 400)
    asked = int(seat_text) if seat_text else None
    game_id = request.path_params["game_id"]
    token = request.headers.get(TOKEN_HEADER, "")
    async with journal.sessions() as session:
        game = await session.get(GameRow, game_id)
        if game is None:
            return _refuse("game/not_found", "there is no such game", 404)
        status, finished = game.status, game.hands
        running = status not in ("over", "stopped")
        own = None
        if token:
            rows = await session.scalars(select(SeatRow).where(SeatRow.game_id == game_id))
            digest = hash_token(token[:200])
            own = next((row.seat for row in rows if row.token_hash is not None and row.token_hash == digest), None)
        if running:
            if own is None:
                return _refuse(
                    "review/not_seated",
                    "while a game is played, only its players may review it, each their own seat",
                    403,
                )
            if asked not in (None, own):
                return _refuse(
                    "review/not_your_seat", "while a game is played, a player reviews only their own seat", 403
                )
        log: GameLog | None = None
        seat = asked if asked is not None else own
        if seat is None:
            found = await load_log(session, game_id)
            if found is None:
                return _refuse("game/not_found", "there is no such game", 404)
            log = found[0]
            seat = default_seat(log)
        if hand is not None and hand >= finished:
            return _refuse("hand/not_found", _finished(finished), 404)
        key: Key = (game_id, status, seat, finished)
        kept = _kept(request)
        body = kept.get((key, hand))
        if body is not None:
            return Response(body, media_type="application/json")
        if log is None:
            found = await load_log(session, game_id)
            if found is None:
                return _refuse("game/not_found", "there is no such game", 404)
            log = found[0]
    parts = await asyncio.get_running_loop().run_in_executor(_REVIEWER, _render, log, seat, running, finished)
    for part, value in parts.items():
        keep(kept, (key, part), value)
    body = parts.get(hand)
    if body is None:
        return _refuse("hand/not_found", _finished(finished), 404)
    return Response(body, media_type="application/json")


# Reviews run in one thread of their own, beside the hand replays' (a whole game's review takes about
# half a second of CPU, which neither the event loop nor a replay should wait out).
_REVIEWER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="sparrow-review")


def _render(log: GameLog, seat: int, running: bool, finished: int) -> dict[int | None, bytes]:
    """Every answer about ``seat``'s review of ``log``: the summary (under None) and each hand's (0-based).
    A running game's review holds its first ``finished`` hands only."""
    review = review_log(log, seat, finished_only=True)
    hands = review.hands[:finished] if running else review.hands
    names = [s["name"] for s in log.seats]
    bots = [bool(s.get("bot")) for s in log.seats]
    head = {"game": log.id, "seat": seat, "names": names, "bots": bots, "running": running}
    parts: dict[int | None, bytes] = {}
    for h in hands:
        parts[h.number] = _json({**head, **h.to_json(_OPTIONS)})
    summary = GameReview(seat, hands).to_json(decisions=False)
    parts[None] = _json({**head, **summary})
    return parts


def _finished(count: int) -> str:
    return f"this game has {count} finished hand{'' if count == 1 else 's'} to review"


def _json(doc: dict[str, object]) -> bytes:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()


async def api_player_review(request: Request) -> Response:
    """A player's figures beside the strong bot over their recent finished games: per game and pooled."""
    journal = _journal(request)
    if journal is None:
        return _refuse("history/no_database", "this server keeps no history (it runs without a database)", 404)
    name = request.path_params["name"]
    kept = _kept(request)
    async with journal.sessions() as session:
        recent = await finished_seats(session, name, person(request, name), RECENT)
        if not recent and not await player_record(session, name, person(request, name)):
            return _refuse("player/not_found", "nobody of that name has played here", 404)
        asked: list[tuple[GameRow, Key]] = []
        logs: dict[str, GameLog] = {}
        for row, seat in recent:
            key: Key = (row.id, row.status, seat, row.hands)
            asked.append((row, key))
            if kept.get((key, None)) is None:
                found = await load_log(session, row.id)
                if found is not None:
                    logs[row.id] = found[0]
    games: list[dict[str, object]] = []
    for row, key in asked:
        body = kept.get((key, None))
        if body is None:
            log = logs.get(key[0])
            if log is None:
                continue
            parts = await asyncio.get_running_loop().run_in_executor(_REVIEWER, _render, log, key[2], False, key[3])
            for part, value in parts.items():
                keep(kept, (key, part), value)
            body = parts[None]
        summary = json.loads(body)
        games.append(
            {"id": key[0], "seat": key[2], "created": None if row.created_at is None else row.created_at.isoformat()}
            | {k: summary[k] for k in ("decision_count", "agreed", "agreement", "discards", "deal_ins", "missed_wins")}
        )
    return JSONResponse({"name": name, "limit": RECENT, **_pooled(games), "games": games})


def _pooled(games: list[dict[str, object]]) -> dict[str, object]:
    """The figures over ``games`` (each a review summary's): decisions and agreement with strong, deal-ins
    per 100 discards, missed wins in all and per game."""

    def total(field: str) -> int:
        return sum(int(str(g[field])) for g in games)

    decisions, discards = total("decision_count"), total("discards")
    return {
        "game_count": len(games),
        "decision_count": decisions,
        "agreed": total("agreed"),
        "agreement": round(total("agreed") / decisions, 4) if decisions else None,
        "discards": discards,
        "deal_ins": total("deal_ins"),
        "deal_ins_per_100": round(100 * total("deal_ins") / discards, 1) if discards else None,
        "missed_wins": total("missed_wins"),
        "missed_wins_per_game": round(total("missed_wins") / len(games), 2) if games else None,
    }


def review_routes() -> list[BaseRoute]:
    """The review routes, to add to the application's routes."""
    return [
        Route("/api/reviews/players/{name:path}", api_player_review, name="api_player_review"),
        Route("/api/games/{game_id}/review", api_review, name="api_review"),
        Route("/api/games/{game_id}/hands/{number}/review", api_hand_review, name="api_hand_review"),
    ]
