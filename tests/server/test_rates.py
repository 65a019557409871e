"""Limits per visitor (docs/protocol.md, "Limits"): sockets across tables, handshakes, HTTP requests
(fewer for costly ones), a body that does not arrive, counted the same by every process sharing a
Redis. Rates are per hour here, so that no test depends on how fast it runs."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
import redis.asyncio
from clubkit import PASSWORD, become, browser, club_server, first_admin_code, login
from dbkit import BACKENDS, fresh_database
from livekit import TIMEOUT, LiveServer
from websockets.exceptions import InvalidStatus

from server.club.sessions import SESSION_COOKIE
from server.rates.counter import Rates, storage_for
from server.rates.policy import Limits

pytestmark = pytest.mark.asyncio

REDIS = "redis://127.0.0.1:6379/0"


def _from(address: str) -> dict[str, str]:
    """Headers of a request a trusted proxy (uvicorn trusts 127.0.0.1) forwarded for ``address``."""
    return {"x-forwarded-for": address}


async def _refused_socket(live: LiveServer, address: str = "127.0.0.1") -> InvalidStatus:
    with pytest.raises(InvalidStatus) as refused:
        await live.connect(additional_headers=_from(address))
    return refused.value


def _reason(refused: InvalidStatus) -> str:
    import json

    reason: str = json.loads(refused.response.body or b"{}")["error"]["reason"]
    return reason


async def test_a_visitor_has_at_most_so_many_live_sockets_across_every_table(caplog: pytest.LogCaptureFixture) -> None:
    async with LiveServer.running(limits=Limits(sockets=3)) as live:
        first = await live.create("Ann")
        second = await live.create("Bob")
        sockets = [
            await live.attach(first["table"], first["token"]),
            await live.attach(second["table"], second["token"]),
            await live.attach(second["table"], None),  # a spectator
        ]
        refused = await _refused_socket(live)
        assert refused.response.status_code == 429 and _reason(refused) == "rate/too_many_sockets"
        assert int(refused.response.headers["retry-after"]) > 0
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # a refusal is not the server's error
        await live.connect(additional_headers=_from("198.51.100.9"))  # another visitor is not counted with them

        await sockets[2].close()
        await sockets[2].closed()
        async with asyncio.timeout(TIMEOUT):
            while await live.app.state.rates.sockets("address:127.0.0.1") != 2:
                await asyncio.sleep(0.01)  # the server has seen the close
        await live.attach(first["table"], None)  # one closed: one may open (refused, this would raise)


async def test_an_address_opens_at_most_so_many_sockets_an_hour() -> None:
    async with LiveServer.running(limits=Limits(handshakes="4/hour")) as live:
        for _ in range(4):
            client = await live.connect()
            await client.close()
        refused = await _refused_socket(live)
        assert refused.response.status_code == 429 and _reason(refused) == "rate/too_many_handshakes"
        assert 3500 <= int(refused.response.headers["retry-after"]) <= 3600
        await live.connect(additional_headers=_from("198.51.100.9"))


async def test_a_visitor_makes_at_most_so_many_requests_and_fewer_costly_ones() -> None:
    limits = Limits(requests="8/hour", replays="2/hour", tables="1/hour")
    async with LiveServer.running(limits=limits) as live:
        http = live.http
        assert (await http.post("/api/tables", json={"name": "t", "player": "Ann"})).status_code == 200
        made = await http.post("/api/tables", json={"name": "t", "player": "Ann"})
        assert made.status_code == 429 and made.json()["error"]["reason"] == "rate/too_many_requests"
        assert (await http.get("/api/games/nothere/hands/1")).status_code == 404
        assert (await http.get("/games/nothere/hands/1")).status_code == 404
        replay = await http.get("/api/games/nothere/hands/2")
        assert replay.status_code == 429 and int(replay.headers["retry-after"]) > 0
        for _ in range(2):  # 5 requests so far, the refused ones among them; 8 an hour
            assert (await http.get("/api/tables")).status_code == 200
        assert (await http.get("/static/js/lobby.js")).status_code == 200  # static files are not counted
        assert (await http.get("/healthz")).status_code == 200
        assert (await http.get("/")).status_code == 200
        refused = await http.get("/api/tables")
        assert refused.status_code == 429 and refused.json()["error"]["reason"] == "rate/too_many_requests"
        assert 3500 <= int(refused.headers["retry-after"]) <= 3600
        page = await http.get("/")
        assert page.status_code == 429 and "retry-after" in page.headers
        assert (await http.get("/api/tables", headers=_from("198.51.100.9"))).status_code == 200


@pytest_asyncio.fixture
async def shared() -> AsyncIterator[str]:
    """A Redis key prefix of this test's own (removed afterwards)."""
    prefix = f"sparrow:test:{secrets.token_hex(4)}:"
    client = redis.asyncio.Redis.from_url(REDIS)
    try:
        await client.ping()
    except OSError:
        pytest.skip("no Redis at 127.0.0.1:6379")
    yield prefix
    keys = [key async for key in client.scan_iter(f"{prefix}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


async def test_two_processes_sharing_redis_count_each_visitor_together(shared: str) -> None:
    limits = Limits(requests="5/hour", sockets=2)

    def rates() -> Rates:
        return Rates(limits, storage_for(REDIS, shared))

    async with LiveServer.running(rates=rates()) as one, LiveServer.running(rates=rates()) as two:
        for live in (one, two, one, two):
            assert (await live.http.get("/api/tables")).status_code == 200
        assert (await one.http.get("/api/tables")).status_code == 200
        assert (await two.http.get("/api/tables")).status_code == 429  # the sixth, whichever process is asked
        await one.connect()
        await two.connect()
        refused = await _refused_socket(one)
        assert refused.response.status_code == 429 and _reason(refused) == "rate/too_many_sockets"


async def test_a_body_that_does_not_arrive_is_answered_408_and_its_connection_closed() -> None:
    async with LiveServer.running(limits=Limits(body_timeout=0.2)) as live:

        async def stall() -> bytes:
            reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
            head = (
                "POST /api/tables/abc/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Content-Length: 100000000\r\n\r\n"
            )
            writer.write(head.encode())
            try:
                return await reader.read()  # until the server closes the connection
            finally:
                writer.close()

        async with asyncio.timeout(30):  # (a bound for a failing test: the deadline is 0.2 s)
            answers = await asyncio.gather(*(stall() for _ in range(500)))
        assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in answers)
        assert b'"reason":"input/too_slow"' in answers[0]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_wrong_sign_up_codes_and_wrong_old_passwords_are_limited(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    limits = Limits(signups="3/hour", passwords="2/hour")
    async with (
        fresh_database(backend, tmp_path) as url,
        club_server(url, limits=limits) as live,
        browser(live) as admin,
        browser(live) as stranger,
    ):
        await become(admin, first_admin_code(capsys.readouterr().out), "Boss")
        assert (await admin.post("/api/club/signup-code", json={"code": "the club's code"})).status_code == 200

        stranger.headers.update(_from("203.0.113.5"))
        for guess in ("guess one", "guess two", "guess three"):
            wrong = await stranger.post("/api/club/signup", json={"code": guess, "name": "Eve", "password": PASSWORD})
            assert wrong.status_code == 403 and wrong.json()["error"]["reason"] == "club/bad_code"
        right = {"code": "the club's code", "name": "Eve", "password": PASSWORD}
        refused = await stranger.post("/api/club/signup", json=right)  # even the right code, for now
        assert refused.status_code == 429 and refused.json()["error"]["reason"] == "rate/too_many_attempts"
        assert 3500 <= int(refused.headers["retry-after"]) <= 3600
        elsewhere = await stranger.post("/api/club/signup", json=right, headers=_from("198.51.100.2"))
        assert elsewhere.status_code == 200  # other addresses are not counted with that one

        for _ in range(2):
            wrong = await admin.post("/api/club/password", json={"old": "not it", "new": "a new password"})
            assert wrong.status_code == 403 and wrong.json()["error"]["reason"] == "auth/bad_login"
        refused = await admin.post("/api/club/password", json={"old": PASSWORD, "new": "a new password"})
        assert refused.status_code == 429 and refused.json()["error"]["reason"] == "rate/too_many_attempts"
        assert int(refused.headers["retry-after"]) > 0
        assert (await login(admin, "Boss")).status_code == 200  # the password did not change


async def test_a_member_is_counted_as_themselves_from_every_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    async with club_server(url, limits=Limits(sockets=2)) as live, browser(live) as ann:
        await become(ann, first_admin_code(capsys.readouterr().out))
        cookie = {"Cookie": f"{SESSION_COOKIE}={ann.cookies[SESSION_COOKIE]}", "Origin": str(ann.base_url).rstrip("/")}
        for address in ("203.0.113.1", "203.0.113.2"):
            await live.connect(additional_headers={**cookie, **_from(address)})
        with pytest.raises(InvalidStatus) as refused:
            await live.connect(additional_headers={**cookie, **_from("203.0.113.3")})
        assert refused.value.response.status_code == 429 and _reason(refused.value) == "rate/too_many_sockets"


async def test_limits_are_set_by_name_and_a_limit_that_is_not_one_stops_the_server_before_it_starts(
    tmp_path: Path,
) -> None:
    limits = Limits().with_flags(["sockets=40", "requests=1200/minute", "replays=none", "body-timeout=2.5"])
    assert (limits.sockets, limits.requests, limits.item("replays"), limits.body_timeout) == (
        40,
        "1200/minute",
        None,
        2.5,
    )
    for flag, says in (
        ("socket=4", "say NAME=VALUE, with NAME one of sockets, handshakes"),
        ("requests=often", "requests='often' is not a rate such as 60/minute"),
        ("sockets=0", "sockets=0 must be a whole number from 1 to 100000"),
        ("body-timeout=none", "'none' is not a number"),
    ):
        command = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", "memory", "--limit", flag]
        done = await asyncio.to_thread(
            subprocess.run,
            command,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "SPARROW_DATA": str(tmp_path)},
        )
        assert done.returncode == 2 and says in done.stderr, done.stderr


async def test_sockets_the_club_refuses_count_against_the_handshakes_of_their_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    async with club_server(url, limits=Limits(handshakes="3/hour")) as live:  # members only: visitors are refused
        for _ in range(3):
            refused = await _refused_socket(live)
            assert refused.response.status_code == 403
        refused = await _refused_socket(live)
        assert refused.response.status_code == 429 and _reason(refused) == "rate/too_many_handshakes"


async def test_an_admin_changes_limits_which_hold_after_a_restart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    async with club_server(url, limits=Limits(sockets=5)) as live, browser(live) as admin:
        await become(admin, first_admin_code(capsys.readouterr().out), "Boss")
        state = (await admin.get("/api/club/admin")).json()
        assert state["limits"]["sockets"] == state["limits_started"]["sockets"] == 5
        for bad in ({"sockets": "many"}, {"nonsense": 1}, {"requests": "often"}, {"sockets": True}, ["sockets"]):
            refused = await admin.post("/api/club/limits", json={"limits": bad})
            assert refused.status_code == 400 and refused.json()["error"]["reason"] == "club/bad_limit", bad
        changed = await admin.post("/api/club/limits", json={"limits": {"requests": "4/hour", "replays": None}})
        assert changed.status_code == 200
        assert changed.json()["limits"] | {} == {**state["limits"], "requests": "4/hour", "replays": "none"}
        audit = (await admin.get("/api/club/admin")).json()["audit"]  # a new rate counts afresh: 1 of 4
        assert audit[0]["action"] == "changed limits" and audit[0]["target"] == "requests=4/hour, replays=none"
        for _ in range(3):
            assert (await admin.get("/api/tables")).status_code == 200
        refused = await admin.get("/api/tables")
        assert refused.status_code == 429 and refused.json()["error"]["reason"] == "rate/too_many_requests"

    async with club_server(url, limits=Limits(sockets=5)) as live:  # the server again: the admin's limits hold
        assert live.app.state.rates.limits.requests == "4/hour" and live.app.state.rates.limits.sockets == 5
