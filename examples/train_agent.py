"""Train a small numpy agent on Sparrow's PettingZoo environment, then measure it in the arena.

The agent is a linear softmax policy over the legal actions: its logits are ``W @ x + b``, where ``x``
is the seat's observation (:func:`game.rl.encode`, each part divided by its largest value), and the
illegal actions are masked out. It learns by REINFORCE with a baseline (a linear estimate of the
return), in self-play: all four seats share the policy, so every hand gives four seats' worth of
decisions. The rewards are the environment's: score changes at the end of a hand, scaled down, plus
its shanten shaping (docs/rl.md, "Rewards") unless ``--shaping 0``.

After training it saves the weights (``--out``, ``.npz``) and plays ``--walls`` duplicate arena walls
(:mod:`game.arena`; each wall two games, one per seating) as ``trained`` against ``random`` and against
``greedy``, in one process. In the arena the agent plays its most likely legal action, decided from the
seat's ``SeatView`` alone.

    .venv/bin/python examples/train_agent.py --minutes 3 --walls 500

Training stops when the time is up, after a whole update. The run prints how many updates it made;
``--updates N`` trains exactly N updates whatever the time, so the same seed and the same N give the
same weights and the same figures (given the same numpy; another build may round sums differently).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from pettingzoo import AECEnv

from game.actions import Action
from game.arena import ARENA_RULES, BotFigures, Tally, play_wall, seatings
from game.bots import BOTS, GreedyBot, Seed
from game.rl import ACTIONS, LAYOUT, NUM_ACTIONS, OBSERVATION_SIZE, action_index, encode, env
from game.seatview import SeatView

Vector = NDArray[np.float64]
Matrix = NDArray[np.float64]

#: Each part of the observation divided by its largest value, so every feature lies in 0..1.
_SCALE: Vector = np.concatenate([np.full(length, 1.0 / high) for _, length, high in LAYOUT])
FEATURES = OBSERVATION_SIZE + 1  # the observation and a constant 1 (the bias)


def features(observation: NDArray[np.float32]) -> Vector:
    """The policy's input: the scaled observation with a trailing 1."""
    x = np.empty(FEATURES)
    x[:-1] = observation * _SCALE
    x[-1] = 1.0
    return x


def masked_softmax(logits: Matrix, mask: NDArray[np.bool_]) -> Matrix:
    """Row-wise softmax over the legal entries of ``logits``; illegal entries get probability 0."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=-1, keepdims=True))


class Adam:
    """The Adam optimiser for one array, as a few lines of numpy (ascent: ``step`` adds)."""

    def __init__(self, shape: tuple[int, ...], lr: float) -> None:
        self.lr = lr
        self.m = np.zeros(shape)
        self.v = np.zeros(shape)
        self.t = 0

    def step(self, param: Matrix, grad: Matrix) -> None:
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * grad
        self.v = 0.999 * self.v + 0.001 * grad * grad
        m = self.m / (1 - 0.9**self.t)
        v = self.v / (1 - 0.999**self.t)
        param += self.lr * m / (np.sqrt(v) + 1e-8)


@dataclass
class Batch:
    """Decisions from some hands: features, legal masks, chosen actions and returns."""

    xs: list[Vector] = field(default_factory=list)
    masks: list[NDArray[np.bool_]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)


class TrainedBot:
    """An arena bot that plays the policy's most likely legal action; deterministic, so the seed is ignored."""

    name = "trained"

    def __init__(self, weights: Matrix) -> None:
        self.weights = weights

    def decide(self, seen: SeatView) -> Action:
        """The legal action with the highest logit, from this seat's view alone.

        :raises ValueError: if the seat has nothing to do.
        """
        if not seen.legal:
            raise ValueError(f"seat {seen.seat} has nothing to do now")
        legal = [action_index(a) for a in seen.legal]
        logits = self.weights[legal] @ features(encode(seen))
        return ACTIONS[legal[int(np.argmax(logits))]]


def play_training_hand(
    e: AECEnv,
    weights: Matrix,
    rng: np.random.Generator,
    batch: Batch,
    gamma: float,
    score_scale: float,
    opponents: str,
) -> int:
    """Play one hand with the policy sampling its actions; add the learning seats' decisions to ``batch``.

    With ``opponents="greedy"`` only seat 0 learns and the other three are ``greedy`` bots. Each
    reward is credited to the seat's decision before it (PettingZoo hands a seat what it earned since
    it last acted). Returns the number of decisions taken by the learning seats.
    """
    raw = e.unwrapped
    greedy = GreedyBot()
    trajectories: list[list[tuple[Vector, NDArray[np.bool_], int]]] = [[], [], [], []]
    rewards: list[list[float]] = [[], [], [], []]
    for agent in e.agent_iter():
        seat = raw.agent_name_mapping[agent]
        obs, reward, terminated, truncated, _ = e.last()
        if rewards[seat]:
            rewards[seat][-1] += reward
        if terminated or truncated:
            e.step(None)
            continue
        if opponents == "greedy" and seat != 0:
            e.step(action_index(greedy.decide(SeatView.of(raw.game, seat))))
            continue
        x = features(obs["observation"])
        mask = obs["action_mask"].astype(bool)
        p = masked_softmax(weights @ x, mask)
        action = int(rng.choice(NUM_ACTIONS, p=p))
        trajectories[seat].append((x, mask, action))
        rewards[seat].append(0.0)
        e.step(action)
    decisions = 0
    final = raw.game.reckoning.settlement.changes if raw.game.reckoning is not None else (0, 0, 0, 0)
    for seat in range(4):
        steps = trajectories[seat]
        if not steps:
            continue
        # The score change is the environment's reward too; only its scale differs from the shaping's.
        rs = rewards[seat]
        rs[-1] += (score_scale - 1.0) * final[seat]
        g = 0.0
        returns = [0.0] * len(rs)
        for i in range(len(rs) - 1, -1, -1):
            g = rs[i] + gamma * g
            returns[i] = g
        for (x, mask, action), ret in zip(steps, returns, strict=True):
            batch.xs.append(x)
            batch.masks.append(mask)
            batch.actions.append(action)
            batch.returns.append(ret)
        decisions += len(steps)
    return decisions


def update(
    weights: Matrix, value: Vector, batch: Batch, policy_opt: Adam, value_opt: Adam, entropy: float
) -> tuple[float, float]:
    """One REINFORCE step with a linear baseline; returns (mean return, mean entropy) of the batch."""
    x = np.stack(batch.xs)
    mask = np.stack(batch.masks)
    ret = np.asarray(batch.returns)
    actions = np.asarray(batch.actions)
    n = len(actions)
    baseline = x @ value
    advantage = ret - baseline
    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    p = masked_softmax(x @ weights.T, mask)
    onehot = np.zeros_like(p)
    onehot[np.arange(n), actions] = 1.0
    logp = np.log(np.where(mask, p, 1.0))
    h = -(p * logp).sum(axis=1)
    # d(log p_a)/d logits = onehot - p; d(entropy)/d logits = -p * (log p + h), both zero off the mask.
    grad_logits = (onehot - p) * advantage[:, None] - entropy * p * (logp + h[:, None])
    policy_opt.step(weights, grad_logits.T @ x / n)
    value_opt.step(value, x.T @ (ret - baseline) / n)
    return float(ret.mean()), float(h.mean())


@dataclass(frozen=True)
class Training:
    """What the training run did."""

    weights: Matrix
    updates: int
    hands: int
    decisions: int
    seconds: float


def train(
    seed: int,
    minutes: float,
    updates: int | None,
    hands_per_update: int = 4,
    lr: float = 0.01,
    gamma: float = 0.9,
    shaping: float = 1.0,
    score_scale: float = 0.01,
    entropy: float = 0.01,
    opponents: str = "self",
    progress: bool = True,
) -> Training:
    """Train from zero weights (a uniform choice among the legal actions, like ``random``).

    Stops after ``updates`` updates if given, else at the first update that ends after ``minutes``.
    """
    rng = np.random.default_rng(seed)
    weights = np.zeros((NUM_ACTIONS, FEATURES))
    value = np.zeros(FEATURES)
    policy_opt = Adam(weights.shape, lr)
    value_opt = Adam(value.shape, lr)
    e = env(rules=ARENA_RULES, shaped=shaping > 0, shaping=shaping)
    e.reset(seed=seed)  # later resets without a seed continue this seed's sequence of deals
    started = time.perf_counter()
    done = hands = decisions = 0
    last_print = started
    mean_return = mean_entropy = 0.0
    while True:
        elapsed = time.perf_counter() - started
        if (updates is not None and done >= updates) or (updates is None and elapsed >= 60 * minutes):
            break
        batch = Batch()
        for _ in range(hands_per_update):
            if hands:
                e.reset()
            decisions += play_training_hand(e, weights, rng, batch, gamma, score_scale, opponents)
            hands += 1
        r, h = update(weights, value, batch, policy_opt, value_opt, entropy)
        done += 1
        mean_return = 0.95 * mean_return + 0.05 * r if done > 1 else r
        mean_entropy = 0.95 * mean_entropy + 0.05 * h if done > 1 else h
        now = time.perf_counter()
        if progress and now - last_print >= 10:
            last_print = now
            print(
                f"train  {now - started:6.0f} s  updates {done:6d}  hands {hands:7d}  decisions {decisions:9d}  "
                f"mean return {mean_return:+.3f}  entropy {mean_entropy:.3f}",
                file=sys.stderr,
                flush=True,
            )
    return Training(weights, done, hands, decisions, time.perf_counter() - started)


@contextmanager
def registered(name: str, weights: Matrix) -> Iterator[None]:
    """``name`` in the bot registry as a :class:`TrainedBot` with ``weights``, for the arena; removed afterwards."""
    if name in BOTS:
        raise ValueError(f"a bot called {name!r} is already registered")

    def factory(seed: Seed) -> TrainedBot:
        del seed
        return TrainedBot(weights)

    BOTS[name] = factory
    try:
        yield
    finally:
        del BOTS[name]


def arena(bots: tuple[str, str, str, str], walls: int, seed: str) -> Tally:
    """Play ``walls`` duplicate walls, each once by each distinct seating, in this process."""
    tally = Tally()
    for wall in range(walls):
        tally.add(play_wall(bots, seed, wall))
    return tally


def report(bots: tuple[str, ...], tally: Tally, seconds: float) -> str:
    """The arena's figures as a small table, one row per bot."""
    lines = [
        f"arena  {','.join(bots)}: {tally.games} games ({tally.walls} walls x {len(seatings(bots))} seatings), "
        f"{tally.wash_outs} wash-outs, {seconds:.0f} s",
        f"{'bot':8} {'seats':>6} {'win %':>6} {'win value':>9} {'deal-in %':>9} {'self-draw %':>11} "
        f"{'score/seat ± 95% CI':>20}",
    ]
    for f in tally.figures():
        lines.append(_row(f))
    return "\n".join(lines)


def _row(f: BotFigures) -> str:
    ci = "" if f.ci95 is None else f" ± {(f.ci95[1] - f.ci95[0]) / 2:.1f}"
    value = "-" if f.mean_win_value is None else f"{f.mean_win_value:.1f}"
    return (
        f"{f.bot:8} {f.seats:6d} {100 * f.win_rate:6.1f} {value:>9} {100 * f.deal_in_rate:9.1f} "
        f"{100 * f.self_draw_rate:11.1f} {f.mean_score:+14.1f}{ci:>6}"
    )


_OPPONENTS = {"self": "self-play", "greedy": "seat 0 against three greedy bots"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    p.add_argument("--updates", type=int, default=None, help="train exactly this many updates instead")
    p.add_argument("--walls", type=int, default=500, help="arena walls per match, two games each (default 500)")
    p.add_argument("--seed", type=int, default=0, help="seed of training and arena (default 0)")
    p.add_argument("--out", type=Path, default=Path("trained_agent.npz"), help="where to save the weights")
    p.add_argument("--opponents", choices=("self", "greedy"), default="self", help="self-play, or seat 0 vs greedy")
    p.add_argument("--shaping", type=float, default=1.0, help="shanten shaping per step (0: score changes only)")
    p.add_argument("--lr", type=float, default=0.01, help="Adam's step size (default 0.01)")
    args = p.parse_args(argv)
    if args.updates is None and not (math.isfinite(args.minutes) and args.minutes > 0):
        p.error("--minutes must be above 0")
    print(
        f"training a linear softmax policy by REINFORCE ({_OPPONENTS[args.opponents]}, shaping {args.shaping}, "
        f"seed {args.seed}) for " + (f"{args.updates} updates" if args.updates is not None else f"{args.minutes} min"),
        flush=True,
    )
    t = train(args.seed, args.minutes, args.updates, lr=args.lr, shaping=args.shaping, opponents=args.opponents)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, weights=t.weights)
    print(
        f"trained {t.updates} updates, {t.hands} hands, {t.decisions} decisions in {t.seconds:.0f} s "
        f"(repeat exactly: --updates {t.updates} --seed {args.seed}); weights saved to {args.out}",
        flush=True,
    )
    with registered("trained", t.weights):
        for opponent in ("random", "greedy"):
            bots = ("trained", opponent, "trained", opponent)
            started = time.perf_counter()
            tally = arena(bots, args.walls, str(args.seed))
            print(report(bots, tally, time.perf_counter() - started), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
