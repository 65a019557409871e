"""Test kit for restarts under play: pages whose socket follows their table, as static/js/protocol.js
keeps it. Told to ``reconnect`` (the server process it reached is stopping), a page opens another
socket, switches to it once it has its snapshot and closes the old one once that has answered what was
sent on it; a socket that closes is opened again at once. Each page counts what a player would notice:
moves refused or never answered, reconnections after a close, and the longest silence (the gap between
two updates of the table while it plays).

``ports`` stands for the address of the club: a socket goes to the first of them that takes it (a
stopped process takes none), as behind a proxy or ``--workers``' one port.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
from livekit import TIMEOUT, Frame, LiveClient, hurried_move, within
from processkit import ServerProcess
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

ANSWER_WITHIN = 10.0  # seconds a move's answer may take before it counts as never answered
PING_EVERY = 20.0  # seconds between a page's pings (a browser's: 25 s; the server closes sockets silent for 75 s)
LIVELY = {"bot_delay": 0.2, "claim": 120, "turn": 600, "ready": None}  # bots keep the tables moving


class _Socket(LiveClient):
    """One socket of a page: it notes when each update arrives while it is the page's socket, and keeps
    no frame once read (a page plays for minutes: thousands of states kept would make the test's own
    collector pause for seconds, which its pages would take for silences)."""

    def __init__(self, ws: Any, page: Page) -> None:
        self.page = page
        self.reconnect = False  # the server said so
        self.frames = 0
        super().__init__(ws)

    def _take(self, raw: str) -> None:
        super()._take(raw)
        self.frames += 1
        tag = self.received.pop().frame.get("t")
        if tag == "reconnect":
            self.reconnect = True
        elif tag in ("snapshot", "diff") and self.page.socket is self:
            self.page.updated(time.monotonic())

    def mark(self) -> int:
        return self.frames


@dataclass
class Page:
    """One page at ``table``: a seat's (``token``: it plays hurried moves) or a spectator's."""

    table: str
    token: str | None
    ports: list[int]
    socket: _Socket | None = None
    acked: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # by reason
    unanswered: int = 0
    refusals: list[tuple[Frame, dict[str, Any], float]] = field(default_factory=list)  # refusal, move, when
    sockets: int = 0  # opened (and said hello)
    moves: int = 0  # switched to a new socket when told to
    closes: list[tuple[int, str, str]] = field(default_factory=list)  # sockets closed under the page: code,
    # reason, what the page was doing
    updates: list[float] = field(default_factory=list)  # (monotonic) when each update came, while playing
    events: list[tuple[float, str]] = field(default_factory=list)  # (monotonic) what happened to its sockets
    over: bool = False  # the game ended: silence no longer counts
    stop: bool = False
    doing: str = ""

    def updated(self, at: float) -> None:
        if not self.over:
            self.updates.append(at)

    def silences(self, since: float = 0.0) -> list[tuple[float, float]]:
        """The gaps between consecutive updates (those from ``since``, monotonic), each with when it began."""
        times = [t for t in self.updates if t >= since]
        return [(b - a, a) for a, b in zip(times, times[1:], strict=False)]

    async def _open(self) -> _Socket | None:
        """A socket through the first port that takes it, that said hello and has its snapshot (None
        once the page is stopped)."""
        while not self.stop:
            for port in list(self.ports):
                with contextlib.suppress(OSError, WebSocketException, TimeoutError):
                    ws = await connect(f"ws://127.0.0.1:{port}/ws", open_timeout=3, proxy=None)
                    sock = _Socket(ws, self)
                    try:
                        await sock.hello(self.table, self.token)
                    except AssertionError:  # refused (table/moving: 1012), or closed under it
                        await sock.close()
                        continue
                    self.sockets += 1
                    self.events.append((time.monotonic(), f"socket through :{port}"))
                    return sock
            await asyncio.sleep(0.05)  # every process refused: one is starting
        return None

    async def run(self) -> None:
        """Play (or watch) until stopped, following the table wherever it runs."""
        while not self.stop:
            self.doing = "connecting"
            sock = await self._open()
            if sock is None:
                return
            self.socket = sock
            self.updated(time.monotonic())
            try:
                await self._follow(sock)
            except (AssertionError, WebSocketException) as exc:  # closed under it
                sock = self.socket  # (the page's socket now: it may have moved since)
                self.events.append((time.monotonic(), f"{exc}"[:120]))
                if sock.close_code is not None:
                    rcvd = sock.ws.protocol.close_rcvd
                    self.closes.append((sock.close_code, "" if rcvd is None else rcvd.reason, self.doing))
                self.doing = f"{exc}"[:200]
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.socket.close(), 2)

    async def _follow(self, sock: _Socket) -> None:
        seen, pinged = 0, time.monotonic()
        while not self.stop:
            if time.monotonic() - pinged > PING_EVERY:
                await sock.send("ping")
                pinged = time.monotonic()
            await sock.wait_for(lambda s=sock, n=seen: self.stop or s.mark() > n or s.reconnect, "a frame", TIMEOUT)
            seen = sock.mark()
            if sock.state is not None and sock.state["table"]["status"] == "over":
                self.over = True
            if sock.reconnect:
                sock = await self._move(sock)
                seen, pinged = 0, time.monotonic()
                continue
            move = hurried_move(sock) if self.token is not None and sock.state is not None else None
            if move is None:
                continue
            self.doing = f"playing {move}"
            try:
                answer = await sock.act(move, timeout=ANSWER_WITHIN)
            except AssertionError:
                self.unanswered += 1
                raise
            if answer["t"] == "ack":
                self.acked += 1
            else:
                self.refused[answer["d"]["reason"]] += 1
                self.refusals.append((answer["d"], move, time.monotonic()))
                # What refused it may already show (the next decision may be this seat's): look again at
                # the next frame, or in a moment.
                mark = sock.mark()
                with contextlib.suppress(AssertionError):
                    await sock.wait_for(lambda s=sock, m=mark: s.mark() > m or s.reconnect, "the next frame", 0.5)

    async def _move(self, old: _Socket) -> _Socket:
        """Open another socket, switch to it once it has its snapshot, and let the old one go (it has
        nothing left unanswered: the page awaits each move's answer before it looks at anything else)."""
        self.doing = "moving"
        self.events.append((time.monotonic(), "told to move"))
        new = await self._open()
        if new is None:  # (stopped)
            return old
        self.socket = new
        self.updated(time.monotonic())
        self.moves += 1
        with contextlib.suppress(Exception):
            await asyncio.wait_for(old.close(), 2)
        return new


async def open_table(port: int, player: str, timers: dict[str, Any] = LIVELY) -> tuple[str, str]:
    """A started table made through the process on ``port``: a person at seat 0, three easy bots; its id
    and seat 0's token."""
    async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
        base = f"http://127.0.0.1:{port}/api/tables"
        body = {"player": player, "timers": timers, "overrides": {"claim_pause": False}}
        made = (await http.post(base, json=body)).json()
        table, token = made["table"], made["token"]
        added = await http.post(f"{base}/{table}/bots", json={"token": token, "level": "easy"})
        assert added.status_code == 200, added.text
        started = await http.post(f"{base}/{table}/start", json={"token": token})
        assert started.json() == {"started": True}, started.text
    return table, token


@dataclass
class Restart:
    """One process restarted: seconds from SIGTERM until it ended, and until it served again."""

    port: int
    status: int
    stopped: float
    serving: float
    began: float  # (monotonic) when it was sent SIGTERM


async def restart_in_turn(servers: list[ServerProcess], pages: list[Page], *extra: str) -> list[Restart]:
    """SIGTERM each of ``servers`` in turn, wait until it has ended, start it again (with ``extra``) and
    wait until every table has moved on before the next."""
    done = []
    for server in servers:
        assert server.proc is not None
        began = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        status = await asyncio.to_thread(server.proc.wait, within(60))  # (waited for in a thread)
        stopped = time.monotonic() - began
        await server.start(*extra)
        done.append(Restart(server.port, status, stopped, time.monotonic() - began, began))
        await every_table_plays(pages, 2)
    return done


async def every_table_plays(pages: list[Page], moves: int, timeout: float = 60) -> None:
    """Wait until the seat of every table has ``moves`` more moves acknowledged than now."""
    players = [p for p in pages if p.token is not None and not p.over]
    target = {id(p): p.acked + moves for p in players}
    deadline = time.monotonic() + within(timeout)
    while not all(p.acked >= target[id(p)] or p.over for p in players):
        behind = [(p.table, p.acked, p.doing) for p in players if p.acked < target[id(p)]]
        assert time.monotonic() < deadline, f"tables did not move on within {within(timeout):g} s: {behind}"
        await asyncio.sleep(0.1)  # the pages play in their own tasks: nothing here to await but time


@dataclass
class Figures:
    """What the players noticed through a run."""

    tables: int
    acked: int
    refused: Counter[str]  # by reason, late passes apart
    late_passes: int  # passes refused as too late: a bot's claim had closed the window (the page shows nothing)
    unanswered: int
    closes: list[tuple[int, str, str]]
    moves: int
    longest: dict[str, float]  # the longest silence of each table (any of its pages)
    p99: float  # of every gap between two updates, every page
    worst: list[tuple[float, float, str, bool]]  # the longest gaps: seconds, when (after ``since``), table, a seat's
    restarts: list[Restart]
    load: tuple[float, float, float]
    since: float = 0.0

    def lines(self) -> list[str]:
        longest = sorted(self.longest.values())
        restarts = ", ".join(f"{r.stopped:.1f} s (serving again after {r.serving:.1f} s)" for r in self.restarts)
        return [
            f"{self.tables} tables, {len(self.restarts)} processes restarted in turn: {restarts}",
            f"moves acknowledged {self.acked}, refused {sum(self.refused.values())} {dict(self.refused)} (and "
            f"{self.late_passes} late passes), never answered {self.unanswered}; "
            f"sockets closed under a page {len(self.closes)} {self.closes}; "
            f"pages moved to another process when told {self.moves}",
            f"longest silence per table: max {longest[-1]:.2f} s, median {longest[len(longest) // 2]:.2f} s; "
            f"p99 of every gap between updates {self.p99:.2f} s",
            "the longest gaps (seconds, when after the first restart, table, whose page): "
            + ", ".join(
                f"{g:.2f} s at {at:.1f} s ({t}, {'seat' if seat else 'spectator'})" for g, at, t, seat in self.worst
            ),
            "restarts (seconds after the first): "
            + ", ".join(
                f"stopped at {r.began - self.since:.1f}, serving at {r.began + r.serving - self.since:.1f}"
                for r in self.restarts
            ),
            "load average (1, 5, 15 min): " + " ".join(f"{x:.2f}" for x in self.load),
        ]


def figures(pages: list[Page], restarts: list[Restart], since: float) -> Figures:
    """The figures of ``pages`` from ``since`` (monotonic) on."""
    longest: dict[str, float] = {}
    every: list[tuple[float, float, str, bool]] = []
    for page in pages:
        mine = page.silences(since)
        every += [(gap, at - since, page.table, page.token is not None) for gap, at in mine]
        longest[page.table] = max([longest.get(page.table, 0.0), *(gap for gap, _ in mine)])
    every.sort(reverse=True)
    gaps = sorted(gap for gap, _, _, _ in every)
    refused: Counter[str] = Counter()
    late = 0
    for page in pages:
        for refusal, move, _ in page.refusals:
            if refusal["reason"] == "window/stale" and move["type"] == "pass":
                late += 1  # (a race of ordinary play: the client answered after a bot's claim closed the window)
            else:
                refused[refusal["reason"]] += 1
    return Figures(
        tables=len(longest),
        acked=sum(p.acked for p in pages),
        refused=refused,
        late_passes=late,
        unanswered=sum(p.unanswered for p in pages),
        closes=[code for p in pages for code in p.closes],
        moves=sum(p.moves for p in pages),
        longest=longest,
        p99=gaps[int(0.99 * (len(gaps) - 1))] if gaps else 0.0,
        worst=every[:5],
        restarts=restarts,
        load=os.getloadavg(),
        since=since,
    )
