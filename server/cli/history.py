"""``sparrow export GAME_ID`` and ``sparrow import FILE``: games as event logs (docs/log-format.md)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from server.cli.commands import summary

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``export`` and ``import`` sub-commands."""
    out = sub.add_parser("export", help=summary("export"), description="Write a game's log.")
    out.add_argument("game", help="the game's id (as in its link /t/ID)")
    out.add_argument("-o", "--output", default="-", help="file to write (default: standard output)")
    out.add_argument("--db", default=None, help="database URL (default: $SPARROW_DB, else ./data/sparrow.db)")
    out.set_defaults(func=run_export)
    into = sub.add_parser("import", help=summary("import"), description="Import a game's log.")
    into.add_argument("file", help="the log to read ('-' for standard input)")
    into.add_argument("--db", default=None, help="database URL (default: $SPARROW_DB, else ./data/sparrow.db)")
    into.set_defaults(func=run_import)


async def _export(game_id: str, url: str | None) -> list[str] | str:
    from server.history.logfile import write_log
    from server.store.games import load_log
    from server.store.migrate import upgrade
    from server.store.session import database_url, make_engine, make_sessions

    engine = make_engine(database_url(url))
    try:
        await upgrade(engine)
        async with make_sessions(engine)() as session:
            found = await load_log(session, game_id)
        if found is None:
            return f"there is no game {game_id!r} in this database"
        return list(write_log(found[0]))
    finally:
        await engine.dispose()


def run_export(args: argparse.Namespace) -> int:
    """Write the log; status 1 if there is no such game."""
    lines = asyncio.run(_export(args.game, args.db))
    if isinstance(lines, str):
        print(f"sparrow export: {lines}", file=sys.stderr)
        return 1
    text = "\n".join(lines) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {len(lines)} events to {args.output}", file=sys.stderr)
    return 0


async def _import(lines: list[str], url: str | None) -> str:
    from server.history.logfile import read_log
    from server.store.games import store_log
    from server.store.journal import SqlJournal
    from server.store.migrate import upgrade
    from server.store.session import database_url, make_engine

    log, game = read_log(lines)
    engine = make_engine(database_url(url))
    journal = SqlJournal(engine)
    try:
        await upgrade(engine)
        table_id = await store_log(journal, log, time.time())
    finally:
        await journal.close()  # on SQLite its writer process ends
        await engine.dispose()
    state = "finished" if game.outcome is not None else "unfinished"
    return f"imported {log.name!r} as game {table_id}: {game.version} actions, {len(game.results)} hands, {state}"


def run_import(args: argparse.Namespace) -> int:
    """Replay and store the log; status 1 (with the line and the reason) if it breaks a rule."""
    from server.history.logfile import LogError

    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except OSError as exc:
        print(f"sparrow import: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 1
    try:
        print(asyncio.run(_import(text.splitlines(), args.db)))
    except LogError as exc:
        print(f"sparrow import: refused, {exc}", file=sys.stderr)
        return 1
    return 0
