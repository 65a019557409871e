"""examples/train_agent.py: it trains, saves its weights, reports both arena matches, and its bot plays legally."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the `rl` extra is not installed: pip install -e '.[rl]'")

from game.actions import ActionType  # noqa: E402
from game.arena import ARENA_RULES  # noqa: E402
from game.bots import BOTS  # noqa: E402
from game.game import Game, GamePhase  # noqa: E402
from game.rl import NUM_ACTIONS  # noqa: E402
from game.seatview import SeatView, SeatViewCache  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_agent.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    """The example loaded from its file (``examples`` is not a package)."""
    spec = importlib.util.spec_from_file_location("sparrow_example_train_agent", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_a_tiny_run_saves_weights_and_reports_both_matches(tmp_path: Path) -> None:
    out = tmp_path / "agent.npz"
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), "--updates", "8", "--walls", "2", "--seed", "5", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    weights = np.load(out)["weights"]
    assert weights.shape[0] == NUM_ACTIONS
    assert np.any(weights != 0)  # training moved the policy away from its uniform start
    assert "trained 8 updates, 32 hands" in run.stdout
    for opponent in ("random", "greedy"):
        header = f"arena  trained,{opponent},trained,{opponent}: 4 games (2 walls x 2 seatings)"
        assert header in run.stdout
        table = run.stdout.split(header, 1)[1].splitlines()
        rows = {line.split()[0]: line.split() for line in table[2:4]}
        assert set(rows) == {"trained", opponent}
        assert rows["trained"][1] == rows[opponent][1] == "8"  # each sat in half of the 4 games' 16 seats
        assert float(rows["trained"][6]) == -float(rows[opponent][6])  # one seat's gain is another's loss


def test_the_same_seed_trains_the_same_weights(example: ModuleType) -> None:
    def weights(seed: int) -> np.ndarray:
        return example.train(seed, minutes=0, updates=2, hands_per_update=1, progress=False).weights

    first = weights(1)
    assert np.array_equal(first, weights(1))
    assert not np.array_equal(first, weights(2))


def test_the_trained_bot_only_ever_picks_legal_actions(example: ModuleType) -> None:
    # Large random weights make the bot's choices varied: claims, kongs and passes, not just discards.
    weights = np.random.default_rng(0).normal(0, 3, (NUM_ACTIONS, example.FEATURES))
    bot = example.TrainedBot(weights)
    chosen: set[ActionType] = set()
    for seed in range(12):
        game = Game(ARENA_RULES, seed=f"legal/{seed}")
        cache = SeatViewCache()
        while game.phase is GamePhase.DEAL:
            seat = game.to_act()[0]
            seen = SeatView.of(game, seat, cache)
            action = bot.decide(seen)
            assert action in seen.legal
            chosen.add(action.type)
            game.apply(seat, action)
    assert {ActionType.DISCARD, ActionType.PASS} <= chosen
    assert chosen & {ActionType.CHOW, ActionType.PUNG, ActionType.KONG, ActionType.WIN}


def test_the_arena_name_is_registered_only_while_it_plays(example: ModuleType) -> None:
    weights = np.zeros((NUM_ACTIONS, example.FEATURES))
    with example.registered("trained", weights):
        tally = example.arena(("trained", "greedy", "trained", "greedy"), 1, "reg")
    assert "trained" not in BOTS
    assert {f.bot for f in tally.figures()} == {"trained", "greedy"}
