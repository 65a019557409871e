"""``sparrow serve``: run the server under uvicorn."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from server.cli.arguments import whole_number

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` sub-command."""
    parser = sub.add_parser("serve", help="run the Sparrow server", description="Run the Sparrow server.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    port = whole_number(0, 65535, "a port number")
    parser.add_argument("--port", type=port, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--db",
        default=None,
        help="database URL, e.g. postgresql+asyncpg://user@host/sparrow (default: $SPARROW_DB, else "
        "SQLite in ./data/sparrow.db); 'memory' keeps nothing",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another origin (e.g. https://club.example) whose pages may open sockets; repeatable",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    import uvicorn

    from server.app import create_app
    from server.collector import tame
    from server.wire import UVICORN_OPTIONS
    from server.ws import SocketConfig

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.db != "memory":
        from server.cli.db import check_database

        problem = check_database(args.db)
        if problem:
            print(f"sparrow serve: {problem}", file=sys.stderr)
            return 2
    app = create_app(socket_config=SocketConfig(allowed_origins=tuple(args.allow_origin)), db=args.db)
    print(f"Sparrow is serving on http://{args.host}:{args.port}  (Ctrl+C stops it)", flush=True)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", lifespan="on", **UVICORN_OPTIONS)
    server = uvicorn.Server(config)

    async def main() -> None:
        collector = asyncio.create_task(tame())
        try:
            await server.serve()
        finally:
            collector.cancel()

    try:
        with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
            runner.run(main())
    except KeyboardInterrupt:  # Ctrl+C: uvicorn has shut down (journal closed) and passed the signal on
        pass
    return 0
