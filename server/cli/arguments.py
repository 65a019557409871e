"""Argument types shared by the sub-commands."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from game.rulesets import RULESETS

__all__ = ["ruleset_name", "whole_number"]


def whole_number(low: int, high: int | None = None, what: str = "a whole number") -> Callable[[str], int]:
    """An argparse ``type`` accepting whole numbers from ``low`` to ``high`` (no upper bound if None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"{low} to {high}"
            raise argparse.ArgumentTypeError(f"must be {bound}, not {value}")
        return value

    return parse


def ruleset_name(text: str) -> str:
    """An argparse ``type`` accepting the name of a ruleset (R13, R14, R16)."""
    if text not in RULESETS:
        raise argparse.ArgumentTypeError(f"unknown ruleset {text!r}; rulesets are {', '.join(RULESETS)}")
    return text


def add_ruleset(parser: argparse.ArgumentParser) -> None:
    """``--ruleset NAME`` for a command that plays games (default classical)."""
    parser.add_argument(
        "--ruleset",
        type=ruleset_name,
        default="classical",
        metavar="NAME",
        help="the rules to play by (default classical)",
    )
