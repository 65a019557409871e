"""Test kit for several server processes in the test's event loop (server/cluster): a started table,
and a seat that plays through a socket."""

from __future__ import annotations

from livekit import QUIET_TIMERS, LiveClient, LiveServer, hurried_move


async def started_table(live: LiveServer) -> tuple[str, str]:
    """A table made through ``live``: seat 0 a person, three bots, started; its id and seat 0's token."""
    seat = await live.create("Ann", timers=QUIET_TIMERS, overrides={"claim_pause": False})
    table, token = seat["table"], seat["token"]
    assert (await live.post(f"/api/tables/{table}/bots", {"token": token, "level": "easy"})).status_code == 200
    await live.start(table, token)
    return table, token


async def plays(client: LiveClient, moves: int) -> None:
    """The seat of ``client`` makes ``moves`` moves, each acknowledged."""
    acked = 0
    while acked < moves:
        move = hurried_move(client)
        if move is None:
            mark = client.mark()
            await client.wait_for(lambda m=mark: client.mark() > m, "the next frame")
            continue
        mark = client.mark()
        answer = await client.act(move)
        if answer["t"] == "refused" and answer["d"]["reason"] == "window/stale":  # a bot moved first
            await client.wait_for(lambda m=mark: client.mark() > m, "the next frame")
            continue
        assert answer["t"] == "ack", answer
        acked += 1
