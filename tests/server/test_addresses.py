"""Per-address limits count a visitor's network, not each address they pick: an IPv6 address counts
as its /64 (`--limit ipv6-prefix=N` sets the bits), an IPv4 address as itself, and an IPv4 address
carried in IPv6 (::ffff:203.0.113.7) as that IPv4 address. Sign-up codes, logins, handshakes,
requests, sockets and tables of visitors not logged in all count so (docs/deploy.md, "Limits per
visitor"). Login finds a name as sign-up writes it, and a POST from another site's page is refused
before it spends anything of the visitor's limits."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from clubkit import PASSWORD, become, browser, club_server, first_admin_code, login
from livekit import TIMEOUT, LiveServer
from processkit import ServerProcess, free_port
from websockets.exceptions import InvalidStatus

from server.lobby import MAX_WAITING
from server.rates.addresses import address_key
from server.rates.policy import LimitError, Limits

pytestmark = pytest.mark.asyncio

CODE = "the club's sign-up code"


def _from(address: str) -> dict[str, str]:
    """Headers of a request that a trusted proxy (uvicorn trusts 127.0.0.1) forwarded for ``address``."""
    return {"x-forwarded-for": address}


def _reason(answer: httpx.Response) -> str:
    reason: str = answer.json()["error"]["reason"]
    return reason


async def test_an_ipv6_address_counts_as_its_network_and_an_ipv4_one_as_itself_however_it_is_written() -> None:
    home = {address_key(a) for a in ("2001:db8:1:2::1", "2001:DB8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2:0:0:0:9")}
    assert len(home) == 1
    assert address_key("2001:db8:1:3::1") not in home  # the next /64 is another home
    assert address_key("::ffff:203.0.113.7") == address_key("203.0.113.7") != address_key("203.0.113.8")
    assert address_key("fe80::1%eth0") == address_key("fe80::2")  # (a zone does not make another network)
    assert address_key(None) == address_key("") == "address:?"
    # A wider prefix takes a /56, as some providers give a home.
    assert (
        address_key("2001:db8:1:2::1", 56)
        == address_key("2001:db8:1:ff::1", 56)
        != address_key("2001:db8:1:100::1", 56)
    )
    assert address_key("2001:db8::1", 128) != address_key("2001:db8::2", 128)

    assert Limits().ipv6_prefix == 64
    assert Limits().with_flags(["ipv6-prefix=56"]).ipv6_prefix == 56
    assert Limits().with_values({"ipv6-prefix": 48}).to_json()["ipv6-prefix"] == 48
    for bad in ("ipv6-prefix=8", "ipv6-prefix=129", "ipv6-prefix=none", "ipv6-prefix=sixty"):
        with pytest.raises(LimitError):
            Limits().with_flags([bad])


@contextlib.asynccontextmanager
async def _real_club(tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """`sparrow serve` in a process of its own, members only: its first admin's browser, and a
    stranger's (both behind the trusted proxy: the server's machine)."""
    server = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", free_port(), tmp_path)
    try:
        await server.start("--club-mode", "members")
        origin = f"http://127.0.0.1:{server.port}"
        async with (
            httpx.AsyncClient(base_url=origin, headers={"origin": origin}, timeout=30, trust_env=False) as admin,
            httpx.AsyncClient(base_url=origin, headers={"origin": origin}, timeout=30, trust_env=False) as stranger,
        ):
            await become(admin, first_admin_code(server.log.read_text()), "Boss")
            yield admin, stranger
    finally:
        server.stop()


async def test_forty_wrong_sign_up_codes_from_one_home_network_are_throttled_and_then_even_the_right_one(
    tmp_path: Path,
) -> None:
    async with _real_club(tmp_path) as (admin, stranger):
        assert (await admin.post("/api/club/signup-code", json={"code": CODE})).status_code == 200
        answers = []
        for i in range(1, 41):  # each from another address of one home's /64
            guess = {"code": f"guess {i}", "name": "Eve", "password": PASSWORD}
            answers.append(await stranger.post("/api/club/signup", json=guess, headers=_from(f"2001:db8:1:2::{i:x}")))
        assert [a.status_code for a in answers] == [403] * 10 + [429] * 30  # `signups`: 10 an hour
        assert {_reason(a) for a in answers[10:]} == {"rate/too_many_attempts"}

        right = {"code": CODE, "name": "Eve", "password": PASSWORD}
        refused = await stranger.post("/api/club/signup", json=right, headers=_from("2001:db8:1:2:beef::1"))
        assert refused.status_code == 429 and _reason(refused) == "rate/too_many_attempts"
        assert 3500 <= int(refused.headers["retry-after"]) <= 3600  # until the hour's window passes
        members = (await admin.get("/api/club/admin")).json()["members"]
        assert [m["name"] for m in members] == ["Boss"]  # nobody joined

        for i in range(10):  # an IPv4 address written in IPv6 is that IPv4 address
            guess = {"code": f"guess {i}", "name": "Eve", "password": PASSWORD}
            assert (
                await stranger.post("/api/club/signup", json=guess, headers=_from("203.0.113.9"))
            ).status_code == 403
        mapped = await stranger.post("/api/club/signup", json=right, headers=_from("::ffff:203.0.113.9"))
        assert mapped.status_code == 429 and _reason(mapped) == "rate/too_many_attempts"

        joined = await stranger.post("/api/club/signup", json=right, headers=_from("2001:db8:1:3::1"))
        assert joined.status_code == 200, joined.text  # the next /64 is another visitor
        assert joined.json()["member"]["name"] == "Eve"


async def _login_from(http: httpx.AsyncClient, address: str, name: str, password: str = PASSWORD) -> httpx.Response:
    return await http.post("/api/club/login", json={"name": name, "password": password}, headers=_from(address))


async def test_failed_logins_from_one_home_network_lock_that_network_and_the_admin_sets_its_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}") as live, browser(live) as admin:
        await become(admin, first_admin_code(capsys.readouterr().out), "Ann")
        async with browser(live) as guesser:
            for i in range(1, 6):  # `login-failures`: 5 per name and address, here from 5 addresses of one /64
                assert (await _login_from(guesser, f"2001:db8:5:6::{i}", "Ann", "guess")).status_code == 401
            locked = await _login_from(guesser, "2001:db8:5:6:abcd::99", "Ann")  # even the right password
            assert locked.status_code == 429 and _reason(locked) == "auth/locked"
            assert (await _login_from(guesser, "2001:db8:5:7::1", "Ann")).status_code == 200  # the next /64

            for i in range(1, 31):  # `address-failures`: 30 for any names, from 30 addresses of one /64
                assert (await _login_from(guesser, f"2001:db8:9:9::{i:x}", f"name{i}", "guess")).status_code == 401
            locked = await _login_from(guesser, "2001:db8:9:9::ffff", "name99", "guess")
            assert locked.status_code == 429 and _reason(locked) == "auth/locked"
            assert (await _login_from(guesser, "2001:db8:9:8::1", "name99", "guess")).status_code == 401

            # The admin counts a /56 as one visitor: five failures across it lock all of it.
            changed = await admin.post("/api/club/limits", json={"limits": {"ipv6-prefix": 56}})
            assert changed.status_code == 200 and changed.json()["limits"]["ipv6-prefix"] == 56
            for i in range(1, 6):
                assert (await _login_from(guesser, f"2001:db8:a:{i}::1", "Ann", "guess")).status_code == 401
            locked = await _login_from(guesser, "2001:db8:a:ff::1", "Ann")
            assert locked.status_code == 429 and _reason(locked) == "auth/locked"
            assert (await _login_from(guesser, "2001:db8:a:100::1", "Ann")).status_code == 200  # another /56


async def test_requests_handshakes_and_sockets_count_one_home_network_as_one_visitor() -> None:
    async with LiveServer.running(limits=Limits(requests="3/hour", handshakes="3/hour", sockets=2)) as live:
        for i in range(1, 4):
            assert (await live.http.get("/api/tables", headers=_from(f"2001:db8:3:3::{i}"))).status_code == 200
        refused = await live.http.get("/api/tables", headers=_from("2001:db8:3:3::4"))
        assert refused.status_code == 429 and _reason(refused) == "rate/too_many_requests"
        assert (await live.http.get("/api/tables", headers=_from("2001:db8:3:4::1"))).status_code == 200

        for i in range(1, 3):
            await live.connect(additional_headers=_from(f"2001:db8:3:3::{i}"))
        with pytest.raises(InvalidStatus) as too_many:
            await live.connect(additional_headers=_from("2001:db8:3:3::3"))
        assert too_many.value.response.status_code == 429
        assert b"rate/too_many_sockets" in (too_many.value.response.body or b"")
        with pytest.raises(InvalidStatus) as too_often:  # the fourth socket opened from the /64 this hour
            await live.connect(additional_headers=_from("2001:db8:3:3::4"))
        assert too_often.value.response.status_code == 429
        assert b"rate/too_many_handshakes" in (too_often.value.response.body or b"")
        await live.connect(additional_headers=_from("2001:db8:3:4::1"))  # another /64: let in


async def test_tables_waiting_for_players_count_one_home_network_as_one_person() -> None:
    async with LiveServer.running() as live:
        body = {"name": "T", "player": "Zed"}
        for i in range(1, MAX_WAITING + 1):
            made = await live.http.post("/api/tables", json=body, headers=_from(f"2001:db8:7:7::{i}"))
            assert made.status_code == 200, made.text
        count = len(live.lobby.tables)
        refused = await live.http.post("/api/tables", json=body, headers=_from("2001:db8:7:7::99"))
        assert refused.status_code == 429 and _reason(refused) == "table/too_many"
        assert len(live.lobby.tables) == count
        assert (await live.http.post("/api/tables", json=body, headers=_from("2001:db8:7:8::1"))).status_code == 200


async def test_a_name_logs_in_written_as_sign_up_would_write_it_and_its_failures_count_as_one_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}") as live, browser(live) as alice:
        await become(alice, first_admin_code(capsys.readouterr().out), "Alice")
        for written in ("\uff21\uff4c\uff49\uff43\uff45", " Alice ", "  ALICE", "alice"):  # fullwidth; padded; cases
            async with browser(live) as device:
                answer = await login(device, written)
                assert answer.status_code == 200, (written, answer.text)
                assert answer.json()["member"]["name"] == "Alice"
        async with browser(live) as guesser:
            for written in ("\uff21\uff4c\uff49\uff43\uff45", " Alice", "ALICE ", "alice", "Alice"):
                assert (await _login_from(guesser, "203.0.113.20", written, "guess")).status_code == 401
            locked = await _login_from(guesser, "203.0.113.20", "Alice")  # five failures for one name
            assert locked.status_code == 429 and _reason(locked) == "auth/locked"


async def test_a_post_from_another_sites_page_is_refused_before_it_spends_the_visitors_limits(
    tmp_path: Path,
) -> None:
    limits = Limits(requests="4/hour", logins="2/hour")
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", limits=limits) as live:
        base = f"http://127.0.0.1:{live.port}"
        async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT, trust_env=False) as visitor:
            evil = {"origin": "https://evil.example"}
            for _ in range(6):  # more than either limit holds
                forged = await visitor.post("/api/club/login", json={"name": "Ann", "password": "x"}, headers=evil)
                assert forged.status_code == 403 and _reason(forged) == "auth/bad_origin"
            own = {"origin": base}
            for _ in range(2):  # the visitor's own page still has every login of the hour
                wrong = await visitor.post("/api/club/login", json={"name": "Ann", "password": "x"}, headers=own)
                assert wrong.status_code == 401 and _reason(wrong) == "auth/bad_login"
            spent = await visitor.post("/api/club/login", json={"name": "Ann", "password": "x"}, headers=own)
            assert spent.status_code == 429 and _reason(spent) == "rate/too_many_requests"  # counted from here on
