"""The club's pages (log in, use an invitation, sign up, your account, the admin page) and its JSON
API under /api/club (documented in docs/protocol.md, "The club")."""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from game.rulesets import RULESETS
from server.api import api, body, member
from server.club.club import MODES, Club
from server.club.passwords import PASSWORD_MIN
from server.club.sessions import SESSION_COOKIE, SESSION_MAX_AGE, keep_cookie
from server.club.store import Member, Session
from server.https import served_over_https
from server.lobby import Lobby
from server.pages import TEMPLATES, page_renderer
from server.rates.counter import Rates
from server.rates.gate import address
from server.tables.errors import TableError
from server.tables.messages import AdjournNow, Remove
from server.tables.settings import NAME_MAX

__all__ = ["club_routes"]


def _club(request: Request) -> Club:
    club: Club = request.app.state.club
    return club


def _me(request: Request) -> Member:
    found = member(request)
    if found is None:
        raise TableError("auth/login_required", "log in first", status=401)
    return found


def _admin(request: Request) -> Member:
    return _club(request).require_admin(member(request))


def _session(request: Request) -> Session | None:
    """The session the request came with (set by server.club.gate.Gate)."""
    found: Session | None = request.scope.get("sparrow.session")
    return found


def _browser(request: Request) -> tuple[str, str]:
    """The User-Agent and the address of whoever asks."""
    return request.headers.get("user-agent", "")[:200], request.client.host if request.client else "?"


def _logged_in(request: Request, who: Member, cookie: str) -> Response:
    """A JSON answer that sets the session cookie: signed, HttpOnly, SameSite=Lax, Secure over HTTPS."""
    response = JSONResponse({"member": who.to_json()})
    keep_cookie(response, request, SESSION_COOKIE, cookie, SESSION_MAX_AGE)
    return response


def _logged_out(request: Request, answer: dict[str, object]) -> Response:
    """A JSON answer that has the browser drop the session cookie, with the flags it was set with."""
    response = JSONResponse(answer)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=served_over_https(request))
    return response


def _safe_next(target: str | None) -> str:
    """Where to go after logging in: a path on this server only (never another site). A browser drops
    tabs and newlines from an address before reading it, so "/<tab>/evil.example" would be "//evil.example",
    another site: any control character refuses the target."""
    if (
        target
        and target.startswith("/")
        and not target.startswith("//")
        and "\\" not in target
        and all(" " <= c != "\x7f" for c in target)
    ):
        return target
    return "/"


# ------------------------------------------------------------------------ API
async def me(request: Request) -> object:
    who = member(request)
    club = _club(request)
    return {"member": None if who is None else who.to_json(), "mode": club.mode, "accounts": club.accounts}


async def login(request: Request) -> object:
    data = await body(request)
    agent, address = _browser(request)
    club = _club(request)
    who = await club.login(data.get("name"), data.get("password"), address)
    return _logged_in(request, who, await club.logged_in(who, agent, address))


async def logout(request: Request) -> object:
    who, session = member(request), _session(request)
    if who is not None and session is not None:
        await _club(request).logout(who, session)
    return _logged_out(request, {"logged_out": True})


async def sessions(request: Request) -> object:
    return {"sessions": await _club(request).sessions(_me(request), _session(request))}


async def end_session(request: Request) -> object:
    data = await body(request)
    who, session = _me(request), _session(request)
    club = _club(request)
    ref = data.get("session")
    current = session is not None and any(s["id"] == ref and s["current"] for s in await club.sessions(who, session))
    await club.end_session(who, ref)
    answer: dict[str, object] = {"ended": True, "current": current}
    return _logged_out(request, answer) if current else answer


async def logout_everywhere(request: Request) -> object:
    who = await _club(request).logout_everywhere(_me(request))
    return _logged_out(request, {"logged_out": True, "everywhere": True, "member": who.to_json()})


async def invitation(request: Request) -> object:
    return await _club(request).invitation(request.path_params["code"])


async def welcome(request: Request) -> object:
    data = await body(request)
    club = _club(request)
    who = await club.accept(data.get("code"), data.get("name"), data.get("password"))
    return _logged_in(request, who, await club.start_session(who, *_browser(request)))


async def _attempt(request: Request, rate: str, who: str, wrong: str, attempt: Coroutine[Any, Any, Member]) -> Member:
    """``attempt`` (a guess at a code or a password), unless ``who`` has had too many wrong ones (their
    count, `Limits` ``rate``, grows by one when ``attempt`` is refused with reason ``wrong``).

    :raises TableError: ``rate/too_many_attempts`` (429), and ``attempt``'s refusals.
    """
    rates: Rates = request.app.state.rates
    wait = await rates.wait(rate, who)
    if wait:
        attempt.close()  # (never awaited)
        minutes = max(1, round(wait / 60))
        message = f"too many wrong attempts: try again in {minutes} minute(s)"
        raise TableError("rate/too_many_attempts", message, status=429, retry_after=wait)
    try:
        return await attempt
    except TableError as exc:
        if exc.reason == wrong:
            await rates.hit(rate, who)
        raise


async def signup(request: Request) -> object:
    data = await body(request)
    club = _club(request)
    attempt = club.signup(data.get("code"), data.get("name"), data.get("password"))
    who = await _attempt(request, "signups", address(request.scope), "club/bad_code", attempt)
    return _logged_in(request, who, await club.start_session(who, *_browser(request)))


async def change_password(request: Request) -> object:
    data = await body(request)
    me = _me(request)
    attempt = _club(request).change_password(me, _session(request), data.get("old"), data.get("new"))
    who = await _attempt(request, "passwords", f"member:{me.id}", "auth/bad_login", attempt)
    return {"member": who.to_json()}


async def admin_state(request: Request) -> object:
    _admin(request)
    club = _club(request)
    lobby = request.app.state.lobby
    audit = await club.audit_log()
    return {
        "members": [m.to_json() for m in club.members.values()],
        "mode": club.mode,
        "modes": MODES,
        "signup": await club.signup_open(),
        "outstanding": await club.passes.outstanding(),
        "tables": lobby.all_tables(),
        "audit": audit["audit"],
        "audit_next": audit["next"],
        "defaults": club.defaults,
        "origins": club.origins,
        "limits": request.app.state.rates.limits.to_json(),
        "limits_started": request.app.state.rates.base.to_json(),
    }


async def audit_log(request: Request) -> object:
    _admin(request)
    text = request.query_params.get("before")
    before = int(text) if text is not None and text.isascii() and text.isdigit() and len(text) <= 12 else text
    return await _club(request).audit_log(before)


async def invite(request: Request) -> object:
    data = await body(request)
    return {"link": await _club(request).invitation_link(_admin(request), data.get("name"), data.get("days", 7))}


async def change_member(request: Request) -> object:
    admin = _admin(request)
    data = await body(request)
    club = _club(request)
    target = _member_id(request)
    who = None
    if "disabled" in data:
        who = await club.set_disabled(admin, target, _flag(data["disabled"], "disabled"))
    if "admin" in data:
        who = await club.set_admin(admin, target, _flag(data["admin"], "admin"))
    if who is None:
        raise TableError("input/malformed", 'say what to change: {"disabled": true} or {"admin": true}')
    return {"member": who.to_json()}


async def reset_link(request: Request) -> object:
    return {"link": await _club(request).reset_link(_admin(request), _member_id(request))}


async def unlock(request: Request) -> object:
    """Let a member log in again at once, from every address, however many failed logins their name
    had (a lockout is never a weapon for long)."""
    who = await _club(request).unlock(_admin(request), _member_id(request))
    return {"member": who.to_json(), "unlocked": True}


async def set_mode(request: Request) -> object:
    data = await body(request)
    await _club(request).set_mode(_admin(request), data.get("mode"))
    return {"mode": _club(request).mode}


async def set_signup_code(request: Request) -> object:
    data = await body(request)
    club = _club(request)
    await club.passes.set_signup_code(_admin(request), data.get("code"), data.get("until"), data.get("uses"))
    return {"signup": await club.signup_open()}


async def revoke_link(request: Request) -> object:
    """A guest link's maker, or an admin, revokes it; an admin revokes the sign-up code."""
    link = await _club(request).passes.revoke_link(_me(request), _number(request, "link_id"))
    return {"revoked": link.id}


async def revoke_invitation(request: Request) -> object:
    await _club(request).passes.revoke_invitation(_admin(request), _number(request, "invitation_id"))
    return {"revoked": True}


async def give_name(request: Request) -> object:
    data = await body(request)
    seats = await _club(request).give_name(_admin(request), data.get("name"), data.get("member"))
    return {"seats": seats}


async def close_table(request: Request) -> object:
    admin = _admin(request)
    table_id = request.path_params["table_id"]
    await request.app.state.lobby.close_table(table_id)
    await _club(request).audit(admin, "closed table", table_id, "")
    return {"closed": table_id}


async def adjourn_table(request: Request) -> object:
    admin = _admin(request)
    lobby: Lobby = request.app.state.lobby
    table_id = request.path_params["table_id"]
    table = await lobby.show(table_id)
    answer = await lobby.request(table_id, AdjournNow())
    await _club(request).audit(admin, "adjourned table", str(table["name"]), table_id)
    return answer


async def remove_from_table(request: Request) -> object:
    admin = _admin(request)
    data = await body(request)
    table_id = request.path_params["table_id"]
    lobby: Lobby = request.app.state.lobby
    table = await lobby.show(table_id)
    seat = data.get("seat")
    seats: list[dict[str, object] | None] = table["seats"]  # type: ignore[assignment]
    sitting = seats[seat] if isinstance(seat, int) and 0 <= seat <= 3 else None
    who = sitting["name"] if sitting else "?"
    answer = await lobby.request(table_id, Remove(None, seat, None, admin=True))
    await _club(request).audit(admin, "removed from table", f"{who} at {table['name']}", f"seat {seat}")
    return answer


async def rename(request: Request) -> object:
    data = await body(request)
    who = await _club(request).rename(_me(request), data.get("name"))
    return {"member": who.to_json()}


async def rename_member(request: Request) -> object:
    """An admin renames a member (at any time)."""
    admin = _admin(request)
    data = await body(request)
    who = await _club(request).rename_member(admin, _member_id(request), data.get("name"))
    return {"member": who.to_json()}


async def set_defaults(request: Request) -> object:
    data = await body(request)
    club = _club(request)
    await club.set_defaults(_admin(request), data.get("ruleset"), data.get("timers"))
    return {"defaults": club.defaults}


async def set_limits(request: Request) -> object:
    data = await body(request)
    club = _club(request)
    await club.set_limits(_admin(request), data.get("limits"))
    return {"limits": request.app.state.rates.limits.to_json()}


async def set_origins(request: Request) -> object:
    data = await body(request)
    club = _club(request)
    await club.set_origins(_admin(request), data.get("origins"))
    return {"origins": club.origins}


def _number(request: Request, key: str) -> int | None:
    text = request.path_params[key]
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else None


def _member_id(request: Request) -> int:
    text = request.path_params["member_id"]
    if not (text.isascii() and text.isdigit()) or len(text) > 12:  # not "²", which int() refuses
        raise TableError("club/no_member", "there is no such member", status=404)
    return int(text)


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise TableError("input/malformed", f"{what} must be true or false")
    return value


# ---------------------------------------------------------------------- pages
def club_routes(templates_dir: Path = TEMPLATES) -> list[BaseRoute]:
    """The club's pages and API routes."""
    render = page_renderer(templates_dir)

    def common(request: Request) -> dict[str, object]:
        return {"name_max": NAME_MAX, "password_min": PASSWORD_MIN}

    async def login_page(request: Request) -> Response:
        club = _club(request)
        target = _safe_next(request.query_params.get("next"))
        if member(request) is not None:
            return RedirectResponse(target, status_code=303)
        context = {
            **common(request),
            "next": target,
            "mode": club.mode,
            "accounts": club.accounts,
            "signup": await club.signup_open(),
        }
        return render(request, "club/login.html", context)

    async def welcome_page(request: Request) -> Response:
        code = request.path_params["code"]
        try:
            what = await _club(request).invitation(code)
        except TableError as exc:
            return render(request, "club/invalid.html", {"message": exc.message}, status=exc.status)
        return render(request, "club/welcome.html", {**common(request), "code": code, **what})

    async def signup_page(request: Request) -> Response:
        return render(request, "club/signup.html", common(request))

    async def account_page(request: Request) -> Response:
        who = member(request)
        if who is None:
            return RedirectResponse("/login?next=/account", status_code=303)
        return render(request, "club/account.html", {**common(request), "me": who})

    async def admin_page(request: Request) -> Response:
        who = member(request)
        if who is None:
            return RedirectResponse("/login?next=/admin", status_code=303)
        if not who.admin:
            return render(request, "club/invalid.html", {"message": "Only the club's admins may open this page."}, 403)
        return render(request, "club/admin.html", {**common(request), "modes": MODES, "rulesets": list(RULESETS)})

    return [
        Route("/login", login_page, methods=["GET"], name="login_page"),
        Route("/welcome/{code}", welcome_page, methods=["GET"], name="welcome_page"),
        Route("/signup", signup_page, methods=["GET"], name="signup_page"),
        Route("/account", account_page, methods=["GET"], name="account_page"),
        Route("/admin", admin_page, methods=["GET"], name="admin_page"),
        Route("/api/me", api(me), methods=["GET"], name="api_me"),
        Route("/api/club/login", api(login), methods=["POST"], name="api_login"),
        Route("/api/club/logout", api(logout), methods=["POST"], name="api_logout"),
        Route("/api/club/logout-everywhere", api(logout_everywhere), methods=["POST"], name="api_logout_everywhere"),
        Route("/api/club/invitation/{code}", api(invitation), methods=["GET"], name="api_invitation"),
        Route("/api/club/welcome", api(welcome), methods=["POST"], name="api_welcome"),
        Route("/api/club/signup", api(signup), methods=["POST"], name="api_signup"),
        Route("/api/club/password", api(change_password), methods=["POST"], name="api_password"),
        Route("/api/club/admin", api(admin_state), methods=["GET"], name="api_admin"),
        Route("/api/club/audit", api(audit_log), methods=["GET"], name="api_audit"),
        Route("/api/club/sessions", api(sessions), methods=["GET"], name="api_sessions"),
        Route("/api/club/sessions/end", api(end_session), methods=["POST"], name="api_end_session"),
        Route("/api/club/invitations", api(invite), methods=["POST"], name="api_invite"),
        Route("/api/club/members/{member_id}", api(change_member), methods=["POST"], name="api_member"),
        Route("/api/club/members/{member_id}/name", api(rename_member), methods=["POST"], name="api_rename_member"),
        Route("/api/club/members/{member_id}/reset", api(reset_link), methods=["POST"], name="api_reset"),
        Route("/api/club/members/{member_id}/unlock", api(unlock), methods=["POST"], name="api_unlock"),
        Route("/api/club/mode", api(set_mode), methods=["POST"], name="api_mode"),
        Route("/api/club/signup-code", api(set_signup_code), methods=["POST"], name="api_signup_code"),
        Route("/api/club/links/{link_id}/revoke", api(revoke_link), methods=["POST"], name="api_revoke_link"),
        Route(
            "/api/club/invitations/{invitation_id}/revoke",
            api(revoke_invitation),
            methods=["POST"],
            name="api_revoke_invitation",
        ),
        Route("/api/club/names", api(give_name), methods=["POST"], name="api_give_name"),
        Route("/api/club/tables/{table_id}/close", api(close_table), methods=["POST"], name="api_close_table"),
        Route("/api/club/tables/{table_id}/remove", api(remove_from_table), methods=["POST"], name="api_admin_remove"),
        Route("/api/club/tables/{table_id}/adjourn", api(adjourn_table), methods=["POST"], name="api_adjourn"),
        Route("/api/club/name", api(rename), methods=["POST"], name="api_rename"),
        Route("/api/club/defaults", api(set_defaults), methods=["POST"], name="api_defaults"),
        Route("/api/club/limits", api(set_limits), methods=["POST"], name="api_limits"),
        Route("/api/club/origins", api(set_origins), methods=["POST"], name="api_origins"),
    ]
