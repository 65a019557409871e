"""The lobby list comes a page at a time (docs/protocol.md, `GET /api/tables`): ``limit`` tables,
newest first, and a ``next`` cursor for the rest."""

from __future__ import annotations

import pytest
from livekit import QUIET_TIMERS, LiveServer

pytestmark = pytest.mark.asyncio


async def test_the_lobby_list_pages_newest_first_with_a_cursor_for_the_rest() -> None:
    async with LiveServer.running() as live:
        made = []
        for i in range(7):  # each from an address of its own: a person has at most 5 tables waiting
            body = {"name": f"T{i}", "player": "Ann", "timers": QUIET_TIMERS}
            answer = await live.http.post("/api/tables", json=body, headers={"x-forwarded-for": f"10.0.0.{i}"})
            assert answer.status_code == 200, answer.text
            made.append(answer.json()["table"])
        whole = (await live.http.get("/api/tables")).json()
        assert [t["id"] for t in whole["tables"]] == made[::-1] and whole["next"] is None

        seen, pages, cursor = [], [], None
        while True:
            params = {"limit": "3"} if cursor is None else {"limit": "3", "before": cursor}
            page = (await live.http.get("/api/tables", params=params)).json()
            pages.append(len(page["tables"]))
            seen += [t["id"] for t in page["tables"]]
            cursor = page["next"]
            if cursor is None:
                break
        assert pages == [3, 3, 1] and seen == made[::-1]

        # A table that closes between two pages moves nothing: the cursor says where the page ended.
        first = (await live.http.get("/api/tables", params={"limit": "2"})).json()
        await live.lobby.close_table(first["tables"][-1]["id"])
        rest = (await live.http.get("/api/tables", params={"limit": "2", "before": first["next"]})).json()
        assert [t["id"] for t in rest["tables"]] == made[::-1][2:4]

        for query in ({"limit": "0"}, {"limit": "501"}, {"limit": "x"}, {"before": "nan~x"}, {"before": "nonsense"}):
            refused = await live.http.get("/api/tables", params=query)
            assert refused.status_code == 400 and refused.json()["error"]["reason"] == "input/bad_query", query
