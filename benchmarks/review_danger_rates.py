"""Measure how often a discard the review reads at a given danger was won on (docs/bots.md, *The review*).

Plays ``GAMES`` whole games of two ``strong`` and two ``normal`` bots under ``classical`` (seeds
``calib-0`` onwards), reviews every seat, and prints, per band of :attr:`game.review.Option.danger_read`
of the tile each discard threw, the discards, their mean reading and the share another seat won on:
the points of ``game.review._DEAL_IN_RATES``.

    .venv/bin/python benchmarks/review_danger_rates.py 40
"""

from __future__ import annotations

import sys

from game.actions import ActionType
from game.arena import ARENA_RULES, play_game
from game.game import Game
from game.review import review

BANDS = (0.0, 1e-9, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)  # the first band holds the discards read safe


def main(games: int) -> None:
    count = [0] * (len(BANDS) - 1)
    won = [0] * (len(BANDS) - 1)
    read = [0.0] * (len(BANDS) - 1)
    for g in range(games):
        game = play_game(["strong", "normal", "strong", "normal"], f"calib-{g}", ARENA_RULES)
        for seat in range(4):
            for d in review(Game(ARENA_RULES, f"calib-{g}"), game.log, seat).decisions:
                chosen = next((o for o in d.options if o.action == d.done), None)
                if d.done.type is not ActionType.DISCARD or chosen is None:
                    continue
                band = next(i for i in range(len(BANDS) - 1) if BANDS[i] <= chosen.danger_read < BANDS[i + 1])
                count[band] += 1
                won[band] += d.dealt_in
                read[band] += chosen.danger_read
    print(f"{games} games, {sum(count)} discards")
    for i, n in enumerate(count):
        if n:
            print(
                f"read [{BANDS[i]:.1f}, {min(BANDS[i + 1], 1):.1f}): {n} discards, mean reading {read[i] / n:.3f}, "
                f"won on {won[i]} ({won[i] / n:.2%})"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
