"""``sparrow loadtest``: many live tables played by real WebSocket clients against a running server.

It creates N tables over the HTTP API, seats four people at each, starts them, opens four sockets per
table (all in this one asyncio process) and plays until every table has played H hands (or for a
given time). It reports the latency from an intent to all four seats holding its update, the frames
and bytes received, and the CPU and memory of the server (when its process can be found) and of
itself: on a small machine the client competes with the server for the same cores. The client itself
is the package `server.loadtest`.
"""

from __future__ import annotations

import argparse
import json

from rich.console import Console

from server.cli.arguments import whole_number
from server.cli.commands import summary
from server.loadtest.client import LoadError
from server.loadtest.driver import DEFAULT_TIMERS, Options, loadtest
from server.loadtest.report import print_report

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``loadtest`` sub-command."""
    p = sub.add_parser(
        "loadtest",
        help=summary("loadtest"),
        description="Create N tables on a running server, seat four socket clients at each, play H hands "
        "and report latency (intent → all four seats updated), frames, bytes and CPU.",
    )
    p.add_argument("--tables", type=whole_number(1, 5000), default=10, metavar="N", help="tables (default 10)")
    p.add_argument(
        "--url",
        action="append",
        default=None,
        help="the server's socket URL (default ws://127.0.0.1:8765/ws); repeat it for several processes of one "
        "club (sparrow serve --redis): tables go round them, each made through the process that runs it, "
        "and the report has each process's figures",
    )
    p.add_argument(
        "--cross",
        action="store_true",
        help="with several --url: each table's sockets connect to the next process, which forwards them",
    )
    p.add_argument("--hands", type=whole_number(1), default=None, metavar="H", help="hands per table (default 1)")
    p.add_argument("--think", type=float, default=1.0, metavar="S", help="seconds before each action (default 1)")
    p.add_argument(
        "--ramp",
        type=float,
        default=None,
        metavar="S",
        help="spread the tables' first moves evenly over S seconds (default: the think time)",
    )
    p.add_argument("--duration", type=float, default=None, metavar="S", help="stop after S seconds of play")
    p.add_argument("--server-pid", type=int, default=None, help="the server's PID (default: whoever listens)")
    p.add_argument("--no-compression", action="store_true", help="do not offer permessage-deflate")
    p.add_argument("--timers", default=DEFAULT_TIMERS, help=f"the tables' timers as JSON (default {DEFAULT_TIMERS})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the load test and print its report."""
    console = Console(stderr=True)
    urls = args.url or ["ws://127.0.0.1:8765/ws"]
    options = Options(
        url=urls[0],
        urls=urls,
        cross=args.cross,
        tables=args.tables,
        hands=args.hands,
        think=max(0.0, args.think),
        ramp=None if args.ramp is None else max(0.0, args.ramp),
        duration=args.duration,
        server_pid=args.server_pid,
        compression=None if args.no_compression else "deflate",
        timers=json.loads(args.timers),
        progress=console.is_terminal,
    )
    try:
        import uvloop

        report = uvloop.run(loadtest(options, console))
    except LoadError as exc:
        console.print(f"[red]loadtest: {exc}[/red]")
        return 1
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0
