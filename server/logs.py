"""The server's log lines: as text for a person (the default), or as JSON lines for a log collector
(`sparrow serve --log-format json`).

A JSON line holds ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, ``exception`` when
there is one, and on every line a table logs, ``table`` and ``seat`` (``null`` when the line is about
no one seat). A table's actor runs in a context that names its table (`table_context`) and sets the
seat of each message it handles (`handling`); a line logged elsewhere about a table passes
``extra={"table": …, "seat": …}``.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from datetime import UTC, datetime
from typing import TextIO

__all__ = ["FORMATS", "JsonFormatter", "configure", "handling", "table_context"]

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
TABLE_LOGGER = "sparrow.table"  # the actors' logger: its lines in a table's context carry table and seat

_table: contextvars.ContextVar[str | None] = contextvars.ContextVar("sparrow_table", default=None)
_seat: contextvars.ContextVar[int | None] = contextvars.ContextVar("sparrow_seat", default=None)


def table_context(table: str) -> contextvars.Context:
    """A copy of the current context in which log lines name ``table`` (for the table's task)."""
    context = contextvars.copy_context()
    context.run(_table.set, table)
    context.run(_seat.set, None)
    return context


def handling(msg: object) -> None:
    """Within a table's task: the lines logged from now on concern the seat of ``msg`` (its socket's
    seat, or the seat it names), or no one seat."""
    conn = getattr(msg, "conn", None)
    seat = getattr(conn, "seat", None) if conn is not None else getattr(msg, "seat", None)
    _seat.set(seat if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat <= 3 else None)


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        table = getattr(record, "table", None)
        if table is not None:
            line["table"], line["seat"] = table, getattr(record, "seat", None)
        elif record.name == TABLE_LOGGER and _table.get() is not None:
            line["table"], line["seat"] = _table.get(), _seat.get()
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(form: str, level: int = logging.INFO, stream: TextIO | None = None) -> None:
    """Send the log lines of this process to ``stream`` (standard error) in the format ``form``.

    :raises ValueError: for a format not in `FORMATS`.
    """
    if form not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {form!r}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if form == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level, handlers=[handler], force=True)
