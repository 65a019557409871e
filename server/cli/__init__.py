"""The ``sparrow`` command: one sub-command per module in this package (listed in :mod:`server.cli.commands`)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from server.cli.commands import COMMANDS

__all__ = ["build_parser", "main"]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser, with every sub-command registered in full.

    Given the ``argv`` it is to parse, only the module of the sub-command named there is imported; the
    others are registered by name and summary alone, which is all ``sparrow --help`` shows of them.
    """
    wanted = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    parser = argparse.ArgumentParser(prog="sparrow", description="Chinese Classical Mahjong: analysis and self-play.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules: dict[str, list[tuple[str, str]]] = {}
    for name, module, text in COMMANDS:
        modules.setdefault(module, []).append((name, text))
    for module, commands in modules.items():
        if wanted is None or any(name == wanted for name, _ in commands):
            importlib.import_module(module).register(sub)
        else:
            for name, text in commands:
                sub.add_parser(name, help=text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``sparrow`` console script; returns the exit status."""
    if argv is None:
        argv = sys.argv[1:]
    args = build_parser(argv).parse_args(argv)
    if not hasattr(args, "func"):  # the command was not the word build_parser took it for: load them all
        args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
    except BrokenPipeError:  # `sparrow … | head`: the reader left, nothing to report
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
