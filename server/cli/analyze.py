"""``sparrow analyze``: waits and shanten of hands written in R0 notation, and the R15.4 suit census."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence

from rich.console import Console
from rich.table import Table

from game.hand import counts_of, is_win, shanten, waits
from game.hand_tables import MAX_TILES
from game.notation import parse_tiles
from game.suit_census import MAX_TILES as CENSUS_MAX_TILES
from game.suit_census import CompleteCensus, WaitCensus, census
from game.tiles import Tile
from server.cli.arguments import whole_number
from server.cli.commands import summary

__all__ = ["register", "run_waits", "run_suit", "analyse_hand", "HandError"]

_WAITS_EPILOG = """\
Each HAND is the concealed tiles in R0 notation ("1112345678999b", "234b 55d WWW"); exposed sets
are left out, so a hand has 13, 10, 7, 4 or 1 tiles while waiting and 14, 11, 8, 5 or 2 after a
draw. With 3k+1 tiles the result is the shanten number (0 = ready) and the waits: the tiles that
complete the hand, leaving out any tile the hand already holds four of. With 3k+2 tiles it is the
shanten number after the best discard (-1 = complete), no waits, and whether the hand is complete.
"-" reads further hands from standard input, one a line (blank lines skipped). --json prints one
JSON object a line: {"hand", "shanten", "waits"} (plus "complete" for 3k+2 tiles), or
{"hand", "error"} for a hand that cannot be read. Bad hands are also reported on standard error,
the others still analysed, and the exit status is then 2. Bonus tiles, a fifth copy of a tile,
and tile counts no hand has (a multiple of three, or more than 14) are refused.
"""

_SUIT_EPILOG = """\
For N tiles of one suit (ranks 1-9, four copies each): the number of distinct hands, and
- N = 3k+1: how many are completed (sets plus one pair) by exactly 0, 1, ..., 9 of the nine ranks;
- N = 3k+2: how many are complete as sets plus one pair;
- N = 3k: how many are complete as N/3 sets with no pair.
N runs from 0 to 17 (16-tile variants hold five sets and a pair); N = 13 reproduces R15.4.
--json prints one object: {"tiles", "hands", "by_waits"} or {"tiles", "hands", "complete"}.
"""


class HandError(ValueError):
    """A hand given to ``analyze waits`` that cannot be analysed; the message says why."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``analyze`` sub-command and its ``waits`` and ``suit`` analyses."""
    parser = sub.add_parser(
        "analyze",
        help=summary("analyze"),
        description="Analyse hands without playing: waits and shanten, or the one-suit census.",
    )
    analyses = parser.add_subparsers(dest="analysis", required=True, metavar="ANALYSIS")

    waits_parser = analyses.add_parser(
        "waits",
        help="waits and shanten of each HAND",
        description="Print the waits and shanten number of each hand.",
        epilog=_WAITS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    waits_parser.add_argument("hands", nargs="+", metavar="HAND", help='a hand in R0 notation, or "-" for stdin')
    waits_parser.add_argument("--json", action="store_true", help="print one JSON object per hand")
    waits_parser.set_defaults(func=run_waits)

    suit_parser = analyses.add_parser(
        "suit",
        help="census of the one-suit hands of N tiles (R15.4)",
        description="Count the one-suit hands of N tiles by how many ranks complete them.",
        epilog=_SUIT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    suit_parser.add_argument(
        "--tiles",
        type=whole_number(0, CENSUS_MAX_TILES, "a whole number of tiles"),
        required=True,
        metavar="N",
        help=f"tiles in the hand, 0-{CENSUS_MAX_TILES}",
    )
    suit_parser.add_argument("--json", action="store_true", help="print one JSON object")
    suit_parser.set_defaults(func=run_suit)


def analyse_hand(text: str) -> dict[str, object]:
    """The ``analyze waits`` result for one hand: ``{"hand", "shanten", "waits"}`` (+ ``"complete"``).

    :raises HandError: if ``text`` is not a hand that can be analysed (the message says why).
    """
    hand = text.strip()
    try:
        tiles = parse_tiles(hand)
    except ValueError as error:  # NotationError: names the bad character
        raise HandError(str(error)) from None
    bonus = [t for t in tiles if t.is_bonus]
    if bonus:
        raise HandError(f"bonus tile {bonus[0]} in {hand!r}: bonus tiles are laid aside, never part of a hand (R4.2)")
    counts = counts_of(tiles)
    over = [Tile(k) for k, c in enumerate(counts) if c > 4]
    if over:
        raise HandError(f"{counts[over[0]]} copies of {over[0]} in {hand!r}: there are only four of each tile (R1.1)")
    n = len(tiles)
    if n == 0:
        raise HandError("empty hand: give its tiles in R0 notation, e.g. '1112345678999b'")
    if n > MAX_TILES or n % 3 == 0:
        raise HandError(
            f"{n} tiles in {hand!r}: a hand's concealed tiles number 13, 10, 7, 4 or 1 while waiting, "
            "or 14, 11, 8, 5 or 2 after a draw"
        )
    result: dict[str, object] = {"hand": hand, "shanten": shanten(counts)}
    if n % 3 == 1:
        result["waits"] = [t.code for t in waits(counts)]
    else:
        result["waits"] = []
        result["complete"] = is_win(counts)
    return result


def _describe(result: dict[str, object]) -> str:
    """One readable line for an ``analyse_hand`` result."""
    value = result["shanten"]
    found = result["waits"]
    assert isinstance(value, int) and isinstance(found, list)
    if result.get("complete"):
        state = "complete (shanten -1)"
    elif "complete" in result:
        state = f"not complete; after the best discard {_distance(value)} (shanten {value})"
    elif found:
        state = f"ready (shanten 0), waits on {len(found)}: {' '.join(found)}"
    elif value == 0:
        state = "ready in shape, but every tile it waits on is already held four times (no waits)"
    else:
        state = f"{_distance(value)} (shanten {value}), no waits"
    return f"{result['hand']}: {state}"


def _distance(value: int) -> str:
    if value == 0:
        return "ready"
    return f"{value} tile{'s' if value != 1 else ''} from ready"


def _hand_texts(arguments: Sequence[str]) -> Iterator[str]:
    for argument in arguments:
        if argument == "-":
            for line in sys.stdin:
                if line.strip():
                    yield line.strip()
        else:
            yield argument.strip()


def run_waits(args: argparse.Namespace) -> int:
    """``sparrow analyze waits``: one line per hand; exit status 2 if any hand was refused."""
    status = 0
    for text in _hand_texts(args.hands):
        try:
            result = analyse_hand(text)
        except HandError as error:
            status = 2
            print(f"sparrow analyze waits: error: {error}", file=sys.stderr)
            if args.json:
                print(json.dumps({"hand": text, "error": str(error)}, ensure_ascii=False))
            continue
        print(json.dumps(result, ensure_ascii=False) if args.json else _describe(result))
    return status


def run_suit(args: argparse.Namespace) -> int:
    """``sparrow analyze suit``: the census of one-suit hands of ``--tiles`` tiles."""
    result = census(args.tiles)
    if args.json:
        print(json.dumps(result))
        return 0
    if "by_waits" in result:  # the census types are final: this tells them apart
        table = _waits_table(result)
    else:
        table = _complete_table(result)
    Console(file=sys.stdout, highlight=False).print(table)
    return 0


def _new_table(tiles: int, hands: int, first: str) -> Table:
    table = Table(title=f"One-suit hands of {tiles} tiles: {hands:,}", title_justify="left")
    table.add_column(first, justify="right")
    table.add_column("hands", justify="right")
    table.add_column("share", justify="right")
    return table


def _waits_table(result: WaitCensus) -> Table:
    table = _new_table(result["tiles"], result["hands"], "ranks that complete it")
    for k in range(9, -1, -1):
        count = result["by_waits"][str(k)]
        table.add_row(str(k), f"{count:,}", f"{count / result['hands']:.2%}")
    return table


def _complete_table(result: CompleteCensus) -> Table:
    tiles = result["tiles"]
    table = _new_table(tiles, result["hands"], "complete as")
    meaning = "sets + one pair" if tiles % 3 == 2 else f"{tiles // 3} sets, no pair" if tiles else "empty: no sets"
    table.add_row(meaning, f"{result['complete']:,}", f"{result['complete'] / result['hands']:.2%}")
    return table
