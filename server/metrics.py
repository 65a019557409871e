"""What a running server is doing, in Prometheus' text format (`sparrow serve --metrics-port`).

The figures are counted in this process whether or not anyone reads them (an increment costs about
a microsecond); `serve` shows them on a listener of their own, on 127.0.0.1 only, never on the
public application. The listener runs on a thread, so it answers while the event loop is stuck,
and the event-loop lag it shows then grows with the time the loop has not run.

- ``sparrow_tables{status}``, ``sparrow_sockets``: the tables in this process's memory by status
  (``/healthz``'s ``tables`` is their sum; a table that left memory is counted by none), and the
  sockets attached to them;
- ``sparrow_intents_total``: intents (``act`` messages) received;
- ``sparrow_refusals_total{reason}``: refusals sent, by reason code (docs/protocol.md);
- ``sparrow_heads_closed_total{reason}``: connections closed before they sent a whole request head
  (server/heads.py): too late (``input/too_slow``), or one too many from an address
  (``rate/too_many_connections``);
- ``sparrow_table_failures_total``: failures inside a table's actor (each rebuilds the table);
- ``sparrow_journal_commit_seconds``: from a journal write's submission to its commit;
- ``sparrow_event_loop_lag_seconds``: how late the event loop ran a task due now;
- ``sparrow_gc_pause_seconds{generation}``: each garbage collection's pause (server.collector);
- ``sparrow_tables_taken_over_total``, ``sparrow_tables_lost_total``: with several processes
  (server/cluster), tables this process took over from one that stopped, and tables it let go
  because another took them (its lease ran out, or a write was refused as stale);
- ``sparrow_bus_cut_off``: with several processes, 1 while this process is cut off from the others'
  bus (Redis out of reach, or its own subscription lost: server/cluster/bus.py), else 0; /healthz
  answers 503 meanwhile;
- ``process_*``: the process's CPU, memory and open files.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import Counter as Tally
from collections.abc import Callable, Collection, Mapping
from typing import Protocol
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector, start_http_server

__all__ = [
    "BUS_CUT_OFF",
    "GC_PAUSE",
    "HEADS_CLOSED",
    "INTENTS",
    "JOURNAL_COMMIT",
    "LOST",
    "REGISTRY",
    "TABLE_FAILURES",
    "TAKEN_OVER",
    "MetricsServer",
    "refused",
    "serve",
    "watch",
]

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)

INTENTS = Counter("sparrow_intents", "Intents (act messages) received from sockets.", registry=REGISTRY)
REFUSALS = Counter("sparrow_refusals", "Refusals sent to clients, by reason code.", ["reason"], registry=REGISTRY)
HEADS_CLOSED = Counter(
    "sparrow_heads_closed",
    "Connections closed before they sent a whole request head, by reason code.",
    ["reason"],
    registry=REGISTRY,
)
TABLE_FAILURES = Counter(
    "sparrow_table_failures", "Failures inside a table's actor; each rebuilds the table.", registry=REGISTRY
)
JOURNAL_COMMIT = Histogram(
    "sparrow_journal_commit_seconds",
    "Seconds from a journal write's submission to its commit (what a table waits before it answers).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    registry=REGISTRY,
)
TABLES = Gauge("sparrow_tables", "Tables in this process's memory, by status.", ["status"], registry=REGISTRY)
SOCKETS = Gauge("sparrow_sockets", "Sockets attached to the tables in memory (seats, spectators).", registry=REGISTRY)
LOOP_LAG = Gauge(
    "sparrow_event_loop_lag_seconds",
    "Seconds the event loop last woke a once-a-second task late, or how overdue it is now.",
    registry=REGISTRY,
)

GC_PAUSE = Histogram(
    "sparrow_gc_pause_seconds",
    "Seconds each garbage collection paused the process, by generation (server.collector).",
    ["generation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=REGISTRY,
)

TAKEN_OVER = Counter(
    "sparrow_tables_taken_over", "Tables this process took over from a process that stopped.", registry=REGISTRY
)
LOST = Counter(
    "sparrow_tables_lost", "Tables this process let go because another process took them.", registry=REGISTRY
)
BUS_CUT_OFF = Gauge(
    "sparrow_bus_cut_off",
    "1 while this process is cut off from the other processes' bus (Redis out of reach, or its subscription lost).",
    registry=REGISTRY,
)

STATUSES = ("waiting", "playing", "adjourned", "over")  # always shown, 0 when none
_REASON = re.compile(r"[a-z_]{1,30}/[a-z_]{1,40}")  # the shape of every reason code (docs/protocol.md)
WATCH_EVERY = 1.0  # seconds between two looks at the lobby and the loop


def refused(data: object) -> None:
    """Count a refusal frame's reason (a shape no reason code has is counted as ``other``)."""
    reason = data.get("reason") if isinstance(data, dict) else None
    REFUSALS.labels(reason if isinstance(reason, str) and _REASON.fullmatch(reason) else "other").inc()


class _Table(Protocol):
    @property
    def status(self) -> str: ...
    @property
    def connections(self) -> Collection[object]: ...


class _Lobby(Protocol):
    @property
    def tables(self) -> Mapping[str, _Table]: ...


class _Lag:
    """The loop's lag: the last one measured, or, if the loop is overdue now, how overdue it is."""

    def __init__(self) -> None:
        self.measured = 0.0
        self.due: float | None = None

    def value(self) -> float:
        due = self.due
        return self.measured if due is None else max(self.measured, time.monotonic() - due)


_lag = _Lag()
LOOP_LAG.set_function(_lag.value)
_shown: set[str] = set()  # every status `watch` has counted tables of (each is set again, to 0 if none)


async def watch(lobby: Callable[[], _Lobby | None], every: float = WATCH_EVERY) -> None:
    """Until cancelled: every ``every`` seconds, count the lobby's tables and sockets, and measure how
    late the loop woke up. (A read at scrape time would walk the lobby from the listener's thread.)
    """
    try:
        while True:
            _lag.due = time.monotonic() + every
            await asyncio.sleep(every)
            _lag.measured, _lag.due = max(0.0, time.monotonic() - _lag.due), None
            current = lobby()
            if current is None:
                continue
            tables = list(current.tables.values())
            counts = Tally(t.status for t in tables)
            for status in {*STATUSES, *_shown, *counts}:  # (a status no table has now shows 0)
                TABLES.labels(status).set(counts.get(status, 0))
            _shown.update(counts)
            SOCKETS.set(sum(len(t.connections) for t in tables))
    finally:
        _lag.due = None


class MetricsServer:
    """The metrics listener: a thread serving ``REGISTRY`` over HTTP."""

    def __init__(self, server: WSGIServer, thread: threading.Thread) -> None:
        self._server, self._thread = server, thread

    @property
    def port(self) -> int:
        """The port it listens on."""
        port: int = self._server.server_address[1]
        return port

    def close(self) -> None:
        """Stop listening and let the thread end."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


def serve(port: int, host: str = "127.0.0.1") -> MetricsServer:
    """Serve the figures on ``host``:``port`` (0: any free port) from a thread.

    :raises OSError: when the port cannot be bound.
    """
    server, thread = start_http_server(port, addr=host, registry=REGISTRY)
    return MetricsServer(server, thread)
