"""``sparrow db upgrade|current``: bring the database to this version's schema, or show where it is."""

from __future__ import annotations

import argparse
import asyncio
import sys

from sqlalchemy.exc import SQLAlchemyError

__all__ = ["check_database", "register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``db`` sub-command."""
    parser = sub.add_parser("db", help="database migrations", description="Database schema migrations (Alembic).")
    parser.add_argument("verb", choices=("upgrade", "current"), help="upgrade to the newest schema, or show it")
    parser.add_argument("--db", default=None, help="database URL (default: $SPARROW_DB, else ./data/sparrow.db)")
    parser.set_defaults(func=run)


async def _run(verb: str, url: str | None) -> str:
    from server.store.migrate import DatabaseTooNew, current_revision, head_revision, known_revisions, upgrade
    from server.store.session import database_url, make_engine

    engine = make_engine(database_url(url))
    try:
        if verb == "current":
            current = await current_revision(engine)
            if current is not None and current not in known_revisions():
                raise DatabaseTooNew(
                    f"{engine.url.render_as_string()}: revision {current} is newer than this Sparrow "
                    f"(it knows up to {head_revision()}); upgrade Sparrow"
                )
            return f"{engine.url.render_as_string()}: revision {current or 'none (empty)'}; code head {head_revision()}"
        before, after = await upgrade(engine)
        if before == after:
            return f"{engine.url.render_as_string()}: already at revision {after}"
        return f"{engine.url.render_as_string()}: upgraded from {before or 'an empty database'} to {after}"
    finally:
        await engine.dispose()


async def check_database(url: str | None) -> str | None:
    """Upgrade the database before serving; the reason it cannot be used, or None."""
    from server.store.migrate import DatabaseTooNew

    try:
        await _run("upgrade", url)
    except DatabaseTooNew as exc:
        return str(exc)
    except (SQLAlchemyError, OSError) as exc:
        return f"cannot use the database: {exc}"
    return None


def run(args: argparse.Namespace) -> int:
    """Run the verb; a database that is newer than the code is refused with status 2."""
    from server.store.migrate import DatabaseTooNew

    try:
        print(asyncio.run(_run(args.verb, args.db)))
    except DatabaseTooNew as exc:
        print(f"sparrow db: {exc}", file=sys.stderr)
        return 2
    except (SQLAlchemyError, OSError) as exc:
        print(f"sparrow db: cannot use the database: {exc}", file=sys.stderr)
        return 1
    return 0
