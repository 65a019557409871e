"""``sparrow simulate``: many deals of self-play by the built-in policy, with a progress bar."""

from __future__ import annotations

import argparse
import json
import sys
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from game.rulesets import ruleset
from server.cli.arguments import add_ruleset, whole_number
from server.cli.commands import summary
from server.cli.selfplay import SelfPlay, play_deals

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``simulate`` sub-command."""
    p = sub.add_parser(
        "simulate",
        help=summary("simulate"),
        description="Play N deals (hands) of self-play with the built-in policy. Identical arguments give an "
        "identical digest; only the speed figures vary.",
    )
    p.add_argument("--hands", type=whole_number(1), required=True, metavar="N", help="deals to play")
    p.add_argument("--seed", default="0", metavar="S", help="seed of the whole run (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_ruleset(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play the deals and print the report."""
    console = Console(stderr=True)
    started = time.perf_counter()
    totals = SelfPlay()
    with Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task("deals", total=args.hands)
        for totals in play_deals(args.hands, args.seed, ruleset(args.ruleset).rules):
            progress.update(task, completed=totals.hands)
    elapsed = max(time.perf_counter() - started, 1e-9)
    e = totals.endings
    report = {
        "hands": totals.hands,
        "seed": args.seed,
        "wins": {"self_drawn": e["self_drawn"], "discard": e["discard"], "robbed_kong": e["robbed_kong"]},
        "wash_outs": e["wash_out"],
        "actions": totals.actions,
        "seconds": round(elapsed, 3),
        "hands_per_second": round(totals.hands / elapsed, 1),
        "digest": totals.digest,
    }
    if args.json:
        print(json.dumps(report))
        return 0
    wins = report["wins"]
    assert isinstance(wins, dict)
    print(f"hands      {totals.hands} (seed {args.seed})")
    print(
        f"wins       {sum(wins.values())}: self-drawn {wins['self_drawn']}, on a discard {wins['discard']}, "
        f"robbing the kong {wins['robbed_kong']}"
    )
    print(f"wash-outs  {report['wash_outs']}")
    print(f"speed      {report['hands_per_second']} hands/s, {round(totals.actions / elapsed)} actions/s")
    print(f"digest     {totals.digest}")
    sys.stdout.flush()
    return 0
