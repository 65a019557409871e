"""A member's sessions are records on the server: logging out ends one for good (a copied cookie stops
working, its sockets close), a new password or a reset link ends the others, *Your account* lists
them and ends any one, reset links die when they should, and the audit log says who by id, in pages.
"""

from __future__ import annotations

import asyncio
from datetime import UTC
from pathlib import Path

import httpx
import pytest
import websockets
from clubkit import PASSWORD, SECRET, ann_and_bob, become, browser, club_server, first_admin_code, invite, login, socket
from dbkit import BACKENDS, REDIS, fresh_database, redis_or_skip
from itsdangerous import URLSafeTimedSerializer
from livekit import within
from sqlalchemy import select

from server.club.logins import SEEN_EVERY, device
from server.club.passwords import check_new_password
from server.club.sessions import SESSION_COOKIE
from server.store.models import SessionRow
from server.tables.errors import TableError

pytestmark = pytest.mark.asyncio

FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.1 Mobile/15E148 Safari/604.1"
)


def _copy(cookies: httpx.Cookies) -> httpx.Cookies:
    """A stolen cookie: the same value in another browser."""
    return httpx.Cookies({SESSION_COOKIE: cookies[SESSION_COOKIE]})


@pytest.mark.parametrize("backend", BACKENDS)
async def test_logging_out_ends_the_session_on_the_server_so_a_copied_cookie_stops_working(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fresh_database(backend, tmp_path) as url, club_server(url) as live:
        async with browser(live) as ann, browser(live) as thief, browser(live) as bob:
            await become(ann, first_admin_code(capsys.readouterr().out))
            await become(bob, await invite(ann, "Bob"), "Bob")
            table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]
            thief.cookies = _copy(ann.cookies)
            assert (await thief.get("/api/me")).json()["member"]["name"] == "Ann"
            stolen = await socket(live, thief)
            await stolen.hello(table, None)
            watching = await socket(live, bob)
            await watching.hello(table, None)

            assert (await ann.post("/api/club/logout", json={})).status_code == 200
            assert await stolen.closed() == 1008  # the session's sockets close at once
            assert (await thief.get("/api/me")).json()["member"] is None
            assert (await thief.get("/api/tables")).status_code == 401
            with pytest.raises(websockets.InvalidStatus):  # no new socket with it either
                await socket(live, thief)
            assert not watching.ws.close_code  # other members' sockets stay
            assert (await bob.get("/api/me")).json()["member"]["name"] == "Bob"


async def test_a_socket_opened_before_its_session_ended_is_closed_when_it_says_hello(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}") as live, browser(live) as ann:
        await become(ann, first_admin_code(capsys.readouterr().out))
        table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]
        early = await socket(live, ann)  # let in while the session was live …
        assert (await ann.post("/api/club/logout", json={})).status_code == 200  # … which ends before hello
        await early.send("hello", {"table": table, "token": None})
        assert await early.closed() == 1008


async def test_a_cookie_of_the_older_kind_naming_a_member_no_longer_logs_anyone_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}") as live, browser(live) as ann:
        await become(ann, first_admin_code(capsys.readouterr().out))
        old = URLSafeTimedSerializer(SECRET, salt="sparrow.session").dumps([1, 0])  # [member, epoch]
        async with browser(live) as before:
            before.cookies = httpx.Cookies({SESSION_COOKIE: old})
            assert (await before.get("/api/me")).json()["member"] is None
            assert (await before.get("/api/tables")).status_code == 401


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_new_password_ends_the_other_sessions_and_their_sockets_and_keeps_this_one(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fresh_database(backend, tmp_path) as url, club_server(url) as live:
        async with browser(live) as ann, browser(live) as laptop, browser(live) as phone:
            await become(ann, first_admin_code(capsys.readouterr().out))
            await become(laptop, await invite(ann, "Bob"), "Bob")
            assert (await login(phone, "Bob")).status_code == 200
            table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]
            on_phone, on_laptop = await socket(live, phone), await socket(live, laptop)
            await on_phone.hello(table, None)
            await on_laptop.hello(table, None)

            new = "a new battery staple"
            changed = await laptop.post("/api/club/password", json={"old": PASSWORD, "new": new})
            assert changed.status_code == 200, changed.text
            assert await on_phone.closed() == 1008
            assert (await phone.get("/api/me")).json()["member"] is None
            assert (await laptop.get("/api/me")).json()["member"]["name"] == "Bob"  # this session goes on
            assert (await laptop.get("/api/tables")).status_code == 200
            assert not on_laptop.ws.close_code
            assert (await login(phone, "Bob")).status_code == 401
            assert (await login(phone, "Bob", new)).status_code == 200


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_reset_link_dies_with_a_newer_link_or_a_new_password_and_using_one_ends_the_other_sessions(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fresh_database(backend, tmp_path) as url, club_server(url) as live:
        async with browser(live) as ann, browser(live) as bob, browser(live) as fresh:
            await become(ann, first_admin_code(capsys.readouterr().out))
            await become(bob, await invite(ann, "Bob"), "Bob")

            async def reset_code() -> str:
                answer = await ann.post("/api/club/members/2/reset", json={})
                assert answer.status_code == 200, answer.text
                link: str = answer.json()["link"]
                return link.rsplit("/", 1)[1]

            async def usable(code: str) -> bool:
                return (await fresh.get(f"/api/club/invitation/{code}")).status_code == 200

            first = await reset_code()
            second = await reset_code()
            assert not await usable(first) and await usable(second)  # a newer link was made
            new = "a new battery staple"
            assert (await bob.post("/api/club/password", json={"old": PASSWORD, "new": new})).status_code == 200
            assert not await usable(second)  # the password changed
            used = await fresh.post("/api/club/welcome", json={"code": second, "name": "", "password": "whatever 123"})
            assert used.status_code == 404 and used.json()["error"]["reason"] == "club/bad_invitation"

            third = await reset_code()
            table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]
            playing = await socket(live, bob)
            await playing.hello(table, None)
            used = await fresh.post("/api/club/welcome", json={"code": third, "name": "", "password": "reset 12345"})
            assert used.status_code == 200 and used.json()["member"]["name"] == "Bob"
            assert await playing.closed() == 1008  # whoever held the old password is out, sockets too
            assert (await bob.get("/api/me")).json()["member"] is None
            assert (await fresh.get("/api/me")).json()["member"]["name"] == "Bob"
            assert (await login(bob, "Bob", "reset 12345")).status_code == 200


async def test_your_account_lists_your_sessions_and_ends_any_one_of_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}") as live:
        async with browser(live) as ann, browser(live) as laptop, browser(live) as phone:
            await become(ann, first_admin_code(capsys.readouterr().out))
            laptop.headers["user-agent"], phone.headers["user-agent"] = FIREFOX, IPHONE
            await become(laptop, await invite(ann, "Bob"), "Bob")
            assert (await login(phone, "Bob")).status_code == 200
            table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]
            on_phone = await socket(live, phone)
            await on_phone.hello(table, None)

            listed = (await laptop.get("/api/club/sessions")).json()["sessions"]
            assert [(s["device"], s["address"], s["current"]) for s in sorted(listed, key=lambda s: s["device"])] == [
                ("Firefox on Windows", "127.0.0.1", True),
                ("Mobile Safari on iOS", "127.0.0.1", False),
            ]
            assert all(s["seen"] >= s["started"] > 0 for s in listed)
            assert not any(s["id"] in laptop.cookies[SESSION_COOKIE] for s in listed)  # not the cookie's id
            page = await laptop.get("/account")
            assert 'id="session-rows"' in page.text
            (phones,) = [s["id"] for s in listed if not s["current"]]

            forged = await laptop.post(
                "/api/club/sessions/end", json={"session": phones}, headers={"origin": "https://evil.example"}
            )
            assert forged.status_code == 403 and forged.json()["error"]["reason"] == "auth/bad_origin"
            assert (await phone.get("/api/me")).json()["member"]["name"] == "Bob"  # nothing ended
            assert (await ann.post("/api/club/sessions/end", json={"session": phones})).status_code == 404  # not Ann's

            ended = await laptop.post("/api/club/sessions/end", json={"session": phones})
            assert ended.status_code == 200 and ended.json() == {"ended": True, "current": False}
            assert await on_phone.closed() == 1008
            assert (await phone.get("/api/me")).json()["member"] is None
            assert (await laptop.get("/api/me")).json()["member"]["name"] == "Bob"
            again = await laptop.post("/api/club/sessions/end", json={"session": phones})
            assert again.status_code == 404 and again.json()["error"]["reason"] == "club/no_session"
            assert [s["current"] for s in (await laptop.get("/api/club/sessions")).json()["sessions"]] == [True]


async def test_a_session_is_read_from_the_database_once_and_last_seen_is_written_at_most_once_a_minute(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}") as live, browser(live) as ann:
        await become(ann, first_admin_code(capsys.readouterr().out))
        club = live.app.state.club
        now = [club.clock() + 1.0]
        club.clock = lambda: now[0]
        assert club.store is not None
        reads: list[str] = []
        writes: list[float] = []
        real_read, real_seen = club.store.session, club.store.seen

        async def read(session_id: str) -> object:
            reads.append(session_id)
            return await real_read(session_id)

        async def seen(session_id: str, when: float, address: str) -> None:
            writes.append(when)
            await real_seen(session_id, when, address)

        monkeypatch.setattr(club.store, "session", read)
        monkeypatch.setattr(club.store, "seen", seen)
        club.logins._known.clear()  # as another process, which has not seen this session yet
        for _ in range(5):
            assert (await ann.get("/api/me")).json()["member"]["name"] == "Ann"
        assert len(reads) == 1 and writes == []
        now[0] += SEEN_EVERY
        for _ in range(5):
            assert (await ann.get("/api/me")).json()["member"]["name"] == "Ann"
        assert writes == [now[0]] and len(reads) == 1

        async def stored() -> list[int]:
            async with club.store.engine.connect() as connection:
                seen = (await connection.execute(select(SessionRow.seen_at))).scalars().all()
            return [round(when.replace(tzinfo=UTC).timestamp()) for when in seen]

        async with asyncio.timeout(within(10)):  # the write runs beside the request: nothing to await
            while await stored() != [round(now[0])]:
                await asyncio.sleep(0.05)


async def test_rows_of_sessions_long_ended_or_expired_are_deleted_and_an_expired_one_is_not_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}") as live:
        club = live.app.state.club
        now = [club.clock()]
        club.clock = lambda: now[0]

        async def stored() -> int:
            async with club.store.engine.connect() as connection:
                return len((await connection.execute(select(SessionRow.id))).all())

        async with browser(live) as laptop, browser(live) as phone, browser(live) as tablet:
            await become(laptop, first_admin_code(capsys.readouterr().out))
            assert (await login(phone, "Ann")).status_code == 200
            assert (await phone.post("/api/club/logout", json={})).status_code == 200
            assert await stored() == 2  # ended, but kept a day: other processes read it there
            now[0] += 2 * 24 * 3600
            assert (await login(tablet, "Ann")).status_code == 200
            assert await stored() == 2  # the phone's row went; the laptop's and the tablet's stay
            now[0] += 29 * 24 * 3600  # the laptop's cookie, 31 days old, no longer logs anyone in
            listed = (await tablet.get("/api/club/sessions")).json()["sessions"]
            assert [s["current"] for s in listed] == [True]
            assert (await login(phone, "Ann")).status_code == 200
            assert await stored() == 2  # the laptop's row went; the tablet's and the phone's new one stay


async def test_whitespace_only_passwords_and_control_characters_are_refused() -> None:
    for bad in (
        " " * 8,
        "\t \n" * 4,
        "\x00" * 8,
        "password\x00",
        "pass\x7fword",
        "pass\u200eword 12",
        "a\u2028bcdefgh",
    ):
        with pytest.raises(TableError) as refused:
            check_new_password(bad)
        assert refused.value.reason == "auth/bad_password", repr(bad)
    for good in ("correct horse", "  spaced out  ", "пароль-пароль", "日本語のパスワード"):
        assert check_new_password(good) == good


async def test_a_whitespace_only_password_is_refused_when_joining_and_changing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}") as live, browser(live) as ann:
        code = first_admin_code(capsys.readouterr().out)
        refused = await ann.post("/api/club/welcome", json={"code": code, "name": "Ann", "password": " " * 8})
        assert refused.status_code == 400 and refused.json()["error"]["reason"] == "auth/bad_password"
        await become(ann, code)  # the link still works
        nuls = await ann.post("/api/club/password", json={"old": PASSWORD, "new": "\x00" * 8})
        assert nuls.status_code == 400 and nuls.json()["error"]["reason"] == "auth/bad_password"
        assert (await login(ann, "Ann")).status_code == 200  # the password did not change


async def test_a_device_is_named_in_plain_words() -> None:
    assert device(FIREFOX) == "Firefox on Windows"
    assert device(IPHONE) == "Mobile Safari on iOS"
    assert device("") == "unknown browser"
    assert device("python-httpx/0.28.1").startswith("unknown browser")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_audit_log_names_members_by_id_records_their_logins_and_comes_in_pages(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fresh_database(backend, tmp_path) as url, club_server(url) as live:
        async with browser(live) as ann, browser(live) as bob, browser(live) as phone:
            await become(ann, first_admin_code(capsys.readouterr().out))
            await become(bob, await invite(ann, "Bob"), "Bob")
            assert (await login(phone, "Bob")).status_code == 200
            assert (await bob.post("/api/club/name", json={"name": "Robert"})).status_code == 200
            assert (
                await bob.post("/api/club/password", json={"old": PASSWORD, "new": "new password"})
            ).status_code == 200
            assert (await ann.post("/api/club/members/2/reset", json={})).status_code == 200
            assert (await bob.post("/api/club/logout-everywhere", json={})).status_code == 200

            state = (await ann.get("/api/club/admin")).json()
            lines = [(x["actor"], x["actor_id"], x["action"], x["target"], x["target_id"]) for x in state["audit"]]
            assert lines[:6] == [
                ("Robert", 2, "logged out everywhere", "Robert", 2),
                ("Ann", 1, "password reset link", "Robert", 2),
                ("Robert", 2, "changed password", "Robert", 2),
                ("Robert", 2, "renamed", "Robert", 2),
                ("Bob", 2, "logged in", "Bob", 2),  # the name it had then; the id says it is Robert
                ("Bob", 2, "joined", "Bob", 2),
            ]
            assert "1 other session(s) ended" in state["audit"][2]["detail"]
            assert state["audit_next"] is None

            club = live.app.state.club
            for i in range(70):
                await club._audit(None, "test line", f"line {i}", "")
            state = (await ann.get("/api/club/admin")).json()
            first = state["audit"]
            assert len(first) == 50 and first[0]["target"] == "line 69" and state["audit_next"] == first[-1]["id"]
            page = (await ann.get("/api/club/audit", params={"before": state["audit_next"]})).json()
            assert [x["id"] for x in page["audit"]] == sorted((x["id"] for x in page["audit"]), reverse=True)
            assert page["audit"][0]["id"] < first[-1]["id"] and page["audit"][-1]["action"] == "joined"
            assert len(first) + len(page["audit"]) == 70 + 8 and page["next"] is None
            bad = await ann.get("/api/club/audit", params={"before": "x"})
            assert bad.status_code == 400 and bad.json()["error"]["reason"] == "input/malformed"
            assert (await phone.get("/api/club/audit")).status_code in (401, 403)


async def test_a_session_ended_through_one_process_stops_working_in_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url, club_server(url, redis=REDIS) as one:
        async with ann_and_bob(one, capsys) as (ann, laptop):
            table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]  # runs in `one`
            async with club_server(url, redis=REDIS) as two, browser(two) as phone:
                assert (await login(phone, "Bob")).status_code == 200  # a session made through `two`
                assert (await phone.get("/api/me")).json()["member"]["name"] == "Bob"
                playing = await socket(two, phone)  # held by `two`, forwarded to `one`
                await playing.hello(table, None)

                new = "a new battery staple"
                assert (await laptop.post("/api/club/password", json={"old": PASSWORD, "new": new})).status_code == 200
                assert await playing.closed() == 1008  # `two` read that the session ended, and closed it
                assert (await phone.get("/api/me")).json()["member"] is None
                assert (await laptop.get("/api/me")).json()["member"]["name"] == "Bob"
