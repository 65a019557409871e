"""Several server processes on one PostgreSQL database and one Redis (server/cluster): any process
serves any table; a process killed with kill -9 has its tables taken over by the others, which
resume each at its last acknowledged action; a process that lost a table can no longer write to it
(a fencing token); and several processes are refused on SQLite. Skipped where PostgreSQL or Redis
does not answer on 127.0.0.1 (CI has both).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from dbkit import REDIS, discard_record, fresh_database, journal_on, redis_or_skip
from livekit import TIMEOUT, LiveClient, hurried_move, within
from processkit import SPARROW, ServerProcess, free_port
from sqlalchemy import text
from tablekit import Kit
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from server.cluster.leases import TTL, Leases
from server.store.journal import StaleOwner
from server.store.session import make_engine
from server.tables.errors import TableError
from server.tables.journal import StoredTable
from server.tables.settings import TableSettings

pytestmark = pytest.mark.asyncio

TIMERS = {"bot_delay": 0, "claim": 120, "turn": 600, "ready": None}  # no deadline fires during a test
ANSWER_WITHIN = 5.0  # seconds a live player waits for a move's answer before it reconnects, as a page would
TAKEOVER = TTL + 5.0  # a dead process's tables run elsewhere this soon after it died (lease, then 5 s)


# ------------------------------------------------------------------------------------ refusals
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--workers", "2", "--db", "sqlite:///{tmp}/s.db"], "--workers 2 needs PostgreSQL: SQLite is one process's"),
        (["--redis", REDIS, "--db", "sqlite:///{tmp}/s.db"], "--redis needs PostgreSQL"),
        (["--workers", "2", "--db", "postgresql://127.0.0.1/x"], "--workers 2 needs --redis"),
    ],
)
async def test_several_processes_are_refused_without_postgresql_and_redis(
    tmp_path: Path, args: list[str], says: str
) -> None:
    command = [*SPARROW, "serve", "--port", str(free_port()), *(a.format(tmp=tmp_path) for a in args)]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=within(60), env={"SPARROW_DATA": str(tmp_path)}
    )
    assert done.returncode == 2
    assert says in done.stderr
    assert not (tmp_path / "s.db").exists()  # refused before anything was created


# ------------------------------------------------------------------------------------ fencing
async def test_a_write_from_a_process_that_lost_the_table_is_refused_and_the_rest_of_its_batch_lands(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with journal_on("postgresql", tmp_path) as (old, engine):
        settings = TableSettings.from_json({"name": "fenced"})
        first, second = (StoredTable(f"fenced00000{i}", settings, i, 1_000.0) for i in (1, 2))
        leases_old, leases_new = Leases(engine, "old"), Leases(engine, "new")
        for table in (first, second):
            token = await leases_old.take(table.id)
            assert token == 1
            old.tokens[table.id] = token
            await old.table_created(table)
        await old.record(discard_record(first.id, 1))
        assert await leases_new.take(first.id) is None  # held: nobody else may take it

        # The old owner stops renewing (it hangs); its lease runs out and another process takes it.
        await leases_old.release([first.id])
        # a table let go is not taken back by a renewal, even one that names it
        assert await leases_old.renew([first.id, second.id]) == {second.id}
        assert await leases_new.take(first.id) == 2
        new = type(old)(engine)
        new.tokens[first.id] = 2
        stale: list[str] = []
        old.on_stale = stale.append

        # One batch: the stale write fails alone; the other table's write, still held, lands.
        with caplog.at_level(logging.INFO):
            results = await asyncio.gather(
                old.record(discard_record(first.id, 2)),
                old.record(discard_record(second.id, 1)),
                return_exceptions=True,
            )
        assert isinstance(results[0], StaleOwner) and results[1] is None
        assert stale == [first.id]
        # said in one warning line, without a traceback (nor a line about the batch it was in)
        assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("WARNING", _refused(first.id, 1))]
        assert not any(r.exc_info for r in caplog.records)
        await new.record(discard_record(first.id, 2))  # the new owner goes on from the last action
        async with engine.connect() as connection:
            rows = (await connection.execute(text("SELECT game_id, seq FROM actions ORDER BY game_id, seq"))).all()
        assert [tuple(r) for r in rows] == [(first.id, 1), (first.id, 2), (second.id, 1)]
        await new.close()


async def test_a_table_whose_process_lost_it_logs_one_line_per_refused_write_and_no_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with journal_on("postgresql", tmp_path) as (journal, engine):
        kit = Kit(journal)
        actor, clients = await kit.table(humans=4)  # (nothing moves but what they do)
        leases_old, leases_new = Leases(engine, "old"), Leases(engine, "new")
        journal.tokens[actor.id] = await leases_old.take(actor.id)
        # The process hangs; its lease runs out (let go here), and another process takes the table over.
        await leases_old.release([actor.id])
        assert await leases_new.take(actor.id) == 2
        mover = next(c for c in clients if c.legal)
        with caplog.at_level(logging.DEBUG):
            caplog.clear()
            move = mover.act(mover.legal[0])
            await kit.settle(actor)
            said = clients[0].chat("still there?")
            await kit.settle(actor)
            mover.pump()
            clients[0].pump()
            with pytest.raises(TableError) as closing:  # an admin closes it: the table is elsewhere now
                await kit.lobby.close_table(actor.id)
        # Each refused write is refused to its maker (nothing changed, as far as this process goes) …
        assert mover.answers[move]["d"]["reason"] == "server/storage"
        assert clients[0].answers[said]["d"]["reason"] == "server/storage"
        assert closing.value.reason == "table/moving"  # (the admin's page asks again, reaching the new owner)
        # … and said in one warning line each: which table, the token this process held, who has it now.
        warned = [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
        assert warned == [("WARNING", _refused(actor.id, 1))] * 3
        assert not [r for r in caplog.records if r.exc_info], "a traceback for a refused write"
        await kit.lobby.close()


def _refused(table: str, held: int) -> str:
    """The line a process logs for a write refused as another process's table's."""
    held_by = f"this process held lease token {held}"
    return f"table {table}: another process has taken it over ({held_by}); this write is refused"


# ----------------------------------------------------------------------------- live processes
@dataclass
class _Player:
    """The person at seat 0 of one table (three bots play the rest), through whichever process."""

    table: str
    token: str
    ports: list[int]  # where it may connect, tried in turn
    acked: int = 0  # actions the server acknowledged
    unanswered: int = 0  # actions whose answer never came (the socket closed first): stored or not
    acked_at: list[float] = field(default_factory=list)
    answered_in: list[float] = field(default_factory=list)  # seconds from each acknowledged move to its ack
    connections: int = 0
    dropped: int = 0  # times its socket was refused or closed under it
    stop: bool = False
    paused: bool = False  # it makes no move meanwhile, but keeps its socket (and reconnects, if it closes)
    answer_within: float = ANSWER_WITHIN  # seconds it waits for a move's answer before it gives the socket up
    doing: str = ""  # what it is doing now, and why it last reconnected (for a failure's message)

    async def play(self) -> None:
        for port in itertools.cycle(self.ports):
            if self.stop:
                return
            if port not in self.ports:  # the process was killed
                continue
            self.doing = f"connecting to :{port}"
            try:
                client = LiveClient(await connect(f"ws://127.0.0.1:{port}/ws", open_timeout=3))
            except (OSError, WebSocketException, TimeoutError):
                await asyncio.sleep(0.3)
                continue
            try:
                self.doing = f"hello at :{port}"
                await client.hello(self.table, self.token)
                self.connections += 1
                self.doing = f"playing at :{port}"
                await self._moves(client)
            except (AssertionError, WebSocketException) as exc:  # closed under it (1012, or its process died)
                self.dropped += 1
                self.doing = f"{exc} at :{port}"[:200]
                await asyncio.sleep(0.3)
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(client.close(), 2)

    async def _moves(self, client: LiveClient) -> None:
        while not self.stop:
            if self.paused:
                assert client.close_code is None, f"socket closed ({client.close_code}) while paused"
                await asyncio.sleep(0.05)
                continue
            move = hurried_move(client)
            if move is None:
                mark = client.mark()
                await client.wait_for(lambda m=mark: client.mark() > m or self.stop, "a frame", timeout=30)
                continue
            sent = time.monotonic()
            try:
                answer = await client.act(move, timeout=self.answer_within)
            except AssertionError:
                self.unanswered += 1
                raise
            if answer["t"] == "ack":
                self.acked += 1
                self.acked_at.append(time.monotonic())
                self.answered_in.append(self.acked_at[-1] - sent)
            else:
                await asyncio.sleep(0.05)  # refused (rate, a stale window): look again at the next frame


@contextlib.asynccontextmanager
async def _cluster(tmp_path: Path, count: int, redis: str = REDIS) -> AsyncIterator[tuple[str, list[ServerProcess]]]:
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url:
        servers = [ServerProcess(url, free_port(), tmp_path, log=f"server{i}.log") for i in range(count)]
        try:
            await asyncio.gather(*(s.start("--redis", redis) for s in servers))
            yield url, servers
        finally:
            for server in servers:
                server.stop()


async def _open_table(http: httpx.AsyncClient, port: int, player: str) -> tuple[str, str]:
    base = f"http://127.0.0.1:{port}/api/tables"
    body = {"player": player, "timers": TIMERS, "overrides": {"claim_pause": False}}
    made = (await http.post(base, json=body)).json()
    table, token = made["table"], made["token"]
    assert (await http.post(f"{base}/{table}/bots", json={"token": token, "level": "easy"})).status_code == 200
    assert (await http.post(f"{base}/{table}/start", json={"token": token})).json() == {"started": True}
    return table, token


async def _wait(predicate: object, what: str, timeout: float) -> None:
    """Poll ``predicate`` until it holds; ``timeout`` is what an idle machine needs, with `within`'s room."""
    deadline = time.monotonic() + within(timeout)
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out after {within(timeout):g} s waiting for {what}"
        await asyncio.sleep(0.1)


async def _stop(players: list[_Player], tasks: list[asyncio.Task[None]]) -> None:
    """Stop every player, and wait until its task (and any other of ``tasks``) has ended."""
    for p in players:
        p.stop = True
    await asyncio.gather(*tasks, return_exceptions=True)


async def _each_plays(players: list[_Player], moves: int, timeout: float) -> None:
    """Wait until every player has ``moves`` more acknowledged moves than now; on a timeout, say which
    tables are behind and what their players were doing."""
    target = {p.table: p.acked + moves for p in players}
    try:
        await _wait(lambda: all(p.acked >= target[p.table] for p in players), "every table", timeout)
    except AssertionError as exc:
        behind = [(p.table, p.acked, p.doing) for p in players if p.acked < target[p.table]]
        raise AssertionError(f"{exc}: {behind}") from None


async def _human_actions(url: str) -> dict[str, int]:
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            sql = "SELECT game_id, count(*) FROM actions WHERE seat = 0 AND auto IS NULL GROUP BY game_id"
            return {table: n for table, n in (await connection.execute(text(sql)))}
    finally:
        await engine.dispose()


async def _stored_as_acknowledged(url: str, players: list[_Player]) -> None:
    """Every action a player saw acknowledged is stored; besides, at most those left unanswered."""
    stored = await _human_actions(url)
    for p in players:
        assert p.acked <= stored.get(p.table, 0) <= p.acked + p.unanswered, (p.table, p.acked, p.unanswered)


async def test_three_processes_one_killed_every_table_resumes_elsewhere_with_nothing_acknowledged_lost(
    tmp_path: Path,
) -> None:
    async with _cluster(tmp_path, 3) as (url, servers):
        ports = [s.port for s in servers]
        victim, survivors = servers[0], ports[1:]
        players: list[_Player] = []
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            for i in range(30):  # made through each process in turn: each runs ten
                table, token = await _open_table(http, ports[i % 3], f"P{i}")
                # Half the people connect through another process than the table's.
                first = ports[(i + i % 2) % 3]
                players.append(_Player(table, token, [first, *(p for p in survivors if p != first)]))
            # The lobby list is the same in every process: each says every second which tables it runs.
            deadline = time.monotonic() + within(5)
            for port in ports:
                while {p.table for p in players} - {
                    t["id"] for t in (await http.get(f"http://127.0.0.1:{port}/api/tables")).json()["tables"]
                }:
                    assert time.monotonic() < deadline, f"the lobby list of :{port} lacks other processes' tables"
                    await asyncio.sleep(0.2)
        tasks = [asyncio.create_task(p.play()) for p in players]
        try:
            await _wait(lambda: all(p.acked >= 3 for p in players), "every table to play", 60)

            killed_at = time.monotonic()
            assert victim.signal(signal.SIGKILL) == -signal.SIGKILL
            for p in players:  # from now on nobody connects to the dead process
                p.ports = [port for port in p.ports if port != victim.port] or survivors
            at_kill = {p.table: p.acked for p in players}
            try:
                await _wait(lambda: all(p.acked >= at_kill[p.table] + 3 for p in players), "every table to resume", 60)
            except AssertionError as exc:
                behind = [(p.table, p.acked, p.connections, p.doing) for p in players if p.acked < at_kill[p.table] + 3]
                raise AssertionError(f"{exc}: {behind}") from None
            resumed = [next(t for t in p.acked_at if t > killed_at) - killed_at for p in players]
            assert max(resumed) < within(TAKEOVER + 3), f"the slowest table resumed {max(resumed):.1f} s after the kill"
        finally:
            await _stop(players, tasks)

        await _stored_as_acknowledged(url, players)
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            health = [(await http.get(f"http://127.0.0.1:{port}/healthz")).json() for port in survivors]
        assert sum(h["cluster"]["tables_here"] for h in health) == 30
        assert all(h["cluster"]["tables_here"] > 0 for h in health)  # the survivors shared the dead one's
        print(
            f"\n30 tables on 3 processes; one killed: every table resumed within {max(resumed):.1f} s "
            f"(median {sorted(resumed)[15]:.1f} s; lease {TTL:g} s)"
        )


async def test_the_load_test_spreads_its_tables_over_the_processes_and_reports_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from server.loadtest.driver import Options, loadtest
    from server.loadtest.report import print_report

    async with _cluster(tmp_path, 2) as (_, servers):
        urls = [f"ws://127.0.0.1:{s.port}/ws" for s in servers]
        # --cross: every socket goes through the other process, which forwards it
        options = Options(url=urls[0], urls=urls, cross=True, tables=24, hands=1, think=0)
        report = await asyncio.wait_for(loadtest(options), within(120))
    assert report["tables_finished"] == 24 and report["errors"]["disconnects"] == 0
    each = report["processes"]
    assert [p["url"] for p in each] == urls and [p["sockets_from"] for p in each] == urls[::-1]
    assert all(p["intents"] > 0 and p["latency_ms"]["count"] > 0 for p in each)
    assert sum(p["intents"] for p in each) == report["intents"]
    assert all(p["cpu_ms_per_intent"] is not None and p["cpu_ms_per_intent"] > 0 for p in each)
    capsys.readouterr()
    print_report(report)
    printed = capsys.readouterr().out
    assert "each server process" in printed and "PID not found" not in printed


async def test_a_process_that_stalls_past_its_leases_loses_its_tables_and_never_writes_to_them_again(
    tmp_path: Path,
) -> None:
    async with _cluster(tmp_path, 2) as (url, (stalled, other)):  # stalled runs every table
        players: list[_Player] = []
        lively = {**TIMERS, "bot_delay": 0.2, "claim": 1, "turn": 3}  # the tables keep writing by themselves
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            for i in range(6):
                base = f"http://127.0.0.1:{stalled.port}/api/tables"
                body = {"player": f"P{i}", "timers": lively, "overrides": {"claim_pause": False}}
                made = (await http.post(base, json=body)).json()
                await http.post(f"{base}/{made['table']}/bots", json={"token": made["token"], "level": "easy"})
                await http.post(f"{base}/{made['table']}/start", json={"token": made["token"]})
                players.append(_Player(made["table"], made["token"], [other.port]))  # forwarded to the runner
        tasks = [asyncio.create_task(p.play()) for p in players]
        try:
            await _wait(lambda: all(p.acked >= 2 for p in players), "every table to play", 60)
            assert stalled.proc is not None
            stalled.proc.send_signal(signal.SIGSTOP)  # hung: it neither renews nor writes, but believes it runs
            async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:

                async def running_on_other() -> int:
                    return int(
                        (await http.get(f"http://127.0.0.1:{other.port}/healthz")).json()["cluster"]["tables_here"]
                    )

                deadline = time.monotonic() + within(TAKEOVER + 5)
                while await running_on_other() < 6:
                    assert time.monotonic() < deadline, "the other process did not take the tables over"
                    await asyncio.sleep(0.2)
                at_takeover = {p.table: p.acked for p in players}
                stalled.proc.send_signal(signal.SIGCONT)  # it wakes with timers due and six tables it thinks its own
                await _wait(lambda: all(p.acked >= at_takeover[p.table] + 2 for p in players), "play to go on", 60)
                health = (await http.get(f"http://127.0.0.1:{stalled.port}/healthz")).json()
            assert health["cluster"]["tables_here"] == 0
        finally:
            await _stop(players, tasks)
        engine = make_engine(url)
        async with engine.connect() as connection:
            rows = await connection.execute(text("SELECT game_id, seq FROM actions ORDER BY game_id, seq"))
            seqs: dict[str, list[int]] = {}
            for table, seq in rows:
                seqs.setdefault(table, []).append(seq)
        await engine.dispose()
        assert all(found == list(range(1, len(found) + 1)) for found in seqs.values())  # one log each, no gap

    log = (tmp_path / "server0.log").read_text()
    # it learned that it lost them: from a refused write or its renewal (it stops here), or, when its first
    # renewal after waking failed too (a busy machine), it let them go before they could run out
    assert "it stops here" in log or "lets its tables go" in log, log
    assert "duplicate key" not in log and "IntegrityError" not in log


async def test_workers_serve_one_port_and_a_killed_worker_is_started_again(tmp_path: Path) -> None:
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url:
        server = ServerProcess(url, free_port(), tmp_path)
        await server.start("--redis", REDIS, "--workers", "2")
        try:
            async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
                base = f"http://127.0.0.1:{server.port}"

                async def workers_seen(tries: int = 60) -> set[str]:
                    seen = set()
                    for _ in range(tries):  # a new connection each time: the kernel picks a worker
                        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as fresh:
                            with contextlib.suppress(httpx.TransportError):
                                seen.add((await fresh.get(f"{base}/healthz")).json()["cluster"]["process"])
                    return seen

                deadline = time.monotonic() + within(30)
                first: set[str] = set()
                while len(first) < 2:  # each connection is new: the kernel picks a worker for it
                    assert time.monotonic() < deadline, f"only one worker answered: {first}"
                    first |= await workers_seen(20)
                made = (await http.post(f"{base}/api/tables", json={"player": "Ann", "timers": TIMERS})).json()
                victim = int(sorted(first)[0].split(":")[1])
                os.kill(victim, signal.SIGKILL)
                deadline = time.monotonic() + within(30)
                while not await workers_seen(20) - first:  # a new worker answers
                    assert time.monotonic() < deadline, "no worker took the dead one's place"
                    await asyncio.sleep(0.5)
                deadline = time.monotonic() + within(TAKEOVER + 5)
                while True:  # the table, wherever it runs now (503 while it moves from the dead worker)
                    async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as fresh:
                        shown = await fresh.get(f"{base}/api/tables/{made['table']}")
                    if shown.status_code == 200:
                        break
                    assert shown.status_code == 503 and time.monotonic() < deadline, shown.text
                    await asyncio.sleep(0.3)
                assert shown.json()["id"] == made["table"]
        finally:
            try:  # (waited for in a thread: the test's event loop keeps closing its own connections)
                status = await asyncio.to_thread(server.signal, signal.SIGTERM)
            finally:
                server.stop()
        assert status == 0
        log = (tmp_path / "server.log").read_text()
        assert "worker 0" in log or "worker 1" in log  # the restart was reported
        assert log.count("has no admin yet") == 1  # one first-admin link, not one per worker or restart
        assert log.count("Sparrow is serving on") == 1
        assert "Traceback" not in log


async def test_a_member_disabled_through_one_process_is_shut_out_of_the_others_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clubkit import ann_and_bob, browser, club_server, socket

    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url, club_server(url, redis=REDIS) as one:
        async with ann_and_bob(one, capsys) as (ann, bob_here):
            table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]  # runs in `one`
            async with club_server(url, redis=REDIS) as two, browser(two) as bob:
                bob.cookies = bob_here.cookies  # the same session, through the other process
                assert (await bob.get("/api/me")).json()["member"]["name"] == "Bob"
                client = await socket(two, bob)  # forwarded to `one`, which runs the table
                await client.hello(table, None)

                disabled = await ann.post("/api/club/members/2", json={"disabled": True})
                assert disabled.status_code == 200
                assert await client.closed() == 1008  # `one` closed his socket in `two`
                deadline = time.monotonic() + within(5)
                while (await bob.get("/api/me")).json()["member"] is not None:  # `two` read the club again
                    assert time.monotonic() < deadline, "the other process still lets a disabled member in"
                    await asyncio.sleep(0.2)
