"""A guest link seats exactly the guests it was made for, whatever cookies its browser holds or
copies, in every process; revoking it closes its guests' sockets, in every process; and a session
ended through one process is refused by the others at their very next request (server/club/links.py,
guest_sockets.py, shared_ends.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from clubkit import PASSWORD, SECRET, ann_and_bob, become, browser, club_server, first_admin_code, login
from dbkit import BACKENDS, REDIS, fresh_database, redis_or_skip
from livekit import LiveClient, LiveServer
from proxykit import TcpProxy

from server.club.club import Club, ClubConfig
from server.club.guest_sockets import REVOKED
from server.club.store import Member
from server.store.migrate import upgrade
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio

DEADLINE = 30.0  # seconds a test waits for what it awaits (a busy machine is slow, never this slow)


@pytest_asyncio.fixture(params=BACKENDS)
async def club(
    request: pytest.FixtureRequest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> AsyncIterator[tuple[LiveServer, httpx.AsyncClient, str]]:
    """A club taking guests by link; its admin Ann, in a browser, at a table of hers."""
    async with fresh_database(request.param, tmp_path) as url, club_server(url, mode="invite") as live:
        async with browser(live) as ann:
            await become(ann, first_admin_code(capsys.readouterr().out))
            table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]
            yield live, ann, table


async def _guest_link(member: httpx.AsyncClient, table: str, guests: int) -> dict[str, Any]:
    made = await member.post(f"/api/tables/{table}/guest", json={"guests": guests})
    assert made.status_code == 200, made.text
    answer: dict[str, Any] = made.json()
    return answer


def _copied(cookies: httpx.Cookies) -> httpx.Cookies:
    """Every cookie of a browser, in another one."""
    return httpx.Cookies({name: value for name, value in cookies.items()})


async def _seated(member: httpx.AsyncClient, table: str) -> list[str | None]:
    shown = (await member.get(f"/api/tables/{table}")).json()
    return [s["name"] if s else None for s in shown["seats"]]


async def _join(guest: httpx.AsyncClient, table: str, name: str) -> httpx.Response:
    return await guest.post(f"/api/tables/{table}/join", json={"name": name})


def _used_up(answer: httpx.Response) -> bool:
    error = answer.json().get("error", {})
    return answer.status_code == 409 and error.get("reason") == "club/guest_link_used"


@contextlib.asynccontextmanager
async def _guest_socket(
    live: LiveServer, guest: httpx.AsyncClient, table: str, token: str
) -> AsyncIterator[LiveClient]:
    """The socket a guest's table page opens (with the browser's cookies), at its seat."""
    cookie = "; ".join(f"{name}={value}" for name, value in guest.cookies.items())
    client = await live.connect(additional_headers={"Origin": f"http://127.0.0.1:{live.port}", "Cookie": cookie})
    await client.hello(table, token)
    yield client


async def _closed(client: LiveClient, what: str) -> tuple[int, str]:
    await client.wait_for(lambda: client.close_code is not None, what, timeout=DEADLINE)
    assert client.close_code is not None
    return client.close_code, client.ws.close_reason or ""


async def test_a_guest_link_for_one_guest_seats_one_whatever_cookies_are_copied(club: Any) -> None:
    live, ann, table = club
    link = await _guest_link(ann, table, 1)
    async with browser(live) as guest, browser(live) as copy:
        assert (await guest.get(link["link"])).status_code == 200
        seated = await _join(guest, table, "Guest A")
        assert seated.status_code == 200, seated.text

        again = await _join(guest, table, "Guest B")  # the browser that took the place: no second seat
        assert _used_up(again), again.text
        assert "this guest link was for 1 guest, and every place is taken" in again.json()["error"]["message"]
        copy.cookies = _copied(guest.cookies)  # its link and its note of the place it took
        copied = await _join(copy, table, "Guest C")
        assert _used_up(copied), copied.text
        assert (await copy.get(f"/api/tables/{table}")).status_code == 200  # it may still watch

        assert await _seated(ann, table) == ["Ann", "Guest A", None, None]
        assert (await ann.get(f"/api/tables/{table}/guest")).json() == {"links": []}  # it admits nobody else
        page = await guest.get(f"/t/{table}")  # the guest keeps their way in, and their seat
        assert page.status_code == 200 and "you have your place" in page.text


async def test_a_guest_link_for_two_seats_exactly_two(club: Any) -> None:
    live, ann, table = club
    link = await _guest_link(ann, table, 2)
    async with browser(live) as guest, browser(live) as friend:
        await guest.get(link["link"])
        answers = [await _join(guest, table, name) for name in ("Guest A", "Guest B", "Guest C")]
        assert [a.status_code for a in answers[:2]] == [200, 200], [a.text for a in answers]
        assert _used_up(answers[2]), answers[2].text
        friend.cookies = _copied(guest.cookies)
        assert _used_up(await _join(friend, table, "Guest D"))
    assert await _seated(ann, table) == ["Ann", "Guest A", "Guest B", None]
    listed = (await ann.get(f"/api/tables/{table}/guest")).json()["links"]
    assert listed == []  # (it lists links that still admit someone)


async def test_revoking_a_guest_link_closes_its_guests_sockets(club: Any) -> None:
    live, ann, table = club
    link, other = await _guest_link(ann, table, 1), await _guest_link(ann, table, 1)
    async with browser(live) as guest, browser(live) as stays:
        await guest.get(link["link"])
        token = (await _join(guest, table, "Guest A")).json()["token"]
        await stays.get(other["link"])
        kept = (await _join(stays, table, "Guest B")).json()["token"]
        async with (
            _guest_socket(live, guest, table, token) as playing,
            _guest_socket(live, stays, table, kept) as staying,
        ):
            assert (await ann.post(f"/api/club/links/{link['id']}/revoke", json={})).status_code == 200
            assert await _closed(playing, "the revoked link's socket to close") == (1008, REVOKED)
            ack = await staying.request("chat", {"text": "still here"}, timeout=DEADLINE)
            assert ack["t"] == "ack", ack  # the other link's guest plays on
            assert staying.close_code is None
        refused = await guest.get(f"/api/tables/{table}")
        assert refused.status_code == 403 and refused.json()["error"]["reason"] == "club/guest_link_revoked"


async def test_across_processes_a_guest_link_counts_once_and_revoking_it_closes_its_guests_sockets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url, club_server(url, mode="invite", redis=REDIS) as one:
        async with browser(one) as ann:
            await become(ann, first_admin_code(capsys.readouterr().out))
            table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]  # runs in `one`
            link = await _guest_link(ann, table, 1)
            async with club_server(url, mode="invite", redis=REDIS) as two, browser(one) as guest, browser(two) as copy:
                await guest.get(link["link"])
                seated = await _join(guest, table, "Guest A")  # through `one` …
                assert seated.status_code == 200, seated.text
                copy.cookies = _copied(guest.cookies)
                assert _used_up(await _join(copy, table, "Guest C"))  # … and nobody else through `two`
                assert await _seated(ann, table) == ["Ann", "Guest A", None, None]

                # Revoked through `one`: the guest's socket, held by `two` (forwarded to `one`), closes.
                async with _guest_socket(two, copy, table, seated.json()["token"]) as playing:
                    assert (await ann.post(f"/api/club/links/{link['id']}/revoke", json={})).status_code == 200
                    closed = await _closed(playing, "the guest's socket in the other process to close")
                    assert closed == (1008, REVOKED)


async def test_a_session_ended_or_logged_out_through_one_process_is_refused_by_another_at_its_next_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url, club_server(url, redis=REDIS) as one:
        async with ann_and_bob(one, capsys) as (ann, laptop):
            async with club_server(url, redis=REDIS) as two, browser(two) as phone, browser(two) as same:
                # Ended on *Your account* through `one`, while `two` knows the session (it made it).
                assert (await login(phone, "Bob")).status_code == 200
                assert (await phone.get("/api/me")).json()["member"]["name"] == "Bob"
                listed = (await laptop.get("/api/club/sessions")).json()["sessions"]
                other = [s["id"] for s in listed if not s["current"]]
                assert len(other) == 1, listed
                ended = await laptop.post("/api/club/sessions/end", json={"session": other[0]})
                assert ended.status_code == 200, ended.text
                made = await phone.post("/api/tables", json={"name": "too late"})
                assert made.status_code == 401, made.text
                assert (await phone.get("/api/me")).json()["member"] is None

                # Logged out through `one`, with a copy of the cookie that `two` knows.
                same.cookies = _copied(laptop.cookies)
                assert (await same.get("/api/me")).json()["member"]["name"] == "Bob"
                assert (await laptop.post("/api/club/logout", json={})).status_code == 200
                made = await same.post("/api/tables", json={"name": "too late"})
                assert made.status_code == 401, made.text
                assert (await ann.get("/api/me")).json()["member"]["name"] == "Ann"  # others stay logged in


async def test_while_redis_is_out_of_reach_a_session_ended_through_one_process_is_still_refused_by_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await redis_or_skip()
    port = int(REDIS.rsplit(":", 1)[1].split("/")[0])
    async with fresh_database("postgresql", tmp_path) as url, TcpProxy("127.0.0.1", port) as proxy:
        redis = f"redis://{proxy.url_part}/0"
        async with club_server(url, redis=redis) as one, ann_and_bob(one, capsys) as (ann, laptop):
            async with club_server(url, redis=redis) as two, browser(two) as same:
                same.cookies = _copied(laptop.cookies)
                assert (await same.get("/api/me")).json()["member"]["name"] == "Bob"  # `two` knows the session
                proxy.cut()  # Redis out of reach: the processes ask the database (the truth) instead
                assert (await laptop.post("/api/club/logout", json={})).status_code == 200
                made = await same.post("/api/tables", json={"name": "too late"})
                assert made.status_code == 401, made.text
                assert (await ann.get("/api/me")).json()["member"]["name"] == "Ann"
                proxy.mend()
                assert (await same.get("/api/me")).json()["member"] is None


async def test_a_member_who_joins_while_the_club_is_read_again_stays_logged_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each process reads the club again every second; a member who joined through it meanwhile (not
    yet in what it read) is kept, so their first requests are not refused."""
    async with fresh_database("sqlite", tmp_path) as url:
        engine = make_engine(url)
        try:
            await upgrade(engine)
            club = Club(engine, ClubConfig(SECRET, mode="members"))
            await club.open()
            link = await club.first_admin_link()
            assert link is not None and club.store is not None
            read, go = asyncio.Event(), asyncio.Event()
            snapshot = club.store.snapshot

            async def read_slowly(
                keys: tuple[str, ...],
            ) -> tuple[dict[str, int | None], list[Member], dict[str, dict[str, Any]]]:
                found = await snapshot(keys)  # (the members, the names and the settings)
                read.set()
                await go.wait()
                return found

            monkeypatch.setattr(club.store, "snapshot", read_slowly)
            reloading = asyncio.get_running_loop().create_task(club.reload())
            await asyncio.wait_for(read.wait(), DEADLINE)  # it has read the members: nobody yet
            ann = await club.accept(link.rsplit("/", 1)[1], "Ann", PASSWORD)
            cookie = await club.start_session(ann, "a browser", "127.0.0.1")
            go.set()
            await asyncio.wait_for(reloading, DEADLINE)
            found = await club.session_of(cookie, "127.0.0.1")
            assert found is not None and found[0].name == "Ann"
        finally:
            await engine.dispose()
