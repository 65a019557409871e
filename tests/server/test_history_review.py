"""The review over HTTP (issue 35): a finished game's every seat and hand; a running game's only as far
as the asker may see: their own seat (proved by its seat token), finished hands only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession
from tablekit import Kit

from game.game import GamePhase
from server.app import create_app
from server.club.club import OPEN_CLUB
from server.history.reviews import TOKEN_HEADER
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.models import ActionRow
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def club(tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, Any]]]:
    """A database with one finished East round and a game still running after its first hand, served
    over HTTP; with the running game's seat tokens."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    engine = make_engine(url)
    await upgrade(engine)
    journal = SqlJournal(engine)
    kit = Kit(journal)
    done = await kit.finished_game()
    running, clients = await kit.table(humans=2, seed=9, timers={"turn": 3})
    for _ in range(600):
        if running.game.results and running.game.phase is GamePhase.DEAL:
            break
        await kit.advance(running, 3)
    assert running.status == "playing" and running.game.results
    for _ in range(6):  # into the next hand, so that one is in progress
        await kit.advance(running, 3)
    assert running.status == "playing" and running.game.phase is GamePhase.DEAL
    await journal.close()
    await engine.dispose()
    app = create_app(db=url, club=OPEN_CLUB)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sparrow") as http:
            yield http, {"done": done, "running": running, "tokens": [c.token for c in clients], "app": app}


async def test_a_finished_games_review_covers_every_hand_of_any_seat(club: Any) -> None:
    http, games = club
    done = games["done"]
    summary = (await http.get(f"/api/games/{done.id}/review", params={"seat": 1})).json()
    assert summary["seat"] == 1 and not summary["running"]
    assert len(summary["hands"]) == len(done.game.results)
    assert sum(h["decision_count"] for h in summary["hands"]) == summary["decision_count"] > 0
    assert all("decisions" not in h for h in summary["hands"])
    assert summary["deal_ins"] == sum(1 for r in done.game.results if r.winner is not None and r.discarder == 1)
    hand = (await http.get(f"/api/games/{done.id}/hands/1/review", params={"seat": 1})).json()
    assert hand["hand"] == 1 and hand["finished"] and hand["decisions"]  # numbered as its URL numbers it
    assert all(d["hand"] == 1 for d in hand["decisions"])
    for decision in hand["decisions"]:
        assert decision["options"][0]["action"] == decision["strong"]
        assert len(decision["options"]) <= 6 and decision["option_count"] >= len(decision["options"])
        assert any(o["action"] == decision["done"] for o in decision["options"]) or decision["done"]["type"] == "win"
    steps = (await http.get(f"/api/games/{done.id}/hands/1")).json()["steps"]
    for decision in hand["decisions"]:  # the step after the moment shown is the seat's action
        assert steps[decision["step"]]["actor"] == 1 and steps[decision["step"]]["action"] == decision["done"]
    again = await http.get(f"/api/games/{done.id}/hands/1/review", params={"seat": 1})
    assert again.json() == hand
    assert len(games["app"].state.reviews) == len(done.game.results) + 1  # every hand and the summary, kept


async def test_without_a_seat_the_first_persons_seat_is_reviewed(club: Any) -> None:
    http, games = club
    summary = (await http.get(f"/api/games/{games['done'].id}/review")).json()
    assert summary["seat"] == 0 and summary["bots"][0] is False
    # Ann never acted: her clock played every decision for her, reviewed but not counted as hers
    assert summary["made_for"] > 0 and summary["decision_count"] == 0 and summary["agreement"] is None
    hand = (await http.get(f"/api/games/{games['done'].id}/hands/1/review")).json()
    assert hand["decisions"] and all(d["made_by"] == "timer" for d in hand["decisions"])


async def test_a_running_game_is_reviewed_only_for_its_players_own_seat_and_finished_hands(club: Any) -> None:
    http, games = club
    running, tokens = games["running"], games["tokens"]
    finished = len(running.game.results)
    path = f"/api/games/{running.id}/review"
    nobody = await http.get(path, params={"seat": 0})
    assert nobody.status_code == 403 and nobody.json()["error"]["reason"] == "review/not_seated"
    stranger = await http.get(path, headers={TOKEN_HEADER: "not a token"})
    assert stranger.status_code == 403
    mine = await http.get(path, headers={TOKEN_HEADER: tokens[1]})
    assert mine.status_code == 200
    summary = mine.json()
    assert summary["seat"] == 1 and summary["running"]
    assert len(summary["hands"]) == finished and all(h["finished"] for h in summary["hands"])
    other = await http.get(path, params={"seat": 0}, headers={TOKEN_HEADER: tokens[1]})
    assert other.status_code == 403 and other.json()["error"]["reason"] == "review/not_your_seat"
    hand = await http.get(f"/api/games/{running.id}/hands/{finished}/review", headers={TOKEN_HEADER: tokens[0]})
    assert hand.status_code == 200 and hand.json()["seat"] == 0 and hand.json()["finished"]
    in_progress = await http.get(
        f"/api/games/{running.id}/hands/{finished + 1}/review", headers={TOKEN_HEADER: tokens[0]}
    )
    assert in_progress.status_code == 404


async def test_bad_questions_are_refused(club: Any) -> None:
    http, games = club
    done = games["done"].id
    assert (await http.get(f"/api/games/{done}/review", params={"seat": 7})).status_code == 400
    assert (await http.get(f"/api/games/{done}/hands/0/review")).status_code == 400
    assert (await http.get(f"/api/games/{done}/hands/x/review")).status_code == 400
    assert (await http.get(f"/api/games/{done}/hands/999/review")).status_code == 404
    assert (await http.get("/api/games/nope/review")).status_code == 404


@pytest_asyncio.fixture
async def ann(tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, list[str]]]:
    """Ann's two finished East rounds, where her every action counts as her own choice, and a game of
    hers still running, served over HTTP; the finished games' ids, newest first."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'ann.db'}"
    engine = make_engine(url)
    await upgrade(engine)
    journal = SqlJournal(engine)
    kit = Kit(journal)
    done = [(await kit.finished_game(seed=seed)).id for seed in (7, 11)]
    await kit.table(humans=1, seed=5)
    async with AsyncSession(engine) as session, session.begin():
        await session.execute(update(ActionRow).where(ActionRow.seat == 0).values(auto=None))  # as if she chose
    await journal.close()
    await engine.dispose()
    app = create_app(db=url, club=OPEN_CLUB)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sparrow") as http:
            yield http, done[::-1]


async def test_a_games_summary_opens_with_its_costliest_decisions_each_found_in_its_hand(ann: Any) -> None:
    http, games = ann
    summary = (await http.get(f"/api/games/{games[0]}/review", params={"seat": 0})).json()
    moments = summary["key_moments"]
    assert 0 < len(moments) <= 5 and summary["agreed"] < summary["decision_count"]
    costs = [m["cost"] for m in moments]
    assert costs == sorted(costs, reverse=True) and costs[-1] > 0
    for moment in moments:  # each is the seat's decision at that step of that hand, and a disagreement
        hand = (await http.get(f"/api/games/{games[0]}/hands/{moment['hand']}/review", params={"seat": 0})).json()
        (decision,) = [d for d in hand["decisions"] if d["step"] == moment["step"]]
        assert decision["seq"] == moment["seq"] and decision["done"] == moment["done"] and not decision["agreed"]
        assert decision["strong"] == moment["strong"]


async def test_a_players_recent_figures_pool_their_finished_games_reviews(ann: Any) -> None:
    http, games = ann
    answer = await http.get("/api/reviews/players/Ann")
    assert answer.status_code == 200
    figures = answer.json()
    assert [g["id"] for g in figures["games"]] == games  # finished games only, newest first
    reviews = [(await http.get(f"/api/games/{g}/review", params={"seat": 0})).json() for g in games]
    for row, review in zip(figures["games"], reviews, strict=True):
        for field in ("decision_count", "agreed", "agreement", "discards", "deal_ins", "missed_wins"):
            assert row[field] == review[field]
    decisions = sum(r["decision_count"] for r in reviews)
    discards = sum(r["discards"] for r in reviews)
    deal_ins = sum(r["deal_ins"] for r in reviews)
    assert decisions > 0 and discards > 0
    assert figures["game_count"] == 2 and figures["decision_count"] == decisions
    assert figures["agreement"] == round(sum(r["agreed"] for r in reviews) / decisions, 4)
    assert figures["deal_ins"] == deal_ins and figures["deal_ins_per_100"] == round(100 * deal_ins / discards, 1)
    assert figures["missed_wins"] == sum(r["missed_wins"] for r in reviews)
    assert (await http.get("/api/reviews/players/Ann")).json() == figures  # kept: the same answer again
    assert (await http.get("/api/players/Ann")).json()["name"] == "Ann"  # the record's route is still there
    assert (await http.get("/api/reviews/players/Nobody")).status_code == 404
