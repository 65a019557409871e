"""`sparrow db backup` and `sparrow db restore`: a backup taken while a server plays is a database a
fresh server resumes the tables from, as they stood when it was taken; a restore waits for no server
to hold the database; PostgreSQL's own tools are named instead."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from livekit import TIMEOUT, LiveClient
from processkit import SPARROW, ServerProcess, free_port
from websockets.asyncio.client import connect

TIMERS = {"bot_delay": 0, "claim": 120, "turn": 600, "ready": None, "grace": 3600}


async def _sparrow(*args: str) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(subprocess.run, [*SPARROW, *args], capture_output=True, text=True, timeout=120)


async def _seat(server: ServerProcess, table: str, token: str) -> LiveClient:
    ws = await connect(f"ws://127.0.0.1:{server.port}/ws", proxy=None, open_timeout=TIMEOUT)
    client = LiveClient(ws)
    await client.hello(table, token)
    return client


def _my_turn(client: LiveClient) -> bool:
    turn = client.game["turn"]
    return client.deciding and turn is not None and turn["phase"] == "turn" and turn["seat"] == client.state["seat"]


async def _play(client: LiveClient, moves: int) -> None:
    """Make ``moves`` actions as they come to this seat (the bots answer at once), and any more it is
    asked for, until it is this seat's turn: then nothing moves until it acts."""
    made = 0
    while True:
        await client.wait_for(lambda: client.deciding, "a decision", timeout=30)
        if made >= moves and _my_turn(client):
            return
        window = client.state["clock"]["window"]
        answer = await client.act(client.legal[0])
        if answer["t"] == "refused" and answer["d"]["reason"] == "window/stale":
            # The decision closed before the action arrived (a bot's claim outranked it): the next one.
            await client.wait_for(lambda w=window: client.state["clock"]["window"] != w, "the next decision")
            continue
        assert answer["t"] == "ack", answer
        made += 1


@pytest.mark.asyncio
async def test_a_backup_taken_during_play_resumes_in_a_fresh_server(tmp_path: Path) -> None:
    (tmp_path / "live").mkdir()
    live = ServerProcess(f"sqlite:///{tmp_path / 'live' / 'club.db'}", free_port(), tmp_path / "live")
    fresh_db = tmp_path / "fresh" / "club.db"
    fresh = ServerProcess(f"sqlite:///{fresh_db}", free_port(), tmp_path, log="fresh.log")
    backup = tmp_path / "backup.db"
    clients: list[LiveClient] = []
    try:
        await live.start()
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{live.port}", trust_env=False, timeout=TIMEOUT
        ) as http:
            body: dict[str, Any] = {"player": "Ann", "timers": TIMERS, "overrides": {"claim_pause": False}}
            owner = (await http.post("/api/tables", json=body)).json()
            table, token = owner["table"], owner["token"]
            await http.post(f"/api/tables/{table}/bots", json={"token": token})
            assert (await http.post(f"/api/tables/{table}/start", json={"token": token})).status_code == 200
        clients.append(ann := await _seat(live, table, token))
        await _play(ann, 6)
        then = ann.state["game"]

        made = await _sparrow("db", "backup", str(backup), "--db", live.url)  # the server runs on
        assert made.returncode == 0 and f"to {backup}" in made.stdout, made.stderr
        await _play(ann, 1)  # the live table moves past the backup
        assert ann.state["game"] != then

        refused = await _sparrow("db", "restore", str(backup), "--db", live.url)
        assert refused.returncode == 2 and "another Sparrow server is using the database" in refused.stderr
        restored = await _sparrow("db", "restore", str(backup), "--db", fresh.url)
        assert restored.returncode == 0 and f"into {fresh_db}" in restored.stdout, restored.stderr

        await fresh.start()
        clients.append(again := await _seat(fresh, table, token))
        assert again.state["table"]["status"] == "playing"
        assert again.state["game"] == then  # the table as it stood when the backup was taken
        await _play(again, 1)  # and it plays on
    finally:
        for client in clients:
            await client.close()
        live.stop()
        fresh.stop()


def test_restore_refuses_a_file_that_is_not_a_sparrow_database(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    (tmp_path / "text.db").write_text("not a database")
    target = f"sqlite:///{tmp_path / 'club.db'}"
    for file, expected in ((other, "is not a Sparrow database"), (tmp_path / "text.db", "is not a SQLite database")):
        done = subprocess.run([*SPARROW, "db", "restore", str(file), "--db", target], capture_output=True, text=True)
        assert done.returncode == 2 and expected in done.stderr, done.stderr
    assert not (tmp_path / "club.db").exists() or (tmp_path / "club.db").stat().st_size == 0


def test_postgresql_is_pointed_to_pg_dump(tmp_path: Path) -> None:
    url = "postgresql://club:secret@db.example/sparrow"
    done = subprocess.run([*SPARROW, "db", "backup", "nightly.dump", "--db", url], capture_output=True, text=True)
    assert done.returncode == 2
    assert "pg_dump --format=custom --file=nightly.dump postgresql://club@db.example/sparrow" in done.stderr
    assert "secret" not in done.stderr
