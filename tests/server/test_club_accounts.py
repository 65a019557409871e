"""The club: a new server lets nobody in until its first admin uses the printed link; members come by
invitation, log in, keep their seat on every device; logins are throttled; cross-site posts,
leaked secrets, disabled members and an old secret key are all kept out.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import websockets
from clubkit import PASSWORD, SECRET, ann_and_bob, become, browser, club_server, first_admin_code, invite, login, socket
from dbkit import BACKENDS, fresh_database
from livekit import TIMEOUT
from tablekit import Kit

from server.club import passwords
from server.club.sessions import SESSION_COOKIE
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_new_club_lets_nobody_in_until_the_first_admin_uses_the_printed_link(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fresh_database(backend, tmp_path) as url, club_server(url) as live, browser(live) as ann:
        code = first_admin_code(capsys.readouterr().out)
        lobby = await ann.get("/")
        assert lobby.status_code == 303 and lobby.headers["location"] == "/login?next=%2F"
        tables = await ann.get("/api/tables")
        assert tables.status_code == 401 and tables.json()["error"]["reason"] == "auth/login_required"
        with pytest.raises(websockets.InvalidStatus):  # refused before it opens
            await socket(live, ann)
        page = await ann.get(f"/welcome/{code}")
        assert page.status_code == 200 and "first admin" in page.text

        response = await ann.post("/api/club/welcome", json={"code": code, "name": "Ann", "password": PASSWORD})
        assert response.status_code == 200, response.text
        assert response.json()["member"] == {"id": 1, "name": "Ann", "admin": True, "disabled": False}
        cookie = response.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie

        assert (await ann.get("/")).status_code == 200
        assert (await ann.get("/admin")).status_code == 200
        async with browser(live) as mallory:  # the link worked once
            again = await mallory.post("/api/club/welcome", json={"code": code, "name": "Mal", "password": PASSWORD})
            assert again.status_code == 404 and again.json()["error"]["reason"] == "club/bad_invitation"
            assert (await mallory.get(f"/welcome/{code}")).status_code == 404


async def test_a_first_admin_link_printed_at_an_earlier_start_stops_working_once_the_club_has_an_admin(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url):
        earlier = first_admin_code(capsys.readouterr().out)  # still in the journal's log for a day
    async with club_server(sqlite_url) as live, browser(live) as ann, browser(live) as mallory:
        await become(ann, first_admin_code(capsys.readouterr().out))
        assert (await mallory.get(f"/api/club/invitation/{earlier}")).status_code == 404
        again = await mallory.post("/api/club/welcome", json={"code": earlier, "name": "Mal", "password": PASSWORD})
        assert again.status_code == 404 and again.json()["error"]["reason"] == "club/bad_invitation"
        members = (await ann.get("/api/club/admin")).json()["members"]
        assert [m["name"] for m in members] == ["Ann"]


async def test_an_invited_member_logs_in_on_a_second_device_and_gets_their_seat_back(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url) as live, browser(live) as ann, browser(live) as laptop:
        await become(ann, first_admin_code(capsys.readouterr().out))
        code = await invite(ann, "Bob")
        bob = await become(laptop, code, name="Mallory")  # the invitation was for Bob alone
        assert bob["name"] == "Bob" and not bob["admin"]

        made = await laptop.post("/api/tables", json={"name": "Friday", "player": "anything"})
        assert made.status_code == 200, made.text
        table = made.json()["table"]
        shown = (await laptop.get(f"/api/tables/{table}")).json()
        assert shown["seats"][0]["name"] == "Bob"  # a member sits under their own name

        async with browser(live) as phone:
            assert (await phone.post(f"/api/tables/{table}/join", json={"name": "Bob"})).status_code == 401
            assert (await login(phone, "bob")).status_code == 200  # names are not case-sensitive
            again = await phone.post(f"/api/tables/{table}/join", json={"name": "Bob"})
            assert again.json() == {"table": table, "seat": 0, "token": None, "owner": True}
            client = await socket(live, phone)
            await client.hello(table, None)  # no token on this device: the login is enough
            assert client.state["seat"] == 0
            bots = await phone.post(f"/api/tables/{table}/bots", json={})  # and it may act as the owner
            assert bots.status_code == 200, bots.text

        watcher = await socket(live, ann)  # another member, not seated: watches
        await watcher.hello(table, None)
        assert watcher.state["seat"] is None


async def test_a_wrong_password_and_an_unknown_name_get_the_same_answer_after_the_same_work(
    sqlite_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    verified: list[str] = []
    real = passwords._HASHER

    class Counting:
        def hash(self, password: str) -> str:
            return real.hash(password)

        def verify(self, stored: str, password: str) -> bool:
            verified.append(stored)
            return real.verify(stored, password)

    monkeypatch.setattr(passwords, "_HASHER", Counting())
    async with club_server(sqlite_url) as live, browser(live) as ann, browser(live) as other:
        await become(ann, first_admin_code(capsys.readouterr().out))
        verified.clear()
        wrong = await login(other, "Ann", "not the password")
        unknown = await login(other, "Nobody", "not the password")
        assert wrong.status_code == unknown.status_code == 401
        assert (
            wrong.json()
            == unknown.json()
            == {"error": {"reason": "auth/bad_login", "message": "wrong name or password"}}
        )
        assert len(verified) == 2  # an argon2 check for the unknown name too (against a dummy hash)
        assert all(h.startswith("$argon2id$") for h in verified)
        assert SESSION_COOKIE not in other.cookies


def _from(address: str) -> dict[str, str]:
    """Headers of a request that a trusted proxy (uvicorn trusts 127.0.0.1) forwarded for ``address``."""
    return {"x-forwarded-for": address}


async def _login_from(http: httpx.AsyncClient, address: str, name: str, password: str = PASSWORD) -> httpx.Response:
    """A login forwarded for ``address`` by the trusted proxy."""
    return await http.post("/api/club/login", json={"name": name, "password": password}, headers=_from(address))


async def test_repeated_failures_lock_a_name_from_that_address_and_the_lockout_is_logged(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url) as live, browser(live) as ann, browser(live) as guesser:
        await become(ann, first_admin_code(capsys.readouterr().out))
        guesser.headers.update(_from("203.0.113.7"))
        for _ in range(5):
            assert (await login(guesser, "Ann", "guess")).status_code == 401
        locked = await login(guesser, "Ann")  # even the right password, for now
        assert locked.status_code == 429 and locked.json()["error"]["reason"] == "auth/locked"
        assert "try again in 15 minute" in locked.json()["error"]["message"]
        assert 890 <= int(locked.headers["retry-after"]) <= 900
        assert (await login(guesser, "Nobody", "guess")).status_code == 401  # other names are not locked

        log = (await ann.get("/api/club/admin")).json()["audit"]
        assert log[0]["action"] == "lockout" and log[0]["target"] == "Ann" and "203.0.113.7" in log[0]["detail"]

        # The stranger did not lock Ann out: she logs in from her own address.
        async with browser(live) as ann_elsewhere:
            assert (await login(ann_elsewhere, "Ann")).status_code == 200


async def test_strangers_guessing_from_many_addresses_never_lock_a_member_out_and_the_admin_sees_it(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url) as live, browser(live) as admin, browser(live) as ann, browser(live) as guesser:
        await become(admin, first_admin_code(capsys.readouterr().out), "Boss")
        await become(ann, await invite(admin, "Ann"), "Ann")
        ann_id = (await ann.get("/api/me")).json()["member"]["id"]
        await ann.post("/api/club/logout")
        ann.headers.update(_from("198.51.100.1"))
        for address in range(10):  # 5 tries each from 10 addresses: 50 an hour, the name's limit
            for _ in range(5):
                response = await _login_from(guesser, f"10.0.0.{address}", "ann", "guess")
                assert response.status_code == 401
        log = (await admin.get("/api/club/admin")).json()["audit"]
        named = [
            e
            for e in log
            if e["action"] == "lockout" and e["target"] == "ann" and "addresses that failed" in e["detail"]
        ]
        assert len(named) == 1, log  # the admin is told once that the name's count is full

        # A stranger's fresh address gets one guess; having failed, it is locked out for the name.
        assert (await _login_from(guesser, "10.0.1.1", "Ann", "guess")).status_code == 401
        locked = await _login_from(guesser, "10.0.1.1", "Ann")  # even with the right password
        assert locked.status_code == 429 and locked.json()["error"]["reason"] == "auth/locked"
        assert int(locked.headers["retry-after"]) > 0

        # Ann, from her own address, which has not failed, still gets in; the admin sees that she did.
        assert (await login(ann, "Ann")).status_code == 200
        log = (await admin.get("/api/club/admin")).json()["audit"]
        during = [e for e in log if e["action"] == "logged in during a lockout"]
        assert len(during) == 1 and during[0]["target"] == "Ann" and "198.51.100.1" in during[0]["detail"]

        # Ann cannot unlock herself; an admin can, and it is logged.
        assert (await ann.post(f"/api/club/members/{ann_id}/unlock")).status_code in (401, 403)
        unlocked = await admin.post(f"/api/club/members/{ann_id}/unlock")
        assert unlocked.status_code == 200 and unlocked.json()["unlocked"] is True
        assert (await _login_from(guesser, "10.0.1.1", "Ann")).status_code == 200
        log = (await admin.get("/api/club/admin")).json()["audit"]
        assert any(e["action"] == "unlocked logins" and e["target"] == "Ann" for e in log)
        # An unlock forgets the failures from every address: the guessers start again from nothing.
        for _ in range(4):
            assert (await _login_from(guesser, "10.0.0.1", "Ann", "guess")).status_code == 401
        assert (await admin.post("/api/club/members/999/unlock")).status_code == 404


async def test_one_address_guessing_many_names_is_locked_out(sqlite_url: str) -> None:
    async with club_server(sqlite_url) as live, browser(live) as guesser:
        for i in range(30):
            assert (await login(guesser, f"name{i}", "guess")).status_code == 401
        refused = await login(guesser, "name99", "guess")
        assert refused.status_code == 429 and refused.json()["error"]["reason"] == "auth/locked"
        assert int(refused.headers["retry-after"]) > 0


async def test_cross_site_posts_are_refused_and_change_nothing(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url) as live, browser(live) as ann:
        await become(ann, first_admin_code(capsys.readouterr().out))
        cookie = {SESSION_COOKIE: ann.cookies[SESSION_COOKIE]}
        base = f"http://127.0.0.1:{live.port}"
        async with httpx.AsyncClient(base_url=base, cookies=cookie, trust_env=False, timeout=TIMEOUT) as forged:
            for origin in ("https://evil.example", None):
                headers = {} if origin is None else {"origin": origin}
                mode = await forged.post("/api/club/mode", json={"mode": "open"}, headers=headers)
                assert mode.status_code == 403 and mode.json()["error"]["reason"] == "auth/bad_origin"
                made = await forged.post("/api/tables", json={"name": "x"}, headers=headers)
                assert made.status_code == 403
        state = (await ann.get("/api/club/admin")).json()
        assert state["mode"] == "members"
        assert (await ann.get("/api/tables")).json()["tables"] == []


async def test_after_logging_in_the_login_page_sends_people_only_to_a_page_of_this_server(sqlite_url: str) -> None:
    # A browser drops tabs and newlines from an address: "/\t/evil.example" is "//evil.example", another site.
    async with club_server(sqlite_url) as live, browser(live) as visitor:
        for target, kept in (
            ("/players/Ann Lee", "/players/Ann Lee"),
            ("//evil.example", "/"),
            ("/\\evil.example", "/"),
            ("/\t/evil.example", "/"),
            ("/\n/evil.example", "/"),
            ("/\r//evil.example", "/"),
        ):
            page = await visitor.get("/login", params={"next": target})
            assert page.status_code == 200
            assert f'data-next="{kept}"' in page.text, target


async def test_no_page_api_answer_or_socket_frame_carries_a_hash_a_secret_or_an_invitation(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url) as live, browser(live) as ann, browser(live) as bob_browser:
        await become(ann, first_admin_code(capsys.readouterr().out))
        code = await invite(ann, "Bob")
        pending = await invite(ann, "Cy")  # not yet used: only its holder may see it
        await become(bob_browser, code, "Bob")
        reset = (await ann.post("/api/club/members/2/reset", json={})).json()["link"]
        table = (await ann.post("/api/tables", json={"name": "T"})).json()["table"]
        client = await socket(live, bob_browser)
        await client.hello(table, None)
        seen = [r.raw for r in client.received]
        for http in (ann, bob_browser):
            for path in (
                "/",
                "/admin",
                "/account",
                "/api/me",
                "/api/club/admin",
                "/api/club/sessions",
                f"/t/{table}",
                f"/api/tables/{table}",
            ):
                seen.append((await http.get(path)).text)
        text = "\n".join(seen)
        assert "$argon2" not in text
        assert SECRET not in text
        assert pending not in text and code not in text and reset.rsplit("/", 1)[1] not in text
        hashes = [m.password_hash for m in live.app.state.club.members.values()]
        assert not any(h in text for h in hashes)
        sessions = [k for k, s in live.app.state.club.logins._known.items() if s is not None]
        assert len(sessions) == 2 and not any(k in text for k in sessions)  # the ids its cookies sign


async def test_disabling_a_member_closes_their_sockets_at_once_and_ends_their_sessions(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url) as live, ann_and_bob(live, capsys) as (ann, bob):
        table = (await bob.post("/api/tables", json={"name": "Bob's"})).json()["table"]
        client = await socket(live, bob)
        await client.hello(table, None)
        watching = await socket(live, ann)
        await watching.hello(table, None)

        disabled = await ann.post("/api/club/members/2", json={"disabled": True})
        assert disabled.status_code == 200 and disabled.json()["member"]["disabled"] is True
        assert await client.closed() == 1008
        assert (await bob.get("/api/me")).json()["member"] is None
        assert (await bob.get("/api/tables")).status_code == 401
        assert (await login(bob, "Bob")).status_code == 401  # a disabled member cannot log in
        assert not watching.ws.close_code  # nobody else is cut off
        log = (await ann.get("/api/club/admin")).json()["audit"]
        assert (log[0]["actor"], log[0]["action"], log[0]["target"]) == ("Ann", "disabled", "Bob")


async def test_log_out_everywhere_ends_every_session_of_that_member_only(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url) as live, browser(live) as ann, browser(live) as laptop, browser(live) as phone:
        await become(ann, first_admin_code(capsys.readouterr().out))
        await become(laptop, await invite(ann, "Bob"), "Bob")
        assert (await login(phone, "Bob")).status_code == 200
        table = (await laptop.post("/api/tables", json={"name": "Bob's"})).json()["table"]
        playing = await socket(live, laptop)  # a socket opened with a session (a stolen one, say) ends with it
        await playing.hello(table, None)
        watching = await socket(live, ann)
        await watching.hello(table, None)
        assert (await phone.post("/api/club/logout-everywhere", json={})).status_code == 200
        for http in (laptop, phone):
            assert (await http.get("/api/me")).json()["member"] is None
        assert await playing.closed() == 1008
        assert not watching.ws.close_code
        assert (await ann.get("/api/me")).json()["member"]["name"] == "Ann"


async def test_a_new_secret_key_logs_everyone_out_and_changes_nothing_else(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url) as live, browser(live) as ann:
        await become(ann, first_admin_code(capsys.readouterr().out))
        table = (await ann.post("/api/tables", json={"name": "Kept"})).json()["table"]
        cookie = ann.cookies[SESSION_COOKIE]
    async with club_server(sqlite_url, secret="a new secret") as live, browser(live) as ann:
        ann.cookies.set(SESSION_COOKIE, cookie)
        assert (await ann.get("/api/me")).json()["member"] is None
        assert (await ann.get("/api/tables")).status_code == 401
        assert (await login(ann, "Ann")).status_code == 200  # the password still works …
        assert (await ann.get(f"/api/tables/{table}")).json()["seats"][0]["name"] == "Ann"  # … the table is there


async def test_in_an_open_club_guests_cannot_take_a_members_name(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url, mode="open") as live, browser(live) as ann, browser(live) as guest:
        await become(ann, first_admin_code(capsys.readouterr().out))
        assert (await guest.get("/")).status_code == 200
        taken = await guest.post("/api/tables", json={"name": "T", "player": " ann "})
        assert taken.status_code == 409 and taken.json()["error"]["reason"] == "seat/member_name"
        made = await guest.post("/api/tables", json={"name": "T", "player": "Zed"})
        assert made.status_code == 200


async def test_in_invite_mode_a_guest_link_opens_one_table_only(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url, mode="invite") as live, browser(live) as ann, browser(live) as guest:
        await become(ann, first_admin_code(capsys.readouterr().out))
        table = (await ann.post("/api/tables", json={"name": "Mine"})).json()["table"]
        other = (await ann.post("/api/tables", json={"name": "Other"})).json()["table"]
        link = (await ann.post(f"/api/tables/{table}/guest", json={})).json()["link"]
        assert (await guest.get(f"/t/{table}")).status_code == 303  # not without the link
        opened = await guest.get(link)  # the page's script then calls the API and the socket without the pass
        assert opened.status_code == 200 and "httponly" in opened.headers["set-cookie"].lower()
        assert guest.cookies["sparrow_guest"] == link.split("guest=", 1)[1]
        joined = await guest.post(f"/api/tables/{table}/join", json={"name": "Visitor"})
        assert joined.status_code == 200, joined.text
        assert (await guest.post(f"/api/tables/{other}/join", json={"name": "Visitor"})).status_code == 401
        assert (await guest.get("/api/tables")).status_code == 401
        assert (await guest.get("/")).status_code == 303
        headers = {
            "Origin": f"http://127.0.0.1:{live.port}",
            "Cookie": "; ".join(f"{name}={guest.cookies[name]}" for name in ("sparrow_guest", "sparrow_admitted")),
        }
        client = await live.connect(additional_headers=headers)
        await client.hello(table, joined.json()["token"])
        assert client.state["seat"] == 1
        stranger = await live.connect(additional_headers=headers)
        await stranger.send("hello", {"table": other, "token": None})
        assert await stranger.closed() == 1008


async def test_games_from_before_accounts_can_be_given_to_a_member_and_count_on_their_record(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = make_engine(sqlite_url)
    await upgrade(engine)
    journal = SqlJournal(engine)
    await Kit(journal).finished_game()  # Ann (a free-text name) and three bots
    await journal.close()
    await engine.dispose()
    async with club_server(sqlite_url) as live, browser(live) as admin, browser(live) as annie:
        await become(admin, first_admin_code(capsys.readouterr().out), "Boss")
        await become(annie, await invite(admin, "Annie"), "Annie")
        assert (await admin.get("/api/players/Annie")).status_code == 404
        given = await admin.post("/api/club/names", json={"name": "Ann", "member": 2})
        assert given.status_code == 200 and given.json() == {"seats": 1}
        record = (await admin.get("/api/players/Annie")).json()
        assert record["games"] == 1 and record["finished"] == 1
        board = (await admin.get("/api/leaderboard", params={"period": "all"})).json()["standings"]
        assert [s["name"] for s in board] == ["Annie"]
        assert (await admin.get("/api/players/Ann")).json()["games"] == 1  # the old name leads to her record
        assert (await admin.get("/api/games", params={"player": "Annie"})).json()["total"] == 1


async def test_after_a_restart_members_names_are_still_theirs(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with club_server(sqlite_url, mode="open") as live, browser(live) as ann:
        await become(ann, first_admin_code(capsys.readouterr().out))  # Ann has never sat at a table
    async with club_server(sqlite_url) as live, browser(live) as guest:
        taken = await guest.post("/api/tables", json={"name": "T", "player": "Ann"})
        assert taken.status_code == 409 and taken.json()["error"]["reason"] == "seat/member_name"
        assert (await login(guest, "Ann")).status_code == 200
