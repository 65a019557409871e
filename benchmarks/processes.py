"""One server process against two, on PostgreSQL and Redis, carrying the same tables.

Runs `sparrow loadtest` (in this process) against fresh servers started with ``--redis``: all the
tables in one process; half in each of two; and half in each of two with every socket connected to
the other process, which forwards it (``--cross``). Round after round, so that a slow minute of a
shared machine falls on each alike. Prints each setup's CPU per intent (all its server processes),
latency and intents per second.

    python benchmarks/processes.py --tables 300 --seconds 30 --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Any

from protocols import LATENCY_COLUMNS, figures, latency_cells, servers
from rich.console import Console
from rich.table import Table

from server.loadtest.driver import Options, loadtest

SETUPS = {"1 process": (1, False), "2 processes": (2, False), "2 processes, sockets forwarded": (2, True)}


async def _run(processes: int, cross: bool, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    async with servers("as shipped", processes, workdir, cluster=True) as served:
        urls = [f"ws://127.0.0.1:{port}/ws" for port in served.ports]
        options = Options(
            url=urls[0], urls=urls, cross=cross, tables=args.tables, think=args.think, duration=args.seconds
        )
        report = await loadtest(options)
    return figures(report)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=300, help="tables in all (default 300)")
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each action (default 1)")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds of play per run (default 30)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of every setup (default 2)")
    args = parser.parse_args()
    console = Console(stderr=True)
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in SETUPS}
    workdir = Path(tempfile.mkdtemp(prefix="sparrow-processes-"))
    try:
        for round_ in range(args.rounds):
            for name, (processes, cross) in SETUPS.items():
                console.print(f"round {round_ + 1}/{args.rounds}: {name} …")
                results[name].append(await _run(processes, cross, args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    table = Table(title=f"{args.tables} tables in all, think {args.think:g} s, {args.seconds:g} s of play a run")
    for column in ("setup", "CPU ms / intent", "each process's CPU %", *LATENCY_COLUMNS):
        table.add_column(column, justify="right")
    for name, runs in results.items():
        table.add_row(
            name,
            " / ".join(f"{r['cpu_ms_per_intent']:.2f}" for r in runs),
            " / ".join("+".join(f"{c:.0f}" for c in r["per_process_cpu"]) for r in runs),
            *latency_cells(runs),
        )
    Console(width=200).print(table)


if __name__ == "__main__":
    asyncio.run(main())
