"""What uvicorn's protocols cost at the load one process carries, against their alternatives and
against an earlier revision of the server.

The server runs uvicorn's h11 (HTTP) and wsproto (WebSocket) protocols, chosen because a connection of
theirs that is gone is freed at once by reference counting (server/wire.py). The variants:

- ``as shipped``;
- ``websockets-sansio``: uvicorn's other WebSocket protocol (faster framing; each connection left in a
  reference cycle for the collector);
- ``httptools``: uvicorn's other HTTP protocol (faster parsing; the same cycle after every upgrade);
- ``--before REV``: the server at git revision REV, checked out into a temporary work tree (for
  instance the last revision with the hand-framed WebSocket and the frozen collector).

Each variant runs the same load test (`sparrow loadtest`, in this process) against fresh servers, in
turn, round after round, so that a slow minute of a shared machine falls on every variant alike. It
prints each variant's server CPU per intent (all server processes, their journal writers included),
latency, the garbage collector's pauses during the test (a server that reports them), and the ratio
of CPU per intent to the server as shipped in the same round.

With ``--count-objects`` each server also counts, at the start of every collection, the objects it is
about to walk (the generations it collects, from the youngest), and the most objects it tracks at once
during the load test: figures that do not depend on the machine's speed, where the pauses do.
Counting walks the heap, so such a run's CPU and pauses are not comparable with one without it.

    python benchmarks/protocols.py                                    # one process, SQLite
    python benchmarks/protocols.py --tables 400 --before c3ac6e4      # against that revision too
    python benchmarks/protocols.py --processes 2 --tables 250         # two processes, PostgreSQL + Redis
    python benchmarks/protocols.py --tables 400 --before 6aa6345 --variants "as shipped" --count-objects
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import asyncpg
import httpx
from rich.console import Console
from rich.table import Table

from server.loadtest.driver import Options, loadtest
from server.rates.policy import LOAD_FLAGS

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS = "redis://127.0.0.1:6379/0"

# How each variant starts `sparrow serve`: what it changes before the server reads it.
VARIANTS: dict[str, list[str]] = {
    "as shipped": [],
    "websockets-sansio": [
        "import server.wire as w; w.UVICORN_OPTIONS = {**w.UVICORN_OPTIONS, 'ws': 'websockets-sansio'}"
    ],
    "httptools": ["import server.wire as w; w.UVICORN_OPTIONS = {**w.UVICORN_OPTIONS, 'http': 'httptools'}"],
}
LONG_PAUSE = 0.05  # seconds: a collection longer than this is counted

# With --count-objects, run in each server before it starts (and so before the server's own hook):
# at the start of each collection, how many objects it is about to walk; every second, how many
# objects are tracked (the frozen ones not counted); both written each second to the file named by
# SPARROW_GC_COUNTS.
COUNT_OBJECTS = """
import gc, json, os, threading, time
_passes, _tracked = [], []
def _count(phase, info):
    if phase == 'start':
        g = info['generation']
        _passes.append((time.time(), g, sum(len(gc.get_objects(i)) for i in range(g + 1))))
def _write(path=os.environ['SPARROW_GC_COUNTS']):
    while True:
        time.sleep(1)
        _tracked.append((time.time(), len(gc.get_objects())))
        with open(path + '.tmp', 'w') as f:
            json.dump({'passes': _passes[:], 'tracked': _tracked[:]}, f)
        os.replace(path + '.tmp', path)
gc.callbacks.insert(0, _count)
threading.Thread(target=_write, daemon=True).start()
"""


def _read(path: Path) -> str:
    """The text of ``path``; empty if there is none."""
    return path.read_text() if path.exists() else ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Served(NamedTuple):
    """The servers of one run: their ports, and the ports of their metrics."""

    ports: list[int]
    metrics: list[int]


@contextlib.asynccontextmanager
async def servers(
    variant: str,
    processes: int,
    workdir: Path,
    *,
    cluster: bool = False,
    tree: Path | None = None,
    count_objects: bool = False,
) -> AsyncIterator[Served]:
    """``processes`` servers of ``variant`` (or of the source in ``tree``) on a fresh database (SQLite
    for one, unless ``cluster``; PostgreSQL and Redis otherwise); with ``count_objects``, each writes
    its collector's counts (`COUNT_OBJECTS`) to ``counts-PORT.json`` in ``workdir``."""
    admin = None
    name = f"sparrow_bench_{os.getpid()}_{time.monotonic_ns()}"
    if processes == 1 and not cluster:
        db, extra = f"sqlite+aiosqlite:///{workdir / name}.db", []
    else:
        admin = await asyncpg.connect(PG_ADMIN)
        await admin.execute(f'CREATE DATABASE "{name}"')
        db, extra = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}", ["--redis", REDIS]
    first = [f"import sys; sys.path.insert(0, {str(tree)!r})"] if tree is not None else VARIANTS[variant]
    if count_objects:
        first = [*first, COUNT_OBJECTS]
    code = "\n".join([*first, "import sys\nfrom server.cli import main\nsys.exit(main(sys.argv[1:]))"])
    ports = [_free_port() for _ in range(processes)]
    metrics = [_free_port() for _ in range(processes)]
    procs = []
    try:
        for port, metrics_port in zip(ports, metrics, strict=True):
            env = {
                **os.environ,
                "SPARROW_DATA": str(workdir),
                "SPARROW_GC_COUNTS": str(workdir / f"counts-{port}.json"),
            }
            command = [sys.executable, "-c", code, "serve", "--port", str(port), "--db", db, "--club-mode", "open"]
            if tree is None or "LOAD_FLAGS" in _read(tree / "server/rates/policy.py"):  # (an earlier one may not)
                command += LOAD_FLAGS  # every request comes from this one address
            command += ["--metrics-port", str(metrics_port)]
            log = open(workdir / f"{variant.replace(' ', '-')}-{port}.log", "ab")  # noqa: SIM115 (the child keeps it)
            procs.append(subprocess.Popen([*command, *extra], stdout=log, stderr=log, env=env))
        async with httpx.AsyncClient(trust_env=False) as http:
            for port, proc in zip(ports, procs, strict=True):
                for _ in range(600):
                    if proc.poll() is not None:
                        log_text = (workdir / f"{variant.replace(' ', '-')}-{port}.log").read_text()
                        raise RuntimeError(f"the {variant!r} server stopped at start:\n{log_text[-2000:]}")
                    with contextlib.suppress(httpx.TransportError):
                        if (await http.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200:
                            break
                    await asyncio.sleep(0.05)
        yield Served(ports, metrics)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=60)
        if admin is not None:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await admin.close()


async def _run(variant: str, args: argparse.Namespace, workdir: Path, tree: Path | None) -> dict[str, Any]:
    async with servers(variant, args.processes, workdir, tree=tree, count_objects=args.count_objects) as served:
        urls = [f"ws://127.0.0.1:{port}/ws" for port in served.ports]
        options = Options(
            url=urls[0], urls=urls, tables=args.tables * args.processes, think=args.think, duration=args.seconds
        )
        before = await gc_pauses(served.metrics)
        began = time.time()
        result = figures(await loadtest(options))
        ended = time.time()
        after = await gc_pauses(served.metrics)
        if before is not None and after is not None:
            result["pauses"] = after[0] - before[0]
            result["long_pauses"] = after[1] - before[1]
        if args.count_objects:
            await asyncio.sleep(1.5)  # the servers' next write of their counts
            result["objects"] = object_counts([workdir / f"counts-{port}.json" for port in served.ports], began, ended)
        return result


def object_counts(paths: list[Path], began: float, ended: float) -> dict[str, Any]:
    """From the servers' counts (`COUNT_OBJECTS`) during the load test: for each generation, the most
    objects a collection of it walked, the 99th percentile and the number of collections; and the most
    objects tracked at once (all servers together)."""
    walked: dict[int, list[int]] = {0: [], 1: [], 2: []}
    tracked = 0
    for path in paths:
        counts = json.loads(path.read_text())
        for at, generation, objects in counts["passes"]:
            if began <= at <= ended:
                walked[generation].append(objects)
        tracked += max((n for at, n in counts["tracked"] if began <= at <= ended), default=0)
    for sizes in walked.values():
        sizes.sort()
    return {
        "tracked": tracked,
        "walked": [(s[-1], s[int(len(s) * 0.99)], len(s)) if s else (0, 0, 0) for s in walked.values()],
    }


async def gc_pauses(ports: list[int]) -> tuple[float, float] | None:
    """How many collections the servers have made, and how many of them paused longer than
    `LONG_PAUSE` (from ``sparrow_gc_pause_seconds``); None from a server that does not report them."""
    count = within = 0.0
    async with httpx.AsyncClient(trust_env=False) as http:
        for port in ports:
            text = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
            found = False
            for line in text.splitlines():
                if line.startswith("sparrow_gc_pause_seconds_count"):
                    count += float(line.rsplit(" ", 1)[1])
                    found = True
                elif line.startswith("sparrow_gc_pause_seconds_bucket") and f'le="{LONG_PAUSE}"' in line:
                    within += float(line.rsplit(" ", 1)[1])
            if not found:
                return None
    return count, count - within


@contextlib.contextmanager
def worktree(revision: str, workdir: Path) -> Iterator[Path]:
    """The repository at ``revision``, checked out into a temporary work tree."""
    tree = workdir / f"tree-{revision}"
    repository = Path(__file__).resolve().parent.parent
    subprocess.run(["git", "-C", str(repository), "worktree", "add", "--detach", str(tree), revision], check=True)
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", str(repository), "worktree", "remove", "--force", str(tree)], check=False)


def figures(report: dict[str, Any]) -> dict[str, Any]:
    """What a load test's report says of the servers: CPU per intent (every server process, their
    journal writers included), each process's CPU, latency, intents per second, the machine's probe."""
    each = report.get("processes") or []
    if each:
        cpu = sum(p["cpu_percent"] or 0 for p in each) / 100 * report["play_seconds"]
    else:
        server = report["server"] or {}
        cpu = (server.get("cpu_percent", 0) + server.get("helpers_cpu_percent", 0)) / 100 * report["play_seconds"]
    return {
        "cpu_ms_per_intent": 1000 * cpu / max(report["intents"], 1),
        "per_process_cpu": [p["cpu_percent"] for p in each] or [round(100 * cpu / report["play_seconds"], 1)],
        "p50": report["latency_ms"]["p50"],
        "p99": report["latency_ms"]["p99"],
        "intents_per_second": report["intents"] / report["play_seconds"],
        "probe": report["machine"]["probe_seconds"],
    }


LATENCY_COLUMNS = ("p50 ms", "p99 ms", "intents/s", "probe s")


def latency_cells(runs: list[dict[str, Any]]) -> list[str]:
    """The `LATENCY_COLUMNS` of some runs, each run's figure in turn."""
    return [
        " / ".join(f"{r['p50']}" for r in runs),
        " / ".join(f"{r['p99']}" for r in runs),
        " / ".join(f"{r['intents_per_second']:.0f}" for r in runs),
        " / ".join(f"{r['probe']}" for r in runs),
    ]


OBJECT_COLUMNS = ("objects walked: young max (p99)", "middle max (p99, passes)", "oldest max (passes)", "most tracked")


def object_cells(runs: list[dict[str, Any]]) -> list[str]:
    """The `OBJECT_COLUMNS` of some runs, each run's figure in turn."""
    walked = [r["objects"]["walked"] for r in runs]
    return [
        " / ".join(f"{w[0][0]:,} ({w[0][1]:,})" for w in walked),
        " / ".join(f"{w[1][0]:,} ({w[1][1]:,}, {w[1][2]})" for w in walked),
        " / ".join(f"{w[2][0]:,} ({w[2][2]})" for w in walked),
        " / ".join(f"{r['objects']['tracked']:,}" for r in runs),
    ]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=1, choices=(1, 2), help="server processes (2: PostgreSQL)")
    parser.add_argument("--tables", type=int, default=250, help="tables per process (default 250)")
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each action (default 1)")
    parser.add_argument("--seconds", type=float, default=40.0, help="seconds of play per run (default 40)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of every variant (default 2)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated, of: " + ", ".join(VARIANTS))
    parser.add_argument("--before", metavar="REV", help="also run the server at git revision REV")
    parser.add_argument(
        "--count-objects", action="store_true", help="count the objects each collection walks (slows the servers)"
    )
    args = parser.parse_args()
    variants = [v.strip() for v in args.variants.split(",")]
    console = Console(stderr=True)
    workdir = Path(tempfile.mkdtemp(prefix="sparrow-protocols-"))
    try:
        with contextlib.ExitStack() as stack:
            trees: dict[str, Path | None] = {v: None for v in variants}
            if args.before:
                trees[f"at {args.before}"] = stack.enter_context(worktree(args.before, workdir))
            variants = list(trees)
            results: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
            for round_ in range(args.rounds):
                for variant, tree in trees.items():
                    console.print(f"round {round_ + 1}/{args.rounds}: {variant} …")
                    results[variant].append(await _run(variant, args, workdir, tree))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    shipped = results[variants[0]]
    table = Table(
        title=f"{args.processes} process(es) × {args.tables} tables, think {args.think:g} s, "
        f"{args.seconds:g} s of play, {args.rounds} rounds (ratios: to {variants[0]!r} in the same round)"
    )
    for column in (
        "variant",
        "server CPU ms / intent",
        "ratio",
        *LATENCY_COLUMNS,
        f"GC pauses (> {LONG_PAUSE * 1000:g} ms)",
        *(OBJECT_COLUMNS if args.count_objects else ()),
    ):
        table.add_column(column, justify="right")
    for variant in variants:
        runs = results[variant]
        ratios = [r["cpu_ms_per_intent"] / s["cpu_ms_per_intent"] for r, s in zip(runs, shipped, strict=True)]
        table.add_row(
            variant,
            " / ".join(f"{r['cpu_ms_per_intent']:.3f}" for r in runs),
            f"{statistics.mean(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})",
            *latency_cells(runs),
            " / ".join(f"{r['pauses']:.0f} ({r['long_pauses']:.0f})" if "pauses" in r else "—" for r in runs),
            *(object_cells(runs) if args.count_objects else ()),
        )
    Console(width=200).print(table)


if __name__ == "__main__":
    asyncio.run(main())
