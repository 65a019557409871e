"""Processes that reach one PostgreSQL database through different URLs (another host name, or a TCP
proxy on another port, as a pooler would be) form one cluster: the tables made through either play
through the other, forwarded, and every process lists them all (server/cluster/identity.py). Skipped
where PostgreSQL or Redis does not answer on 127.0.0.1 (CI has both).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from clubkit import club_server
from clusterkit import plays, started_table
from dbkit import REDIS, fresh_database, redis_or_skip
from livekit import within
from proxykit import TcpProxy

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("reached_by", ["host name", "proxy"])
async def test_processes_reaching_one_database_through_different_urls_form_one_cluster(
    tmp_path: Path, reached_by: str
) -> None:
    await redis_or_skip()
    # (bounded well inside pytest's own timeout, so that a hang fails with the line it hung on)
    async with asyncio.timeout(120), fresh_database("postgresql", tmp_path) as url:
        async with TcpProxy("127.0.0.1", 5432) as proxy:
            if reached_by == "host name":
                other = url.replace("@127.0.0.1:5432/", "@localhost:5432/")
            else:
                other = url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")
            assert other != url
            async with (
                club_server(url, mode="open", redis=REDIS) as one,
                club_server(other, mode="open", redis=REDIS) as two,
            ):
                tables = {}
                for here, there in ((one, two), (two, one)):
                    table, token = await started_table(here)  # runs in `here`
                    client = await there.attach(table, token)  # forwarded from `there`
                    await plays(client, 3)
                    tables[table] = token
                for live in (one, two):  # every process lists every table (each says which it runs)
                    deadline = time.monotonic() + within(5)
                    while True:
                        listed = {t["id"] for t in (await live.http.get("/api/tables")).json()["tables"]}
                        if set(tables) <= listed or time.monotonic() > deadline:
                            break
                        await asyncio.sleep(0.1)
                    assert set(tables) <= listed, f"the lobby of :{live.port} lists {listed}, not {set(tables)}"
