"""In-process cost of running live tables: server CPU per game action (engine, journal, building and
diffing the four seats' documents, encoding frames) and the objects the collector tracks per table.

No sockets and no real time: tables run on a fake clock, every seat is a person who lets the
timers act for them (the turn timer discards the drawn tile, the claim timer passes), and each
connection's queue is drained as it fills. This isolates the table actor from uvicorn and the
network; `sparrow loadtest` measures the whole server.

    python benchmarks/tables.py [--tables 200] [--seconds 120]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time

from server.lobby import Lobby
from server.tables.clock import FakeClock
from server.tables.connection import Connection
from server.tables.journal import MemoryJournal
from server.tables.messages import Attach, Join, Start


async def _table(lobby: Lobby) -> tuple[object, list[Connection]]:
    owner = await lobby.create({"name": "Bench", "player": "Ann", "timers": {"turn": 3, "claim": 1, "ready": 3}})
    actor = lobby.get(str(owner["table"]))
    tokens = [str(owner["token"])]
    for name in ("Bob", "Cy", "Di"):
        joined = await actor.ask(Join(name))
        assert isinstance(joined, dict)
        tokens.append(str(joined["token"]))
    conns = []
    for token in tokens:
        conn = Connection(None)
        await actor.ask(Attach(conn, token))
        conns.append(conn)
    await actor.ask(Start(tokens[0]))
    return actor, conns


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=120, help="fake seconds to play")
    args = parser.parse_args()
    clock = FakeClock()
    lobby = Lobby(clock=clock, journal=MemoryJournal())
    gc.collect()
    before = len(gc.get_objects())
    tables = [await _table(lobby) for _ in range(args.tables)]
    actors = [a for a, _ in tables]
    conns = [c for _, cs in tables for c in cs]

    async def settle() -> None:
        for _ in range(1000):
            await asyncio.gather(*(a.inbox.join() for a in actors))  # type: ignore[attr-defined]
            if clock.advance(0) == 0 and all(a.inbox.empty() for a in actors):  # type: ignore[attr-defined]
                return

    def drain() -> tuple[int, int]:
        frames = size = 0
        for c in conns:
            while not c.queue.empty():
                frame = c.queue.get_nowait()
                if frame is not None:
                    frames += 1
                    size += len(frame.encode())
        return frames, size

    await settle()
    drain()
    journal = lobby.journal
    assert isinstance(journal, MemoryJournal)
    actions0 = len(journal.records)
    frames = size = 0
    gc_time = 0.0

    def on_gc(phase: str, info: dict[str, int]) -> None:
        nonlocal gc_time, gc_start
        if phase == "start":
            gc_start = time.perf_counter()
        else:
            gc_time += time.perf_counter() - gc_start

    gc_start = 0.0
    gc.callbacks.append(on_gc)
    cpu = time.process_time()
    for _ in range(args.seconds):
        clock.advance(1)
        await settle()
        f, s = drain()
        frames, size = frames + f, size + s
    cpu = time.process_time() - cpu
    gc.callbacks.remove(on_gc)
    actions = len(journal.records) - actions0
    gc.collect()
    tracked = len(gc.get_objects()) - before
    print(f"tables {args.tables}, actions {actions}, frames {frames}")
    print(f"CPU per action       {cpu / actions * 1000:.3f} ms (of which gc {gc_time / actions * 1000:.3f} ms)")
    print(f"mean frame           {size / frames:.0f} B")
    print(f"gc-tracked per table {tracked / args.tables:,.0f} objects")


if __name__ == "__main__":
    asyncio.run(main())
