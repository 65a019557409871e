"""`sparrow serve` on its own on PostgreSQL when the database's locks misbehave: a table lock held by
another session is a quick 503 (`server/storage`) for what needs it, never a silent stall, and the
server plays on once the lock goes; every acknowledged action is stored, with no gap. Skipped where
PostgreSQL does not answer on 127.0.0.1 (CI has one).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import asyncpg
import httpx
import pytest
from processkit import served
from test_cluster import TIMERS, _human_actions, _Player, _wait
from test_cluster_faults import _gapless, _tables_on

from server.store.session import LOCK_TIMEOUT

pytestmark = pytest.mark.asyncio

ANSWERED_WITHIN = 2 * LOCK_TIMEOUT + 1.5  # seconds a held lock costs a request at most: the batch being
# written when it came waits out the lock, then its own


async def test_a_table_lock_held_elsewhere_is_a_quick_503_and_play_goes_on_once_it_goes(tmp_path: Path) -> None:
    async with served("postgresql", tmp_path) as server:
        async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
            players = [_Player(t, token, [server.port]) for t, token in await _tables_on(http, server.port, 3)]
            tasks = [asyncio.create_task(p.play()) for p in players]
            outsider = await asyncpg.connect(server.url.replace("+asyncpg", ""))  # a person at psql, say
            try:
                await _wait(lambda: all(p.acked >= 2 for p in players), "every table to play", 60)
                await outsider.execute("BEGIN")
                await outsider.execute("LOCK TABLE games, actions IN ACCESS EXCLUSIVE MODE")
                locked_at, at_lock = time.monotonic(), {p.table: p.acked for p in players}

                asked = time.monotonic()
                body = {"player": "Zed", "timers": TIMERS}
                made = await http.post(f"http://127.0.0.1:{server.port}/api/tables", json=body)
                took = time.monotonic() - asked
                assert made.status_code == 503 and made.json()["error"]["reason"] == "server/storage", made.text
                assert took < ANSWERED_WITHIN, took
                await asyncio.sleep(ANSWERED_WITHIN)  # the tables try to write meanwhile
                assert all(p.unanswered == 0 for p in players)  # every move had its answer (a refusal)
                assert (await http.get(f"http://127.0.0.1:{server.port}/healthz")).status_code == 503
                assert all(p.acked <= at_lock[p.table] + 1 for p in players)  # (one may have been committing)

                await outsider.execute("ROLLBACK")
                released_at = time.monotonic()
                await _wait(lambda: all(p.acked >= at_lock[p.table] + 3 for p in players), "play to go on", 15)
                back = max(next(t for t in p.acked_at if t > released_at) - released_at for p in players)
                made = await http.post(f"http://127.0.0.1:{server.port}/api/tables", json=body)
                assert made.status_code == 200, made.text
                assert (await http.get(f"http://127.0.0.1:{server.port}/healthz")).status_code == 200
            finally:
                for p in players:
                    p.stop = True
                await asyncio.gather(*tasks, return_exceptions=True)
                await outsider.close()
        stored = await _human_actions(server.url)
        for p in players:
            assert p.acked <= stored.get(p.table, 0) <= p.acked + p.unanswered, (p.table, p.acked, p.unanswered)
        await _gapless(server.url)
    print(
        f"\none process, games and actions locked by another session for {released_at - locked_at:.1f} s: a new "
        f"table refused 503 in {took:.1f} s, every move answered; play went on {back:.1f} s after the lock went"
    )
