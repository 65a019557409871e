"""``sparrow admin create NAME``: a one-time link with which NAME sets a password and becomes an admin
of the club (the first admin, or one more); works while the server runs."""

from __future__ import annotations

import argparse
import asyncio
import sys

from sqlalchemy.exc import SQLAlchemyError

from server.cli.commands import summary

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``admin`` sub-command."""
    parser = sub.add_parser("admin", help=summary("admin"), description="Club administration from the shell.")
    parser.add_argument("verb", choices=("create",), help="create: a one-time link that makes NAME an admin")
    parser.add_argument("name", help="the admin's name (the link works for this name only)")
    parser.add_argument("--db", default=None, help="database URL (default: $SPARROW_DB, else ./data/sparrow.db)")
    parser.add_argument(
        "--public-url",
        default="http://127.0.0.1:8000",
        metavar="URL",
        help="the address people open the server at (default http://127.0.0.1:8000)",
    )
    parser.set_defaults(func=run)


async def _create(name: str, url: str | None, base: str) -> str:
    from server.club.club import FIRST_ADMIN_TTL, Club, ClubConfig
    from server.store.migrate import upgrade
    from server.store.session import database_url, make_engine

    engine = make_engine(database_url(url))
    try:
        await upgrade(engine)
        club = Club(engine, ClubConfig("", base_url=base.rstrip("/")))
        await club.open()
        if club.name_owner(name) is not None:
            raise ValueError(f"{name!r} is already a member's name: an admin can make them an admin on /admin")
        code = await club.invite(None, "admin", name=name, ttl=FIRST_ADMIN_TTL)
        return club.link(code)
    finally:
        await engine.dispose()


def run(args: argparse.Namespace) -> int:
    """Print the link; exit 1 if the database cannot be used or the name is a member's already."""
    from server.startup import unusable
    from server.tables.errors import TableError

    try:
        link = asyncio.run(_create(args.name, args.db, args.public_url))
    except (SQLAlchemyError, OSError) as exc:
        print(f"sparrow admin: {unusable(exc)}", file=sys.stderr)
        return 1
    except (TableError, ValueError) as exc:
        print(f"sparrow admin: {exc}", file=sys.stderr)
        return 1
    print(f"Open this link to set {args.name}'s password and become an admin (it works once, for a day):\n  {link}")
    return 0
