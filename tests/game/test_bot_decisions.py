"""The bots' decisions, pinned: on a few thousand recorded positions in every ruleset, `easy`, `normal`
and `strong` choose exactly what they chose when ``tests/data/bot_decisions.json`` was recorded.

A position is a game (its ruleset and seed) and the actions played so far; the file holds, for every
step of a few games of each ruleset, the action played and the choice of each level for every seat
that had something to do. Making the bots faster must not change a single choice: a player would
notice a bot that plays differently. Re-record (only after a deliberate change of play) from the
repository's root with ``PYTHONPATH=. python tests/game/test_bot_decisions.py``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from game.actions import Action
from game.bots import make_bot
from game.game import Game, GamePhase
from game.rulesets import RULESETS
from game.seatview import SeatView

DATA = Path(__file__).resolve().parent.parent / "data" / "bot_decisions.json"
LEVELS = ("easy", "normal", "strong")
GAMES = 5  # per ruleset, and one more where a seat may declare Original Call (R5.4) at once:
CALLING = {"dmjl": "pinned/dmjl/call/2892", "bmja": "pinned/bmja/call/11774"}  # found by trying seeds
DEALS = 3  # per game
RANDOM_MOVE = 0.08  # share of steps played at random, for odd corners the bots would not reach


def choices(game: Game, seat: int, tag: str) -> list[str]:
    """Each level's choice for ``seat`` now, from the view a bot is given; ``tag`` seeds easy's slips."""
    seen = SeatView.of(game, seat)
    return [str(make_bot(level, tag).decide(seen)) for level in LEVELS]


def record() -> dict[str, Any]:
    """Play the positions and note every level's choice at each (see the module docstring)."""
    games = []
    for name, rules in RULESETS.items():
        for g, seed in enumerate(_seeds(name)):
            rng = random.Random(seed)
            game = Game(rules, seed=seed)
            steps: list[list[Any]] = []
            while game.phase is not GamePhase.OVER and len(game.results) < DEALS:
                step = len(steps)
                asked = {s: choices(game, s, f"{seed}/{step}/{s}") for s in game.to_act()}
                seat = rng.choice(sorted(asked))
                if rng.random() < RANDOM_MOVE:
                    action = str(rng.choice(game.legal_actions(seat)))
                else:  # the level that plays this seat in this game
                    action = asked[seat][(seat + g) % len(LEVELS)]
                game.apply(seat, Action.parse(action))
                steps.append([seat, action, [[s, *picks] for s, picks in sorted(asked.items())]])
            games.append({"ruleset": name, "seed": seed, "steps": steps})
    return {"levels": list(LEVELS), "games": games}


def _seeds(ruleset: str) -> list[str]:
    return [f"pinned/{ruleset}/{g}" for g in range(GAMES)] + ([CALLING[ruleset]] if ruleset in CALLING else [])


def _load() -> list[dict[str, Any]]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert data["levels"] == list(LEVELS)
    games: list[dict[str, Any]] = data["games"]
    return games


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_level_chooses_as_recorded_at_every_position(ruleset: str) -> None:
    games = [g for g in _load() if g["ruleset"] == ruleset]
    assert [g["seed"] for g in games] == _seeds(ruleset)
    positions = 0
    for recorded in games:
        seed = recorded["seed"]
        game = Game(RULESETS[ruleset], seed=seed)
        for step, (seat, action, asked) in enumerate(recorded["steps"]):
            assert sorted(game.to_act()) == [a[0] for a in asked], (seed, step)
            for s, *picks in asked:
                assert choices(game, s, f"{seed}/{step}/{s}") == picks, (seed, step, s)
                positions += 1
            game.apply(seat, Action.parse(action))
    assert positions >= 800


def test_the_recorded_positions_reach_every_kind_of_decision() -> None:
    """The file is worth its size: claims, kongs, wins, and Original Call where a ruleset has it."""
    kinds = {a.split()[0] for g in _load() for _, _, asked in g["steps"] for _, *picks in asked for a in picks}
    assert {"discard", "pass", "chow", "pung", "kong", "win", "ready", "original_call"} <= kinds
    assert sum(len(asked) for g in _load() for _, _, asked in g["steps"]) >= 4000


if __name__ == "__main__":
    DATA.write_text(json.dumps(record(), separators=(",", ":")) + "\n", encoding="utf-8")
    sys.exit(0)
