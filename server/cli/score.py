"""``sparrow score`` and ``sparrow settle``: score one hand, or settle one deal, from a JSON document."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from game.scoring import Score, ScoringError, score_loser, score_win
from game.settlement import settle
from server.cli.arguments import ruleset_name
from server.cli.commands import summary
from server.cli.jsoninput import (
    SETTLE_FIELDS,
    InputError,
    check_fields,
    is_loser,
    loser_hand,
    read_document,
    rules_of,
    winning_hand,
)

__all__ = ["register"]

_SCORE_EPILOG = """\
input (one JSON object):
  {"concealed": "234b 55d WWW",        concealed tiles, including the winning tile
   "melds": [{"kind": "pung", "tiles": "RRR", "exposed": true},
             {"kind": "kong", "tiles": "9999c", "exposed": false},
             {"kind": "kong", "tiles": "EEEE", "claimed": true}],   declared sets
             ("claimed": a kong claimed from a discard with three held; R16 counts it concealed)
   "bonus": "1f 3s", "winning_tile": "W", "win_by": "wall|discard|loose|robbed_kong",
   "last_tile": false, "seat_wind": "S", "round_wind": "E", "dealer": false,
   "first_turn": false, "loose_kongs": 0, "original_call": false,
   "ruleset": "classical", "overrides": {"limit": 1000}}
  ("dealer" may be left out: the dealer sits East, R2.1. "original_call": declared with the first
   discard and kept; needs the option original_call, R5.4. {"kind": "knitted", "tiles": "4b4c4d"}:
   under bmja, the knitted triple or couple the winning discard completed, R17.4.)
  "loser": true scores an unfinished hand by R11.2 instead (no winning tile needed).
  Any other field, and any hand no deal can produce, is refused with the rule it breaks.
"""

_SETTLE_EPILOG = """\
input (one JSON object):
  {"ruleset": "classical", "overrides": {}, "winner": 1 | null, "dealer": 0,
   "discarder": 2 | null, "values": [v0, v1, v2, v3], "pao": null | seat,
   "dangerous": null | seat}    (the seat that pays for all by R11.6; needs the option dangerous_game)
  values[winner] is the winner's hand value; the others are the losers' own hand values (R11.2).
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``score`` and ``settle`` sub-commands."""
    commands = (
        (
            "score",
            "Score one hand given as JSON, item by item, with the rule behind each line.",
            _SCORE_EPILOG,
            run_score,
        ),
        (
            "settle",
            "Settle one deal: the four score changes (they sum to zero) and the payments.",
            _SETTLE_EPILOG,
            run_settle,
        ),
    )
    for name, description, epilog, func in commands:
        p = sub.add_parser(
            name,
            help=summary(name),
            description=description,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.add_argument("source", metavar="FILE", help='a JSON file, or "-" for standard input')
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.add_argument(
            "--ruleset",
            type=ruleset_name,
            metavar="NAME",
            help='the rules to score by, when the document names none ("ruleset"); default classical',
        )
        p.set_defaults(func=func)


def _refuse(command: str, message: str) -> int:
    print(f"sparrow {command}: {message}", file=sys.stderr)
    return 2


def run_score(args: argparse.Namespace) -> int:
    """Score the hand in ``args.source``."""
    try:
        data = read_document(args.source)
        rules = rules_of(data, args.ruleset)
        if is_loser(data):
            score = score_loser(*loser_hand(data, rules), rules=rules)
        else:
            score = score_win(winning_hand(data, rules), rules)
    except (InputError, ScoringError) as exc:
        return _refuse("score", str(exc))
    if args.json:
        print(json.dumps(score.to_json(), ensure_ascii=False))
    else:
        _print_score(score)
    return 0


def _print_score(score: Score) -> None:
    table = Table(title=score.limit_hand or "Score", show_lines=False)
    table.add_column("rule")
    table.add_column("item")
    table.add_column("points", justify="right")
    table.add_column("doubles", justify="right")
    for item in score.items:
        if item.limit:
            table.add_row(item.rule, item.text, f"limit {item.limit}", "")
        else:
            table.add_row(item.rule, item.text, str(item.points) if not item.doubles else "", str(item.doubles or ""))
    table.add_row("", "total", str(score.points), str(score.doubles))
    console = Console(highlight=False)
    console.print(table)
    console.print(f"value: {score.arithmetic}")


def run_settle(args: argparse.Namespace) -> int:
    """Settle the deal in ``args.source``."""
    try:
        data = read_document(args.source)
        check_fields(data, SETTLE_FIELDS)
        rules = rules_of(data, args.ruleset)
        values = data.get("values")
        if not isinstance(values, list) or len(values) != 4 or not all(isinstance(v, int) for v in values):
            raise InputError("values must be a list of four whole numbers")
        seats = {}
        for name in ("winner", "dealer", "discarder", "pao", "dangerous"):
            seat = data.get(name, 0 if name == "dealer" else None)
            if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
                raise InputError(f"{name} must be a seat 0–3 or null, not {seat!r}")
            seats[name] = seat
        dealer = seats["dealer"]
        if dealer is None:
            raise InputError("dealer must be a seat 0–3")
        if seats["dangerous"] is not None and not rules.dangerous_game:
            raise InputError("dangerous names who pays by R11.6, which needs the option dangerous_game")
        result = settle(rules, seats["winner"], dealer, seats["discarder"], values, seats["pao"], seats["dangerous"])
    except (InputError, ValueError) as exc:
        return _refuse("settle", str(exc))
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
        return 0
    for p in result.payments:
        print(f"seat {p.payer} pays seat {p.payee} {p.amount:>5}  {p.rule:<6} {p.text}")
    print("changes: " + "  ".join(f"seat {s}: {c:+d}" for s, c in enumerate(result.changes)))
    return 0
