"""Benchmark of the review (issue 35: a whole 16-hand game reviewed in under 2 s on one core).

Plays GAMES games of 16 hands with four different bots (strong, normal, greedy, easy) and reviews
each seat of each game with :func:`game.review.review`, in this one process (one core). Reports the
CPU time (``time.process_time``) of each review, from the game's actions to the finished review and
its JSON, beside the CPU of only replaying the same actions, and the review's CPU per decision.
CPU time, not wall time: other jobs on the machine slow the wall clock, not the work.

    .venv/bin/python benchmarks/review.py [--games 4] [--hands 16] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

from game.arena import ARENA_RULES, play_game
from game.game import Game
from game.review import review

BOTS = ("strong", "normal", "greedy", "easy")


def main() -> None:
    """Play, review and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games to play and review (default 4)")
    parser.add_argument("--hands", type=int, default=16, help="hands per game (default 16)")
    parser.add_argument("--seed", default="1", help="seed of the first game (default 1)")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}; bots {','.join(BOTS)}; {args.hands} hands a game")
    Game(ARENA_RULES, "warm-up")  # the lookup tables are built once per process, before any timing
    review(Game(ARENA_RULES, "warm-up"), [], 0)
    seconds: list[float] = []
    replays: list[float] = []
    decisions = 0
    for g in range(args.games):
        seed = f"{args.seed}/{g}"
        game = play_game(BOTS, seed, deals=args.hands)
        actions = game.log
        start = time.process_time()
        replayed = Game(ARENA_RULES, seed)
        for seat, action in actions:
            replayed.apply(seat, action)
        replays.append(time.process_time() - start)
        for seat in range(4):
            start = time.process_time()
            seen = review(Game(ARENA_RULES, seed), actions, seat)
            json.dumps(seen.to_json())
            spent = time.process_time() - start
            seconds.append(spent)
            count = len(seen.decisions)
            decisions += count
            print(
                f"game {g} seat {seat} ({BOTS[seat]:>6}): {len(seen.hands)} hands, {len(actions)} actions, "
                f"{count} decisions reviewed in {spent:.3f} s CPU"
            )
    print(
        f"reviews: {len(seconds)}; CPU per whole-game review: mean {statistics.mean(seconds):.3f} s, "
        f"max {max(seconds):.3f} s (target < 2 s)"
    )
    print(f"CPU per reviewed decision: {1000 * sum(seconds) / decisions:.2f} ms")
    print(
        f"replaying a game's actions alone: mean {statistics.mean(replays):.3f} s CPU "
        f"({statistics.mean(seconds) / statistics.mean(replays):.1f}× less than a review)"
    )


if __name__ == "__main__":
    main()
