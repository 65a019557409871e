"""``sparrow arena``: four bots play walls in duplicate; each bot's results with a 95% interval per wall.

The games are played by :mod:`game.arena`: each wall once by each distinct seating of the bots. This
module shares the walls out over processes, shows a progress bar and prints the report. Walls come
back in wall order whatever the number of processes, so the same arguments give the same figures
with any ``--jobs`` (only the speeds vary).
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from game.arena import (
    ARENA_RULES,
    ROTATIONS,
    BotFigures,
    Tally,
    WallResult,
    check_bots,
    play_wall,
    seating,
    seatings,
    walls_for,
)
from game.hand import standard_shanten
from game.rules import Rules
from game.rulesets import ruleset
from server.cli.arguments import add_ruleset, whole_number
from server.cli.commands import summary

__all__ = ["register", "run_arena"]

DUPLICATE_NOTE = (
    "Played in duplicate: each wall was dealt once to each distinct seating, so every bot played every seat of\n"
    "every wall and the luck of the deal cancels out; a rotation that seats the same bots again is not played."
)
HANDS_DEPRECATED = (
    "sparrow arena: --hands is deprecated: --hands {hands} plays the walls it always played ({hands} / {rotations}, "
    "rounded up: {walls}), each once by each distinct seating, so {games} games; say --walls {walls} or --games {games}"
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``arena`` sub-command."""
    p = sub.add_parser(
        "arena",
        help=summary("arena"),
        description="Four bots (one per seat) play games in duplicate: each wall is played once by each "
        "distinct seating among the four rotations of the bots through the seats (two seatings when two "
        "bots alternate, four when all differ), so the luck of the deal cancels out. A game is one deal. "
        "The 95%% intervals take each wall as one sample. The same arguments give the same figures; only "
        "the speeds vary.",
    )
    p.add_argument(
        "--bots",
        type=_bot_names,
        required=True,
        metavar="A,B,C,D",
        help="four bot names, one per seat (a name may repeat): random, greedy, normal, …",
    )
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--walls", type=whole_number(1), metavar="W", help="walls to play, each by every seating")
    size.add_argument(
        "--games", type=whole_number(1), metavar="G", help="games to play at least (rounded up to whole walls)"
    )
    size.add_argument(
        "--hands",
        type=whole_number(1),
        metavar="N",
        help="deprecated: N / 4 walls (rounded up), the walls --hands N always played; use --walls or --games",
    )
    p.add_argument("--seed", default="0", metavar="S", help="seed of the whole run (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_ruleset(p)
    p.add_argument(
        "--jobs",
        type=whole_number(1),
        default=os.cpu_count() or 1,
        metavar="J",
        help="processes to play in (default: the machine's cores)",
    )
    p.set_defaults(func=run)


def _bot_names(text: str) -> tuple[str, str, str, str]:
    try:
        return check_bots([name.strip() for name in text.split(",")])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _play_wall(bots: tuple[str, ...], seed: str, rules: Rules, wall: int) -> WallResult:
    return play_wall(bots, seed, wall, rules, clock=time.perf_counter)


def run_arena(
    bots: tuple[str, ...],
    walls: int,
    seed: str,
    jobs: int = 1,
    on_wall: Callable[[Tally], None] | None = None,
    rules: Rules = ARENA_RULES,
) -> Tally:
    """Play walls 0 to ``walls`` − 1, each once by each distinct seating, by ``rules`` over ``jobs``
    processes; ``on_wall`` is called with the running tally after each wall.

    :raises ValueError: if the bot names are not four known bots.
    """
    check_bots(bots)
    standard_shanten([1] * 13 + [0] * 21)  # load the shanten tables once, before the processes fork
    tally = Tally()
    task = functools.partial(_play_wall, tuple(bots), seed, rules)
    with _pool(jobs, walls) as results:
        for result in results(task, range(walls)):
            tally.add(result)  # in wall order, so the sums are the same for any number of processes
            if on_wall is not None:
                on_wall(tally)
    return tally


class _pool:
    """``map`` in this process, or an ordered ``imap`` over a pool of ``jobs`` processes."""

    def __init__(self, jobs: int, walls: int) -> None:
        self._jobs = min(jobs, walls)
        self._chunk = max(1, min(8, walls // (self._jobs * 16)))
        self._pool: multiprocessing.pool.Pool | None = None

    def __enter__(self) -> Callable[[Callable[[int], WallResult], range], Iterator[WallResult]]:
        if self._jobs <= 1:
            return map
        self._pool = multiprocessing.get_context("fork").Pool(self._jobs)
        pool = self._pool
        return lambda task, items: pool.imap(task, items, chunksize=self._chunk)

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()


def _walls(args: argparse.Namespace) -> int:
    """The walls the size arguments ask for; ``--hands`` also says on stderr what it now means."""
    if args.walls is not None:
        return int(args.walls)
    if args.games is not None:
        return walls_for(args.games, args.bots)
    walls: int = max(1, -(-args.hands // ROTATIONS))
    games = walls * len(seatings(args.bots))
    print(HANDS_DEPRECATED.format(hands=args.hands, rotations=ROTATIONS, walls=walls, games=games), file=sys.stderr)
    return walls


def run(args: argparse.Namespace) -> int:
    """Play the games and print the report."""
    bots: tuple[str, str, str, str] = args.bots
    walls = _walls(args)
    played = walls * len(seatings(bots))
    console = Console(stderr=True)
    started = time.perf_counter()
    with Progress(
        TextColumn("arena"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=args.json or not console.is_terminal,
    ) as progress:
        task = progress.add_task("games", total=played)
        rules = ruleset(args.ruleset, {"claim_pause": False}).rules
        tally = run_arena(bots, walls, args.seed, args.jobs, lambda t: progress.update(task, completed=t.games), rules)
    elapsed = max(time.perf_counter() - started, 1e-9)
    figures = tally.figures()
    speed = tally.games / elapsed
    if args.json:
        print(json.dumps(_report(bots, tally, figures, args.seed, speed)))
        return 0
    _print_text(bots, args, tally, figures, elapsed)
    return 0


def _seatings(bots: tuple[str, ...]) -> list[tuple[str, str, str, str]]:
    return [seating(bots, r) for r in seatings(bots)]


def _report(
    bots: tuple[str, ...], tally: Tally, figures: list[BotFigures], seed: str, speed: float
) -> dict[str, object]:
    return {
        "games": tally.games,
        "walls": tally.walls,
        "seatings": [list(names) for names in _seatings(bots)],
        "duplicate": True,
        "seed": seed,
        "bots": [
            {
                "bot": f.bot,
                "seats": f.seats,
                "mean_score": round(f.mean_score, 3),
                "ci95": None if f.ci95 is None else [round(f.ci95[0], 3), round(f.ci95[1], 3)],
                "win_rate": round(f.win_rate, 4),
                "deal_in_rate": round(f.deal_in_rate, 4),
                "self_draw_rate": round(f.self_draw_rate, 4),
                "mean_win_value": None if f.mean_win_value is None else round(f.mean_win_value, 2),
                "ms_per_move": None if f.ms_per_move is None else round(f.ms_per_move, 3),
            }
            for f in figures
        ],
        "games_per_second": round(speed, 1),
    }


def _print_text(
    bots: tuple[str, ...], args: argparse.Namespace, tally: Tally, figures: list[BotFigures], elapsed: float
) -> None:
    out = Console(highlight=False)
    if not out.is_terminal:
        out.width = 120  # a file or a pipe: one row per bot, never wrapped
    asked = args.games if args.games is not None else None
    rounded = "" if asked in (None, tally.games) else f"; {asked} rounded up to whole walls"
    placed = _seatings(bots)
    plural = "" if len(placed) == 1 else "s"
    out.print(
        f"arena      {', '.join(bots)} (seats 0-3 in the first rotation), seed {args.seed}\n"
        f"seatings   {len(placed)} distinct among the {ROTATIONS} rotations: "
        + " | ".join(",".join(names) for names in placed)
        + f"\ngames      {tally.games}: {tally.walls} walls x {len(placed)} seating{plural}{rounded}; "
        f"{tally.wash_outs} wash-outs"
    )
    out.print(DUPLICATE_NOTE)
    table = Table(box=None, pad_edge=False)
    for name, justify in (
        ("bot", "left"),
        ("seats", "right"),
        ("win %", "right"),
        ("win value", "right"),
        ("deal-in %", "right"),
        ("self-draw %", "right"),
        ("score/seat ± 95% CI", "right"),
        ("ms/move", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for f in figures:
        ci = "" if f.ci95 is None else f" ± {(f.ci95[1] - f.ci95[0]) / 2:.1f}"
        table.add_row(
            f.bot,
            str(f.seats),
            f"{100 * f.win_rate:.1f}",
            "-" if f.mean_win_value is None else f"{f.mean_win_value:.1f}",
            f"{100 * f.deal_in_rate:.1f}",
            f"{100 * f.self_draw_rate:.1f}",
            f"{f.mean_score:+.1f}{ci}",
            "-" if f.ms_per_move is None else f"{f.ms_per_move:.2f}",
        )
    out.print(table)
    out.print(
        "seats: the seats it played over all the games, and the rates are per seat; win value: mean value of its\n"
        "winning hands; score/seat: its mean score change per seat played, with a 95% interval that takes each\n"
        f"wall as one sample (the bot's mean over its seats in that wall's games), so {tally.walls} samples.\n"
        f"speed      {tally.games / elapsed:.1f} games/s with {min(args.jobs, tally.walls)} process(es)"
    )
