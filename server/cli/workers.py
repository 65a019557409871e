"""``sparrow serve --workers N``: N server processes on one port, watched by this one.

This process binds the port and hands it to N ``sparrow serve --listen-fd`` processes (the kernel
spreads new connections over them). They share the PostgreSQL database and Redis (server/cluster),
so any of them serves any table. A worker that dies is started again, while the others take over
its tables; SIGTERM or Ctrl+C stops them all, each letting its tables go as it ends. A worker that
refuses to start (status 2: a busy or unreachable database, say) stops them all with its reason.
What would stop every worker (the secret key, the database: busy, out of reach, read-only, newer
than this Sparrow; the cluster's id) is looked at here first, and said once (`refusal`).

SIGHUP restarts the workers one at a time, each from the code on disk now (an upgrade): a new worker
is started beside the old one, and once it serves, the old one is stopped (SIGTERM), handing its
tables and sockets to the others while they play (server/cluster/handover.py); then the next.
"""

from __future__ import annotations

import argparse
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from types import FrameType

__all__ = ["supervise"]

RESTART_AFTER = 1.0  # seconds before a worker that died is started again
STOP_WAIT = 60.0  # seconds the workers have to stop once asked (each hands its tables over); then they are killed
START_WAIT = 180.0  # seconds a new worker has to serve before a restart (SIGHUP) gives up on it
log = logging.getLogger("sparrow.serve")


def _command(args: argparse.Namespace, fd: int, index: int, first: bool, ready: int | None = None) -> list[str]:
    """The ``sparrow serve`` command line of worker ``index``; ``first`` for its first start; ``ready``: a
    descriptor it writes to once it serves."""
    command = [sys.executable, "-m", "server.cli", "serve", "--host", args.host, "--port", str(args.port)]
    command += ["--listen-fd", str(fd), "--db", args.db or os.environ.get("SPARROW_DB", "")]
    command += ["--redis", args.redis or os.environ.get("SPARROW_REDIS", ""), "--log-format", args.log_format]
    for url in args.public_url:
        command += ["--public-url", url]
    for origin in args.allow_origin:
        command += ["--allow-origin", origin]
    if args.club_mode is not None:
        command += ["--club-mode", args.club_mode]
    for limit in args.limit:
        command += ["--limit", limit]
    if args.metrics_port is not None:  # each worker its own: P, P+1, …
        command += ["--metrics-port", str(args.metrics_port + index)]
    if index or not first:  # one first-admin link for the club, not one per worker and restart
        command.append("--no-admin-link")
    if ready is not None:
        command += ["--ready-fd", str(ready)]
    return command


async def refusal(url: str) -> str | None:
    """Why no worker could start on the PostgreSQL database at ``url``, in one line, or None: it is
    held by a server on its own, cannot be reached or written to, is newer than this Sparrow, or
    holds no cluster id. It is upgraded to this Sparrow's schema here, once."""
    from sqlalchemy.exc import SQLAlchemyError

    from server.cli.db import check_database
    from server.cluster.identity import cluster_prefix
    from server.startup import StartFault, unusable
    from server.store.lock import DatabaseBusy, hold
    from server.store.session import make_engine

    try:
        lock = await hold(url, shared=True)
    except DatabaseBusy as exc:
        return str(exc)
    except Exception as exc:  # (asyncpg's errors, OSError: out of reach)
        return unusable(exc)
    try:
        problem = await check_database(url)
        if problem:
            return problem
        engine = make_engine(url)
        try:
            await cluster_prefix(engine)
        except StartFault as exc:
            return str(exc)
        except (SQLAlchemyError, OSError) as exc:
            return unusable(exc)
        finally:
            await engine.dispose()
    finally:
        await lock.release()
    return None


def supervise(listener: socket.socket, args: argparse.Namespace, port: int) -> int:
    """Run ``args.workers`` workers on ``listener`` until told to stop; the exit status."""
    fd = listener.fileno()
    count: int = args.workers
    stopping: list[int] = []  # the signal that asked to stop
    restarting: list[int] = []  # SIGHUPs not yet acted on
    starting: list[subprocess.Popen[bytes]] = []  # a worker started to replace another, not yet serving

    def spawn(index: int, first: bool = False) -> subprocess.Popen[bytes]:
        # A session of its own: Ctrl+C reaches this process only, which passes it on once.
        return subprocess.Popen(_command(args, fd, index, first), pass_fds=(fd,), start_new_session=True)

    def stop(signum: int, _frame: FrameType | None) -> None:
        if not stopping:
            stopping.append(signum)
            for worker in [*workers, *starting]:
                if worker.poll() is None:
                    worker.send_signal(signal.SIGTERM)

    def restart(signum: int, _frame: FrameType | None) -> None:
        restarting.append(signum)

    def replace(index: int) -> bool:
        """Start a new worker ``index`` and, once it serves, stop the old one (it hands its tables over
        to the others); whether it was replaced."""
        old, began = workers[index], time.monotonic()
        read, write = os.pipe()
        try:
            command = _command(args, fd, index, False, ready=write)
            new = subprocess.Popen(command, pass_fds=(fd, write), start_new_session=True)
        finally:
            os.close(write)
        starting.append(new)
        try:
            served = _ready(read, new, lambda: bool(stopping))
        finally:
            os.close(read)
            starting.remove(new)
        if not served:
            if new.poll() is None:
                new.send_signal(signal.SIGTERM)
                _wait(new, STOP_WAIT)
            if not stopping:
                print(
                    f"sparrow serve: the new worker {index} did not start (status {new.returncode}); "
                    "the restart stops here and the workers still running go on",
                    file=sys.stderr,
                    flush=True,
                )
            return False
        workers[index] = new
        if old.poll() is None:
            old.send_signal(signal.SIGTERM)  # it hands its tables and sockets over to the others
            _wait(old, STOP_WAIT)
        print(
            f"sparrow serve: worker {index} restarted (pid {old.pid} -> {new.pid}) in {time.monotonic() - began:.1f} s",
            file=sys.stderr,
            flush=True,
        )
        return True

    workers = [spawn(i, first=True) for i in range(count)]
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, restart)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Sparrow is serving on http://{host}:{port} with {count} processes (Ctrl+C stops them)", flush=True)
    status = 0
    deadline: float | None = None  # once stopping: workers still running then are killed
    try:
        while any(worker.poll() is None for worker in workers) or not stopping:
            time.sleep(0.2)
            if stopping:
                deadline = deadline or time.monotonic() + STOP_WAIT
                if time.monotonic() > deadline:
                    for worker in workers:
                        if worker.poll() is None:
                            worker.kill()
                continue
            if restarting:
                restarting.clear()
                print(
                    f"sparrow serve: restarting the {count} workers one at a time (SIGHUP)", file=sys.stderr, flush=True
                )
                for index in range(count):
                    if stopping or (workers[index].poll() is None and not replace(index)):
                        break
                continue
            for index, worker in enumerate(workers):
                code = worker.poll()
                if code is None:
                    continue
                if code == 2:  # it refused to start: so would the next
                    print(f"sparrow serve: worker {index} refused to start; stopping the others", file=sys.stderr)
                    status = 2
                    stop(signal.SIGTERM, None)
                    break
                print(
                    f"sparrow serve: worker {index} (pid {worker.pid}) ended with status {code}; "
                    f"starting it again in {RESTART_AFTER:g} s (the others take over its tables)",
                    file=sys.stderr,
                    flush=True,
                )
                time.sleep(RESTART_AFTER)
                if not stopping:  # (a stop asked for meanwhile has reached every worker but this one)
                    workers[index] = spawn(index)
    finally:
        listener.close()
    return status


def _ready(read: int, worker: subprocess.Popen[bytes], stopping: Callable[[], bool]) -> bool:
    """Whether ``worker`` says it serves (a byte on ``read``) within `START_WAIT` s, before it ends or
    the workers are asked to stop."""
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline and not stopping() and worker.poll() is None:
        readable, _, _ = select.select([read], [], [], 0.2)
        if readable:
            return os.read(read, 1) == b"1"
    return False


def _wait(worker: subprocess.Popen[bytes], seconds: float) -> None:
    """Wait until ``worker`` has ended, killing it after ``seconds``."""
    try:
        worker.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()
