"""``sparrow serve``: run the server under uvicorn."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import os
import secrets
import socket
import sys
from typing import TYPE_CHECKING, Any

import asyncpg
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine

from server import logs, metrics
from server.cli.arguments import whole_number
from server.cli.commands import summary
from server.rates.policy import LimitError, Limits

if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette

__all__ = ["register"]

log = logging.getLogger("sparrow.serve")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` sub-command."""
    parser = sub.add_parser("serve", help=summary("serve"), description="Run the Sparrow server.")
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
        "--public-url",
        action="append",
        default=[],
        metavar="URL",
        help="the address people open, e.g. https://club.example, if not the one served on (behind a proxy, "
        "or under a DNS name); only pages from it (and --allow-origin) may use the server; repeatable "
        "(default: $SPARROW_PUBLIC_URL, comma-separated)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another origin (e.g. https://club.example) whose pages may open sockets; repeatable",
    )
    parser.add_argument(
        "--club-mode",
        choices=["open", "members", "invite"],
        default=None,
        help="set who may come in, and store it (the admin page changes it later): open (anyone, under any "
        "free name), members (a new server's default), invite (members, and guests they invite to one table)",
    )
    parser.add_argument(
        "--log-format",
        choices=logs.FORMATS,
        default="text",
        help="how log lines are written to standard error: text (default), or json, one object per line "
        "(time, level, logger, message; table and seat on a table's lines)",
    )
    parser.add_argument(
        "--metrics-port",
        type=whole_number(0, 65535, "a port number"),
        default=None,
        metavar="PORT",
        help="serve Prometheus metrics at http://127.0.0.1:PORT/metrics, a listener of their own that only "
        "this machine reaches (default: no metrics)",
    )
    parser.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help="a Redis URL (redis://host:6379/0): run as one of several processes sharing the PostgreSQL --db; "
        "each table runs in one of them and the others forward to it (default: $SPARROW_REDIS, else none)",
    )
    parser.add_argument(
        "--workers",
        type=whole_number(1, 64, "a number of processes"),
        default=None,
        metavar="N",
        help="run N server processes on one port, sharing the PostgreSQL --db through --redis; a process that "
        "dies is started again and its tables are taken over by the others (default: one process)",
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help='change one limit per visitor (docs/protocol.md, "Limits"), e.g. sockets=40, requests=1200/minute, '
        "body-timeout=5; repeatable; names: " + ", ".join(Limits().to_json()),
    )
    parser.add_argument("--listen-fd", type=int, default=None, help=argparse.SUPPRESS)  # a worker's inherited port
    parser.add_argument("--no-admin-link", action="store_true", help=argparse.SUPPRESS)  # a worker but the first
    parser.add_argument("--ready-fd", type=int, default=None, help=argparse.SUPPRESS)  # a worker says it serves
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted. Before anything touches a table, the port is bound and the database
    locked (one server per database, lesson 18); either failing exits with status 2.
    """
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from server.app import create_app
    from server.club.club import ClubConfig
    from server.club.secret import load_secret
    from server.collector import settle, watch_pauses
    from server.heads import Heads, head_protocol
    from server.origins import OriginError, configured
    from server.startup import StartFault
    from server.stopping import Server
    from server.store.session import database_url, make_engine
    from server.wire import UVICORN_OPTIONS
    from server.ws import SocketConfig

    logs.configure(args.log_format)
    # Alembic tells of every migration it runs at INFO: a score of lines on a first start, above the
    # first-admin link (which must be the last thing a newcomer reads). Its warnings still show.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    public = args.public_url or [u for u in os.environ.get("SPARROW_PUBLIC_URL", "").split(",") if u.strip()]
    try:
        configured([*public, *args.allow_origin])
    except OriginError as exc:
        return _refuse(str(exc))
    try:
        url = None if args.db == "memory" else database_url(args.db)
    except ArgumentError:
        return _refuse(
            f"--db {args.db!r} is not a database URL such as sqlite:///data/sparrow.db or postgresql://host/db"
        )
    except StartFault as exc:  # (the data folder, for the default database, cannot be made)
        return _refuse(str(exc))
    try:
        limits = Limits().with_flags(args.limit)
    except LimitError as exc:
        return _refuse(str(exc))
    redis = args.redis or os.environ.get("SPARROW_REDIS") or None
    problem = _cluster_problem(url, redis, args.workers)
    if problem:
        return _refuse(problem)
    try:
        listener = _listen(args.host, args.port) if args.listen_fd is None else _inherited(args.listen_fd)
    except OSError as exc:
        return _refuse(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc} (is another server running?)")
    port = listener.getsockname()[1]
    if args.workers is not None:
        from server.cli.workers import refusal, supervise

        assert url is not None  # (`_cluster_problem`: PostgreSQL)
        try:  # refused here once, rather than by every worker
            load_secret()  # made once, here, so that every worker signs sessions with the same key
            problem = asyncio.run(refusal(url))
        except StartFault as exc:
            problem = str(exc)
        if problem:
            listener.close()
            return _refuse(problem)
        return supervise(listener, args, port)
    later = None  # a metrics port the worker this one replaces still holds (`--workers`, SIGHUP): taken once free
    try:
        metrics_server = None if args.metrics_port is None else metrics.serve(args.metrics_port)
    except OSError as exc:
        if args.ready_fd is None or exc.errno != errno.EADDRINUSE:
            listener.close()
            return _refuse(f"cannot serve metrics on 127.0.0.1:{args.metrics_port}: {exc.strerror or exc}")
        metrics_server, later = None, args.metrics_port
    served: list[metrics.MetricsServer] = [] if metrics_server is None else [metrics_server]
    socket_config = SocketConfig(allowed_origins=tuple(args.allow_origin), public_origins=tuple(public))
    base_url = public[0].rstrip("/") if public else f"http://{_display(_reachable(args.host))}:{port}"
    try:  # (without a database nothing signed outlives the process: no key is kept)
        secret = secrets.token_urlsafe(32) if url is None else load_secret()
    except StartFault as exc:
        listener.close()
        if metrics_server is not None:
            metrics_server.close()
        return _refuse(str(exc))
    club = ClubConfig(secret, mode=args.club_mode, base_url=base_url, announce=not args.no_admin_link)
    db = "memory" if url is None else make_engine(url)

    def ready() -> None:
        if args.listen_fd is None:  # (a worker's port is announced by the process that watches it)
            print(f"Sparrow is serving on http://{_display(args.host)}:{port}  (Ctrl+C stops it)", flush=True)
        settle()

    app = create_app(socket_config=socket_config, db=db, club=club, redis=redis, limits=limits, started=ready)
    # In JSON, uvicorn's own lines go through our handler (None: it leaves logging as it is).
    log_config = None if args.log_format == "json" else LOGGING_CONFIG
    # Each request head is held to --limit head-timeout and heads, as an admin has them now (server/heads.py).
    heads = Heads(lambda: app.state.rates.limits if hasattr(app.state, "rates") else limits)
    options = {**UVICORN_OPTIONS, "http": head_protocol(heads)}
    config = uvicorn.Config(
        app, host=args.host, port=port, log_level="warning", log_config=log_config, lifespan="on", **options
    )
    server = Server(config, app)  # (which hands the tables over to the other processes before it stops)
    # A start that failed on a fault of the disk or the database is said in one line (the app's
    # `start_fault`), without uvicorn's account of it (the traceback, "Application startup failed").
    logging.getLogger("uvicorn.error").addFilter(lambda _record: _fault(app) is None)

    async def main() -> int:
        from server.cli.db import check_database
        from server.cli.db import ready as at_head
        from server.startup import unusable
        from server.store.lock import DatabaseBusy, hold

        lock = None
        # Beside taking the lock, on PostgreSQL: a look at the schema that changes nothing, and the
        # engine's first connection (with the driver's first look at the database): a dozen round
        # trips, which a start would otherwise wait for one after another, from as far away as the
        # database is. (A SQLite file is not opened before it is locked.)
        early: list[asyncio.Future[Any]] = []
        if url is not None and not isinstance(db, str) and db.dialect.name == "postgresql":
            early = [asyncio.ensure_future(at_head(url)), asyncio.ensure_future(_connect(db))]
        try:
            if url is not None:
                try:
                    lock = await hold(url, shared=redis is not None)
                except (DatabaseBusy, StartFault) as exc:
                    return _refuse(str(exc))
                except (OSError, asyncpg.PostgresError) as exc:
                    return _refuse(unusable(exc))
                problem = None if early and await early[0] else await check_database(url)
                if problem:
                    return _refuse(problem)
            if not public and args.host in ("0.0.0.0", "::"):
                log.warning(
                    "serving on every address: pages are accepted from the address each visitor reached; "
                    "behind a proxy or a DNS name, pass --public-url"
                )
            if metrics_server is not None:
                print(f"Metrics are served on http://127.0.0.1:{metrics_server.port}/metrics", flush=True)
            watch_pauses()
            helpers: list[asyncio.Task[None]] = []
            lost: list[str] = []

            def lose(why: str) -> None:
                log.critical("%s: this server stops, so that no table runs in two servers", why)
                lost.append(why)
                server.should_exit = True

            if lock is not None:
                helpers.append(asyncio.create_task(lock.keep(lose)))
            if metrics_server is not None:
                helpers.append(asyncio.create_task(metrics.watch(lambda: getattr(app.state, "lobby", None))))
            if later is not None:
                helpers.append(asyncio.create_task(_metrics_once_free(later, served, app)))
            if args.ready_fd is not None:
                helpers.append(asyncio.create_task(_say_ready(server, args.ready_fd)))
            try:
                await server.serve(sockets=[listener])
            except SystemExit:  # uvicorn's, when the app could not start
                fault = _fault(app)
                if fault is None:
                    raise
                return _refuse(fault)
            finally:
                for helper in helpers:
                    helper.cancel()
            return 1 if lost else 0
        finally:
            for task in early:
                task.cancel()
            await asyncio.gather(*early, return_exceptions=True)
            if lock is not None:
                await lock.release()
            if not isinstance(db, str):
                await db.dispose()  # (once the app has, or when it never ran)

    try:
        with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
            return runner.run(main())
    except KeyboardInterrupt:  # Ctrl+C: uvicorn has shut down (journal closed) and passed the signal on
        return 0
    finally:
        listener.close()
        for metrics_listener in served:
            metrics_listener.close()


async def _metrics_once_free(port: int, served: list[metrics.MetricsServer], app: object) -> None:
    """Serve the metrics on ``port`` once the worker this one replaces has let it go."""
    while True:
        await asyncio.sleep(0.5)
        try:
            served.append(metrics.serve(port))
            break
        except OSError:
            continue
    await metrics.watch(lambda: getattr(getattr(app, "state", None), "lobby", None))


async def _say_ready(server: uvicorn.Server, fd: int) -> None:
    """Once ``server`` serves, write a byte to ``fd`` and close it: the process watching the workers
    (server/cli/workers.py) waits for it before it stops the worker this one replaces."""
    try:
        while not server.started:
            await asyncio.sleep(0.05)  # uvicorn offers no event for "started"
        os.write(fd, b"1")
    finally:
        os.close(fd)


async def _connect(engine: AsyncEngine) -> None:
    """Open the engine's first connection, and leave it in its pool (a failure is the lock's to say)."""
    with contextlib.suppress(Exception):
        async with engine.connect():
            pass


def _cluster_problem(url: str | None, redis: str | None, workers: int | None) -> str | None:
    """Why these options cannot run several processes, or None."""
    wanted = f"--workers {workers}" if workers is not None else "--redis"
    if workers is None and redis is None:
        return None
    if url is None or make_url(url).get_backend_name() != "postgresql":
        return (
            f"{wanted} needs PostgreSQL: SQLite is one process's database. Pass --db postgresql://host/db "
            "--redis redis://host:6379/0, or run one process without --workers"
        )
    if redis is None:
        return f"{wanted} needs --redis redis://host:6379/0 (or $SPARROW_REDIS): processes reach each other through it"
    return None


def _fault(app: Starlette) -> str | None:
    fault: str | None = getattr(app.state, "start_fault", None)
    return fault


def _refuse(problem: str) -> int:
    print(f"sparrow serve: {problem}", file=sys.stderr, flush=True)
    return 2


def _display(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _reachable(host: str) -> str:
    """An address a browser on this machine can open for a server listening on ``host``."""
    return {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)


def _inherited(fd: int) -> socket.socket:
    """The listening socket a worker was handed by ``sparrow serve --workers`` (server/cli/workers.py)."""
    sock = socket.socket(fileno=fd)
    sock.set_inheritable(False)
    return sock


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound now, so that a busy port stops the server before it restores a table.
    Not inherited: the journal's writer process must not hold the port (it would keep it busy after a
    crash, and pass for the server with whoever looks for the port's owner).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock
