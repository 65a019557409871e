"""The ``sparrow`` command: one sub-command per module in this package."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from server.cli import admin, analyze, arena, db, history, loadtest, play, review, score, serve, simulate

__all__ = ["main"]

_COMMANDS = (analyze, score, simulate, arena, play, review, serve, db, admin, history, loadtest)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered."""
    parser = argparse.ArgumentParser(prog="sparrow", description="Chinese Classical Mahjong: analysis and self-play.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in _COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``sparrow`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except BrokenPipeError:  # `sparrow … | head`: the reader left, nothing to report
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
