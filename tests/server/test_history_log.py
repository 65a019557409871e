"""Game logs (issue 7, item 5; docs/log-format.md): export → import gives the same final scores and
digest; a log that breaks a rule is refused naming the line and the reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tablekit import Kit

from server.cli import main
from server.history.logfile import LogError, read_log, write_log
from server.store.games import load_log
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine, make_sessions


async def _finished_game(url: str) -> tuple[str, object]:
    engine = make_engine(url)
    await upgrade(engine)
    journal = SqlJournal(engine)
    actor = await Kit(journal).finished_game()
    await journal.close()
    await engine.dispose()
    return actor.id, actor.game


@pytest.mark.asyncio
async def test_export_then_import_gives_the_same_scores_and_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    game_id, original = await _finished_game(url)
    engine = make_engine(url)
    async with make_sessions(engine)() as session:
        found = await load_log(session, game_id)
    await engine.dispose()
    assert found is not None and found[1] == "over"
    lines = list(write_log(found[0]))
    kinds = {json.loads(line)["type"] for line in lines}
    assert {"game", "action", "deal_start", "draw", "discard", "deal_end", "game_end", "log_end"} <= kinds
    log, replayed = read_log(lines)
    assert replayed.digest() == original.digest()  # type: ignore[attr-defined]
    assert replayed.outcome == original.outcome  # type: ignore[attr-defined]
    # Through the command line, into a second database, and out again.
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n")
    other = f"sqlite+aiosqlite:///{tmp_path / 'other.db'}"
    assert await _run(["import", str(path), "--db", other]) == 0
    message = capsys.readouterr().out
    new_id = message.split(" as game ")[1].split(":")[0]
    assert "finished" in message and new_id != game_id
    assert await _run(["export", new_id, "--db", other, "-o", str(tmp_path / "again.jsonl")]) == 0
    again = (tmp_path / "again.jsonl").read_text().splitlines()
    _, twice = read_log(again)
    assert twice.digest() == original.digest() and twice.outcome == original.outcome  # type: ignore[attr-defined]
    assert [json.loads(x) for x in again[1:]] == [json.loads(x) for x in lines[1:]]  # only the id differs


async def _run(argv: list[str]) -> int:
    import asyncio

    return await asyncio.get_running_loop().run_in_executor(None, main, argv)


def _sample_lines() -> list[str]:
    from game.game import Game
    from game.policy import choose
    from game.rules import Rules
    from server.history.logfile import GameLog, LoggedAction

    game = Game(Rules(), 11)
    actions = []
    while game.version < 40:
        seat = game.to_act()[0]
        action = choose(game, seat).to_json()
        game.apply(seat, action)
        actions.append(LoggedAction(seat, action))
    seats = [{"name": n, "bot": False} for n in ("Ann", "Bob", "Cy", "Di")]
    return list(write_log(GameLog("Sample", "classical", {}, Rules(), 11, seats, actions)))


def test_a_log_with_an_illegal_action_is_refused_with_its_line_and_reason() -> None:
    lines = _sample_lines()
    number, line = next(
        (i, json.loads(x)) for i, x in enumerate(lines) if json.loads(x).get("action", {}).get("type") == "discard"
    )
    line["action"]["tile"] = next(t for t in ("1b", "2b", "3b", "E", "R", "9d") if t != line["action"]["tile"])
    lines[number] = json.dumps(line)
    with pytest.raises(LogError) as caught:
        read_log(lines)
    assert caught.value.line == number + 1
    assert caught.value.reason.startswith("action/") or caught.value.reason == "log/event_mismatch"
    assert f"line {number + 1}" in str(caught.value)


def test_a_log_whose_events_disagree_with_the_rules_is_refused() -> None:
    lines = _sample_lines()
    number = next(i for i, x in enumerate(lines) if json.loads(x)["type"] == "draw" and json.loads(x)["seq"] > 0)
    event = json.loads(lines[number])
    event["tile"] = "R" if event["tile"] != "R" else "G"
    lines[number] = json.dumps(event)
    with pytest.raises(LogError) as caught:
        read_log(lines)
    assert (caught.value.line, caught.value.reason) == (number + 1, "log/event_mismatch")


def test_a_log_out_of_turn_names_the_engines_reason() -> None:
    lines = _sample_lines()
    number = next(i for i, x in enumerate(lines) if json.loads(x)["type"] == "action")
    action = json.loads(lines[number])
    action["seat"] = (action["seat"] + 2) % 4
    lines[number] = json.dumps(action)
    with pytest.raises(LogError) as caught:
        read_log(lines)
    assert (caught.value.line, caught.value.reason) == (number + 1, "action/not_your_turn")


@pytest.mark.parametrize(
    ("first", "reason"),
    [
        ("not json", "log/not_json"),
        ('{"type": "game", "format": "mjai"}', "log/not_sparrow"),
        (
            '{"type": "game", "format": "sparrow-log", "format_version": 1, "ruleset": {"options": {"limit": -1}}}',
            "log/bad_ruleset",
        ),
    ],
)
def test_a_log_with_a_bad_first_line_is_refused(first: str, reason: str) -> None:
    with pytest.raises(LogError) as caught:
        read_log([first])
    assert (caught.value.line, caught.value.reason) == (1, reason)


@pytest.mark.asyncio
async def test_the_log_of_a_finished_game_downloads_and_a_running_ones_is_refused(tmp_path: Path) -> None:
    import httpx

    from server.app import create_app
    from server.club.club import OPEN_CLUB

    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    game_id, original = await _finished_game(url)
    app = create_app(db=url, club=OPEN_CLUB)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://sparrow") as client:
            response = await client.get(f"/games/{game_id}/log.json")
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("application/x-ndjson")
            _, replayed = read_log(response.text.splitlines())
            assert replayed.digest() == original.digest()  # type: ignore[attr-defined]
            table = (await client.post("/api/tables", json={"player": "Ann"})).json()["table"]
            running = await client.get(f"/games/{table}/log.json")
            assert running.status_code == 409 and running.json()["error"]["reason"] == "game/running"
            assert (await client.get("/games/nope/log.json")).status_code == 404
