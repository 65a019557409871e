"""A database far away: a TCP proxy that adds a latency to every round trip (half each way), for
`sparrow loadtest` against processes whose ``--db`` URL names it (docs/benchmarks.md, "A distant
database"). It is the tests' proxy (tests/server/proxykit.py); on Ctrl+C it prints how many round
trips crossed it.

    python benchmarks/latency_proxy.py --port 15432 --to 127.0.0.1:5432 --latency-ms 50
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "server"))

from proxykit import TcpProxy  # noqa: E402  (the tests' kit)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=15432, help="where it listens on 127.0.0.1 (default 15432)")
    parser.add_argument("--to", default="127.0.0.1:5432", help="HOST:PORT it forwards to (default 127.0.0.1:5432)")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="added to every round trip (default 50)")
    args = parser.parse_args()
    host, _, port = args.to.rpartition(":")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with TcpProxy(host, int(port), port=args.port) as proxy:
        proxy.latency = args.latency_ms / 1000
        print(f"127.0.0.1:{proxy.port} → {args.to}, +{args.latency_ms:g} ms per round trip", flush=True)
        await stop.wait()
        print(f"{proxy.round_trips} round trips crossed", flush=True)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
