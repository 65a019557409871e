"""The history API (issue 7): games list, one game's hands, step-by-step replays per viewer, a
player's record — and a running game's history reveals no concealed tiles.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import pytest_asyncio
from cachetools import LRUCache
from dbkit import PG_ADMIN, fresh_database
from sqlalchemy.engine import make_url
from tablekit import Kit

from server.app import create_app
from server.club.club import OPEN_CLUB
from server.history import routes
from server.history.logfile import GameLog, LoggedAction
from server.history.replay import STARTS_BYTES, HandNotFound, hand_steps, store
from server.rates.policy import Limits
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def club(tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, Any]]]:
    """A database with one finished East round and one game still running, served over HTTP."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    engine = make_engine(url)
    await upgrade(engine)
    journal = SqlJournal(engine)
    kit = Kit(journal)
    done = await kit.finished_game()
    running, clients = await kit.table(humans=2, seed=9, timers={"turn": 3})
    for _ in range(12):
        await kit.advance(running, 3)
    await journal.close()
    await engine.dispose()
    app = create_app(db=url, club=OPEN_CLUB)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sparrow") as http:
            yield http, {"done": done, "running": running}


async def test_games_list_shows_finished_and_running_games_and_filters_by_player(club: Any) -> None:
    http, games = club
    listed = (await http.get("/api/games")).json()
    assert listed["total"] == 2
    by_id = {g["id"]: g for g in listed["games"]}
    done = by_id[games["done"].id]
    assert done["status"] == "over" and done["hands"] == len(games["done"].game.results)
    assert [p["name"] for p in done["players"]] == ["Ann", "Bot 1", "Bot 2", "Bot 3"]
    assert done["scores"] == list(games["done"].game.scores)
    assert by_id[games["running"].id]["status"] == "playing"
    bob = (await http.get("/api/games", params={"player": "Bob"})).json()
    assert [g["id"] for g in bob["games"]] == [games["running"].id]
    assert (await http.get("/api/games", params={"limit": "0"})).status_code == 400


async def test_game_page_has_one_row_per_hand_a_score_series_and_the_ruleset_differences(club: Any) -> None:
    http, games = club
    game = games["done"].game
    detail = (await http.get(f"/api/games/{games['done'].id}")).json()
    assert len(detail["hand_rows"]) == len(game.results)
    assert [row["number"] for row in detail["hand_rows"]] == list(range(1, len(game.results) + 1))  # as URLs have them
    assert [len(s) for s in detail["series"]] == [len(game.results) + 1] * 4
    assert [s[-1] for s in detail["series"]] == list(game.scores)
    winners = [r.winner for r in game.results]
    assert [row["winner"] for row in detail["hand_rows"]] == winners
    assert all(row["value"] for row in detail["hand_rows"] if row["winner"] is not None)
    assert {"option": "game_length", "classical": "full", "here": "east"} in detail["ruleset"]["differences"]
    assert (await http.get("/api/games/nope")).status_code == 404


async def test_finished_hand_replays_face_up_with_shanten_and_waits_then_the_score(club: Any) -> None:
    http, games = club
    hand = (await http.get(f"/api/games/{games['done'].id}/hands/1")).json()
    steps = hand["steps"]
    assert hand["face_up"] and steps[0]["actor"] is None
    assert all(all("concealed" in s for s in step["view"]["seats"]) for step in steps)
    assert any("waits" in step.get("analysis", {}) for step in steps)
    assert all(step["analysis"]["seat"] == step["actor"] for step in steps if "analysis" in step)
    result = steps[-1]["view"]["result"]
    assert result["payments"] and result["scores"]
    assert steps[-1]["view"]["phase"] in ("between", "over")


async def test_a_hand_replay_is_sent_compressed_to_clients_that_accept_it(club: Any) -> None:
    http, games = club
    path = f"/api/games/{games['done'].id}/hands/1"
    plain = await http.get(path, headers={"Accept-Encoding": "identity"})
    packed = await http.get(path, headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.json() == plain.json()
    assert int(packed.headers["content-length"]) * 4 < len(plain.content)


async def test_one_seats_perspective_shows_only_its_own_tiles_until_the_end(club: Any) -> None:
    http, games = club
    steps = (await http.get(f"/api/games/{games['done'].id}/hands/1", params={"seat": 2})).json()["steps"]
    for step in steps[:-1]:
        assert [("concealed" in s) for s in step["view"]["seats"]] == [False, False, True, False]
        assert "analysis" not in step or step["analysis"]["seat"] == 2


async def test_a_running_games_history_reveals_no_concealed_tiles(club: Any) -> None:
    http, games = club
    for seat in ("", "0", "1"):
        hand = (await http.get(f"/api/games/{games['running'].id}/hands/1", params={"seat": seat})).json()
        assert hand["running"] and hand["seat"] is None
        for step in hand["steps"]:
            view = step["view"]
            if view["phase"] == "deal" and view["result"] is None:
                assert all("concealed" not in s for s in view["seats"])
                assert "drawn" not in (view["turn"] or {})
            assert "analysis" not in step
            # R12.2: nobody learns who passed a claim window, nor sees a step where nothing public changed
            assert (step["action"] or {}).get("type") != "pass"
        views = [json.dumps(step["view"], sort_keys=True) for step in hand["steps"]]
        assert all(a != b for a, b in zip(views, views[1:], strict=False))
    assert (await http.get(f"/games/{games['running'].id}/log.json")).status_code == 409
    assert (await http.get(f"/api/games/{games['running'].id}/hands/99")).status_code == 404


async def test_player_record_counts_wins_deal_ins_and_values(club: Any) -> None:
    http, games = club
    game = games["done"].game
    ann = (await http.get("/api/players/Ann")).json()
    won = [r for r in game.results if r.winner == 0]
    assert ann["games"] == 2 and ann["finished"] == 1
    assert ann["won"] >= len(won)  # the running game may add wins
    assert ann["self_drawn"] + ann["on_discard"] == ann["won"]
    assert ann["total"] == game.scores[0] - 2000
    assert len(ann["over_time"]) == 1
    assert (await http.get("/api/players/Nobody")).status_code == 404
    # A display name may hold a slash: its page is routed like any other (here: nobody of that name).
    slashed = await http.get("/api/players/Al%2FBo")
    assert slashed.status_code == 404 and slashed.json()["error"]["reason"] == "player/not_found"
    page = await http.get("/players/Al%2FBo")
    assert page.status_code == 404 and "Nobody of that name has played here" in page.text


async def test_the_leaderboard_ranks_people_over_a_chosen_period(club: Any) -> None:
    http, games = club
    game = games["done"].game
    board = (await http.get("/api/leaderboard")).json()
    assert board["period"] == "all" and board["since"] is None
    assert [row["name"] for row in board["standings"]] == ["Ann"]  # bots are not ranked; Bob's game runs on
    ann = board["standings"][0]
    assert (ann["games"], ann["total"]) == (1, game.scores[0] - 2000)
    week = (await http.get("/api/leaderboard", params={"period": "week"})).json()
    assert week["period"] == "week" and week["since"] is not None
    assert all(
        row in board["standings"] for row in week["standings"]
    )  # which games fall in it: tests/server/test_store.py
    assert (await http.get("/api/leaderboard", params={"period": "decade"})).status_code == 400
    page = await http.get("/leaderboard", params={"period": "month"})
    assert page.status_code == 200 and ">Ann</a>" in page.text and 'aria-current="page">30 days' in page.text
    assert f"{game.scores[0] - 2000:+d}" in page.text
    games_page = await http.get("/games")
    assert 'href="/leaderboard"' in games_page.text


async def test_a_finished_tables_address_leads_to_its_game_in_the_history(club: Any) -> None:
    http, games = club
    done = games["done"].id
    page = await http.get(f"/t/{done}")  # the server no longer runs it: it was over when it started
    assert page.status_code == 303 and page.headers["location"].endswith(f"/games/{done}")
    assert (await http.get(page.headers["location"])).status_code == 200
    assert (await http.get(f"/t/{games['running'].id}")).status_code == 200  # a running game is its table
    assert (await http.get("/t/nosuchtable0")).status_code == 404


async def test_numbers_in_the_address_that_are_not_plain_digits_are_refused(club: Any) -> None:
    """ "²" passes str.isdigit but not int(), nor do 5,000 digits: each was a 500 with a traceback."""
    http, games = club
    running, done = games["running"].id, games["done"].id
    for query in ({"limit": "²"}, {"offset": "²"}, {"offset": "1" * 5000}, {"limit": "٣"}):
        refused = await http.get("/api/games", params=query)
        assert refused.status_code == 400 and refused.json()["error"]["reason"] == "input/bad_query", query
    for path in (
        f"/api/games/{done}/hands/²",
        f"/api/games/{done}/hands/1?seat=²",
        f"/api/games/{running}/hands/1?seat=²",
    ):
        refused = await http.get(path)
        assert refused.status_code == 400 and refused.json()["error"]["reason"] == "input/bad_query", path
    assert (await http.get(f"/games/{done}/hands/²")).status_code == 404
    assert (await http.get(f"/api/games/{done}/hands/1?seat=0")).status_code == 200


async def test_a_private_tables_game_is_listed_only_once_it_has_ended(tmp_path: Path) -> None:
    # A private table is reached only through its link: a list naming its id while it is played would let
    # anyone watch it and read its chat.
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    engine = make_engine(url)
    await upgrade(engine)
    journal = SqlJournal(engine)
    kit = Kit(journal)
    running, _ = await kit.table(humans=2, seed=9, timers={"turn": 3}, public=False)
    done, _ = await kit.table(humans=2, seed=7, timers={"turn": 3}, public=False, overrides={"game_length": "east"})
    while done.status == "playing":
        await kit.advance(done, 3)
    await journal.close()
    await engine.dispose()
    app = create_app(db=url, club=OPEN_CLUB)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sparrow") as http:
            for query in ({}, {"player": "Bob"}):
                listed = (await http.get("/api/games", params=query)).json()
                assert [g["id"] for g in listed["games"]] == [done.id] and listed["total"] == 1
            record = (await http.get("/api/players/Bob")).json()
            assert [g["id"] for g in record["recent"]] == [done.id] and record["games"] == 2
            assert (await http.get(f"/api/games/{running.id}")).status_code == 200  # with the link, as before


async def test_a_hands_replay_answers_the_same_when_asked_again_without_replaying(
    club: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    http, games = club
    done = games["done"].id
    paths = [f"/api/games/{done}/hands/{n}{q}" for n in (1, 2) for q in ("", "?seat=0", "?seat=3")]
    cold = {path: (await http.get(path)).content for path in paths}
    assert len(set(cold.values())) == len(paths)  # each hand and view answers differently

    def replay(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a kept answer was replayed again")

    monkeypatch.setattr(routes, "hand_steps", replay)
    for path in reversed(paths):
        warm = await http.get(path)
        assert warm.status_code == 200 and warm.headers["content-type"] == "application/json"
        assert warm.content == cold[path], path


async def test_a_seats_view_is_never_answered_for_another_seat_or_the_table(club: Any) -> None:
    http, games = club
    path = f"/api/games/{games['done'].id}/hands/1"
    for seat in (2, 1, None, 2):
        hand = (await http.get(path, params={} if seat is None else {"seat": seat})).json()
        assert hand["seat"] == seat and hand["face_up"] is (seat is None)
        for step in hand["steps"][:-1]:  # the last step shows every hand (R12.3)
            shown = [("concealed" in s) for s in step["view"]["seats"]]
            assert shown == [seat is None or s == seat for s in range(4)], seat
            assert "analysis" not in step or seat is None or step["analysis"]["seat"] == seat


async def test_a_running_games_hand_in_progress_is_replayed_anew_and_its_hands_face_up_once_it_ends(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    engine = make_engine(url)
    await upgrade(engine)
    journal = SqlJournal(engine)
    kit = Kit(journal)  # plays on while the server answers (its own copy of the table waits a minute a turn)
    running, _ = await kit.table(humans=2, seed=9, timers={"turn": 60}, overrides={"game_length": "east"})
    app = create_app(db=url, club=OPEN_CLUB, limits=Limits(replays="100000/minute"))  # one replay a turn
    try:
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sparrow") as http:
                path = f"/api/games/{running.id}/hands/1"
                first = (await http.get(path)).json()
                assert first["running"] and first["steps"][-1]["view"]["phase"] == "deal"  # in progress
                while running.game is not None and running.game.deal_number == 0:
                    await kit.advance(running, 60)  # a person's turn timer discards for them; bots play
                    later = (await http.get(path, params={"seat": 0})).json()
                    assert len(later["steps"]) > len(first["steps"]), "a hand in progress was answered stale"
                    assert all("concealed" not in s for s in later["steps"][0]["view"]["seats"])
                    first = later
                assert first["steps"][-1]["view"]["phase"] != "deal"  # hand 1 has ended: kept from now on
                assert first["seat"] is None and not first["face_up"]
                while running.status == "playing":
                    await kit.advance(running, 60)
                for seat, shown in ((None, [True] * 4), (0, [True, False, False, False])):
                    over = (await http.get(path, params={} if seat is None else {"seat": seat})).json()
                    assert not over["running"] and over["seat"] == seat and over["face_up"] is (seat is None)
                    assert [("concealed" in s) for s in over["steps"][0]["view"]["seats"]] == shown
    finally:
        await journal.close()
        await engine.dispose()


async def test_replays_started_from_a_kept_hand_start_are_the_replays_from_the_first_deal() -> None:
    kit = Kit()
    logs = []
    for seed in (7, 8):
        actor = await kit.finished_game(seed=seed)
        assert actor.game is not None and len(actor.game.results) >= 3
        game = actor.game
        seats = [{"name": f"P{s}", "bot": s > 0} for s in range(4)]
        actions = [LoggedAction(seat, action) for seat, action in game.log]
        logs.append(GameLog("t", "classical", {}, game.rules, game.seed, seats, actions, id=actor.id))
    starts: LRUCache[tuple[str, int], bytes] = store(STARTS_BYTES)
    for log in logs:  # the two games share the store, as a server's games do
        hands = len(log.replay().results)
        for number in [1, hands - 1, 0, *range(hands)]:
            for seat, reveal in ((None, True), (2, True), (None, False)):
                kept = hand_steps(log, number, seat=seat, reveal=reveal, starts=starts)
                assert kept == hand_steps(log, number, seat=seat, reveal=reveal), (log.id, number, seat)
        with pytest.raises(HandNotFound):
            hand_steps(log, hands, seat=None, reveal=True, starts=starts)
    assert len(starts) >= 2 * 3


async def test_history_requests_while_the_database_refuses_connections_get_a_clear_503(tmp_path: Path) -> None:
    """PostgreSQL taking no connections (a restart, a maintenance): the history answers 503 with the
    project's refusal (no 500 with a traceback per request), and answers again once it is back."""
    async with fresh_database("postgresql", tmp_path) as url:
        name = make_url(url).database
        app = create_app(db=url, club=OPEN_CLUB)
        admin = await asyncpg.connect(PG_ADMIN)
        try:
            async with app.router.lifespan_context(app):
                async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sparrow") as http:
                    assert (await http.get("/api/games")).status_code == 200
                    await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
                    await admin.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name
                    )
                    for path in ("/api/games", "/api/games/nosuchgame", "/api/leaderboard"):
                        refused = await http.get(path)
                        assert refused.status_code == 503, path
                        assert refused.json()["error"]["reason"] == "server/storage"
                    page = await http.get("/games/nosuchgame")
                    assert page.status_code == 503 and "database" in page.text
                    await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
                    assert (await http.get("/api/games")).status_code == 200
        finally:
            await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            await admin.close()


async def test_the_server_answers_other_requests_while_a_hand_is_being_replayed(
    club: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay late in a long game takes tens of milliseconds: it runs beside the event loop, so the
    live tables and every other request go on meanwhile (here the replay waits until another request
    has been answered; on the event loop it would have held that request up)."""
    http, games = club
    started, answered = threading.Event(), threading.Event()
    replay = routes.hand_steps

    def slow(*args: Any, **kwargs: Any) -> Any:
        started.set()
        if not answered.wait(timeout=5):
            raise AssertionError("no other request was answered while the hand was replayed")
        return replay(*args, **kwargs)

    monkeypatch.setattr(routes, "hand_steps", slow)
    asked = asyncio.create_task(http.get(f"/api/games/{games['done'].id}/hands/2"))
    assert await asyncio.to_thread(started.wait, 5)  # the replay has begun
    assert (await http.get("/healthz")).status_code == 200
    answered.set()
    hand = await asked
    assert hand.status_code == 200 and hand.json()["hand"] == 1 and hand.json()["face_up"]
