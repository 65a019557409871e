"""A rolling restart under play: ``--tables`` tables (a person and three bots each) on ``--processes``
`sparrow serve --redis` processes on PostgreSQL, each process stopped with SIGTERM and started again
in turn (server/cluster/handover.py), while a page per seat and one per spectator play and watch, as
static/js/protocol.js does (tests/server/rollkit.py). Prints what the players noticed: moves refused
or never answered, sockets closed under a page, the longest silence of each table (the gap between two
updates its pages saw) and the p99 of every gap, how long each restart took, and the load average.

The pages run in a process of their own: the one that stops and starts the servers holds its event
loop for a moment each time it forks one, which its pages would count as silence.

    python benchmarks/rolling.py --tables 30 --processes 3
    python benchmarks/rolling.py --tree /path/to/an/earlier/checkout    # the servers of another tree
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "server"))

from dbkit import REDIS, fresh_database  # noqa: E402
from processkit import ServerProcess, free_port  # noqa: E402
from rollkit import Page, Restart, every_table_plays, figures, open_table  # noqa: E402


async def pages() -> None:
    """The pages' process: play the tables its first line on standard input names, and answer the
    next lines (``plays N``: once every table has N more moves; ``stop {restarts, since}``: the figures)."""
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    config = json.loads(await reader.readline())
    tables, ports = config["tables"], config["ports"]
    assert isinstance(tables, list) and isinstance(ports, list)
    pages = []
    for i, (table, token) in enumerate(tables):  # as tests/server/test_cluster_rolling.py seats them
        seat, watcher = (i + i % 2) % len(ports), (i + 1 + i % 2) % len(ports)
        pages += [Page(table, token, ports[seat:] + ports[:seat]), Page(table, None, ports[watcher:] + ports[:watcher])]
    tasks = [asyncio.create_task(page.run()) for page in pages]
    while line := (await reader.readline()).decode():
        command, _, rest = line.strip().partition(" ")
        if command == "plays":
            await every_table_plays(pages, int(rest), timeout=120)
            print(json.dumps({"now": time.monotonic()}), flush=True)
        elif command == "stop":
            for page in pages:
                page.stop = True
            await asyncio.gather(*tasks, return_exceptions=True)
            said = json.loads(rest)
            restarts = [Restart(**r) for r in said["restarts"]]
            seen = figures(pages, restarts, said["since"])
            lines = seen.lines()
            for _, _, table, seat in seen.worst[:2]:  # what happened to the sockets of the longest silences
                page = next(p for p in pages if p.table == table and (p.token is not None) == seat)
                events = [f"{at - said['since']:.1f} s {what}" for at, what in page.events if at >= said["since"]]
                lines.append(f"  {table} ({'seat' if seat else 'spectator'}): " + "; ".join(events))
            print(json.dumps({"lines": lines}), flush=True)
            return


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=30, help="tables in all (default 30)")
    parser.add_argument("--processes", type=int, default=3, help="server processes (default 3)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree of the servers (default: this one)")
    parser.add_argument("--pages", action="store_true", help=argparse.SUPPRESS)  # the pages' process
    args = parser.parse_args()
    if args.pages:
        await pages()
        return
    with tempfile.TemporaryDirectory(prefix="sparrow-rolling-") as tmp:
        workdir = Path(tmp)
        async with fresh_database("postgresql", workdir) as url:
            code = f"import sys; sys.path.insert(0, {str(args.tree)!r}); from server.cli import main; "
            program = [sys.executable, "-c", code + "sys.exit(main(sys.argv[1:]))"]
            servers = [
                ServerProcess(url, free_port(), workdir, log=f"server{i}.log", program=program)
                for i in range(args.processes)
            ]
            try:
                await asyncio.gather(*(s.start("--redis", REDIS) for s in servers))
                ports = [s.port for s in servers]
                tables = [await open_table(ports[i % len(ports)], f"P{i}") for i in range(args.tables)]
                child = await asyncio.create_subprocess_exec(
                    sys.executable, __file__, "--pages", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
                )
                assert child.stdin is not None and child.stdout is not None

                async def say(line: str) -> dict[str, object]:
                    assert child.stdin is not None and child.stdout is not None
                    child.stdin.write(line.encode() + b"\n")
                    await child.stdin.drain()
                    answer: dict[str, object] = json.loads(await child.stdout.readline())
                    return answer

                child.stdin.write(json.dumps({"tables": tables, "ports": ports}).encode() + b"\n")
                since = (await say("plays 3"))["now"]
                restarts = []
                for server in servers:
                    assert server.proc is not None
                    began = time.monotonic()
                    server.proc.send_signal(15)
                    status = await asyncio.to_thread(server.proc.wait, 120)
                    stopped = time.monotonic() - began
                    await server.start("--redis", REDIS)
                    restarts.append(Restart(server.port, status, stopped, time.monotonic() - began, began))
                    await say("plays 2")
                said = await say("stop " + json.dumps({"restarts": [r.__dict__ for r in restarts], "since": since}))
                await child.wait()
                print("\n".join(str(line) for line in said["lines"]))  # type: ignore[union-attr]
                print(f"servers of {args.tree}")
                for i in range(args.processes):
                    for line in (workdir / f"server{i}.log").read_text().splitlines():
                        if "stopping" in line:
                            print(f"  server {i}: {line.split('WARNING ', 1)[-1]}")
            finally:
                for server in servers:
                    server.stop()


if __name__ == "__main__":
    asyncio.run(main())
