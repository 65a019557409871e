"""Several server processes on a distant PostgreSQL: a latency proxy (the tests' own,
tests/server/proxykit.py) adds a delay to every round trip to the database; for each latency asked
for, fresh processes start behind it (each one's start timed, /healthz answering), `sparrow
loadtest` plays tables spread over them, and the run reports the acknowledgements' latency, the
lease takeovers (how far the tables' lease tokens rose: a token rises each time a table changes
owner), the round trips, and what the processes logged. docs/deploy.md ("A distant database") has
its figures.

    python benchmarks/distant_database.py --latency-ms 0,200,500 --tables 12 --seconds 40
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "server"))

import asyncpg  # noqa: E402
from dbkit import PG_ADMIN, REDIS  # noqa: E402  (the tests' kits)
from processkit import ServerProcess, free_port  # noqa: E402
from proxykit import TcpProxy  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

SPARROW = [sys.executable, "-m", "server.cli"]
LOGGED = {  # what the processes' logs are searched for
    "renewals behind": "the leases cannot be renewed in time",
    "renewals in time again": "the leases are renewed in time again",
    "tables taken over": "cluster: took over table",
    "tables lost": "is no longer this process's",
    "tracebacks": "Traceback (most recent call last)",
}


async def _tokens(url: str) -> dict[str, int]:
    """Each table's lease token, read straight from the database (not through the proxy)."""
    connection = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        return {r["table_id"]: r["token"] for r in await connection.fetch("SELECT table_id, token FROM table_leases")}
    finally:
        await connection.close()


async def _loadtest(ports: list[int], args: argparse.Namespace) -> dict[str, Any]:
    urls = [part for port in ports for part in ("--url", f"ws://127.0.0.1:{port}/ws")]
    command = [*SPARROW, "loadtest", *urls, "--tables", str(args.tables), "--think", str(args.think)]
    command += ["--duration", str(args.seconds), "--json"]
    proc = await asyncio.create_subprocess_exec(*command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await proc.communicate()
    if proc.returncode != 0:
        return {"error": (err or out).decode()[-1500:]}
    report: dict[str, Any] = json.loads(out)
    return report


async def _run(latency_ms: float, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    name = f"sparrow_distant_{os.getpid()}_{time.monotonic_ns()}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    folder = workdir / f"{latency_ms:g}ms"
    folder.mkdir()
    try:
        async with TcpProxy("127.0.0.1", 5432) as proxy:
            proxy.latency = latency_ms / 1000
            far = make_url(url).set(port=proxy.port).render_as_string(hide_password=False)
            servers = [ServerProcess(far, free_port(), folder, log=f"server{i}.log") for i in range(args.processes)]
            starts: list[float] = []
            try:
                for server in servers:  # one after another: the first one also makes the schema
                    began = time.monotonic()
                    await server.start("--redis", REDIS)
                    starts.append(time.monotonic() - began)
                trips = proxy.round_trips
                report = await _loadtest([s.port for s in servers], args)
                trips = proxy.round_trips - trips
                tokens = await _tokens(url)
            finally:
                for server in servers:
                    server.stop()
        logs = "".join(server.log.read_text(errors="replace") for server in servers)
        answers = report.get("answer_ms", {})
        return {
            "latency_ms": latency_ms,
            "start_s": [round(s, 1) for s in starts],
            "tables_made": len(tokens),
            "takeovers": sum(token - 1 for token in tokens.values()),
            "highest_token": max(tokens.values(), default=0),
            "intents": report.get("intents"),
            "setup_s": report.get("setup_seconds"),
            "ack_ms": {k: answers.get(k) for k in ("p50", "p90", "p99", "max")},
            "round_trips_in_play": trips,
            "refusals": report.get("errors", {}).get("refusal_reasons"),
            "logged": {what: logs.count(line) for what, line in LOGGED.items()},
            "loadtest_error": report.get("error"),
            "logs": str(folder),
        }
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency-ms", default="0,200", help="latencies added per round trip, in turn (default 0,200)")
    parser.add_argument("--processes", type=int, default=3, help="server processes (default 3)")
    parser.add_argument("--tables", type=int, default=12, help="tables in all (default 12)")
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each action (default 1)")
    parser.add_argument("--seconds", type=float, default=40.0, help="seconds of play per latency (default 40)")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="sparrow-distant-"))
    for latency in (float(x) for x in args.latency_ms.split(",")):
        print(json.dumps(await _run(latency, args, workdir)), flush=True)
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
