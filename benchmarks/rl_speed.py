"""Speed of the PettingZoo environment (`game.rl`) beside RLCard's mahjong environment, in one run.

Random agents on both: every action is a uniform choice among the legal ones (our action mask,
RLCard's `legal_actions`), from one seeded generator per environment. Both environments build the
acting seat's observation at every step, as a learner would need it. Each pass plays the same
number of hands (deals) on each environment, the two taking turns 10 hands at a time, after a few
untimed hands on each, timed in CPU time (`time.process_time`; environments are made outside it).
Rates are each environment's median pass; the ratio is the median over passes of the two rates
measured in the same pass.

RLCard's mahjong is a simpler game: 136 tiles (no flowers or seasons), no scoring (the winner gets
+1 and every other seat -1), kongs only on a discard, one claim offered per discard, and a hand is
declared won as soon as it is complete, with no win action.

    python benchmarks/rl_speed.py [--hands 100] [--passes 8] [--seed 0] [--chunk 10]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version

import numpy as np
import rlcard

from game.rl import env


@dataclass
class Run:
    """One pass over one environment."""

    hands: int
    actions: int
    seconds: float
    endings: Counter[str]

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds


def machine() -> list[str]:
    """The machine, Python and library versions, as lines to print."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    libs = ", ".join(f"{name} {version(name)}" for name in ("numpy", "pettingzoo", "gymnasium", "rlcard"))
    return [
        f"machine: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}",
        f"python:  {platform.python_implementation()} {platform.python_version()}",
        f"libs:    {libs}",
    ]


Player = Callable[[int], Run]  # plays the next n hands on one environment, timing only the play


def ours(seed: int) -> Player:
    """Random masked actions on `game.rl.env()`, one hand per episode, seeds seed, seed + 1, …"""
    rng = np.random.default_rng(seed)
    e = env()
    played = 0

    def play(hands: int) -> Run:
        nonlocal played
        actions = 0
        endings: Counter[str] = Counter()
        started = time.process_time()
        for hand in range(played, played + hands):
            e.reset(seed=seed + hand)
            for _ in e.agent_iter():
                obs, _, terminated, truncated, _ = e.last()
                if terminated or truncated:
                    e.step(None)
                    continue
                e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                actions += 1
            endings[e.unwrapped.game.results[-1].termination.value] += 1
        played += hands
        return Run(hands, actions, time.process_time() - started, endings)

    return play


def theirs(seed: int) -> Player:
    """Random legal actions on `rlcard.make("mahjong")`, its deals shuffled by its own seeded generator."""
    rng = np.random.default_rng(seed)
    e = rlcard.make("mahjong", config={"seed": seed})

    def play(hands: int) -> Run:
        actions = 0
        endings: Counter[str] = Counter()
        started = time.process_time()
        for _ in range(hands):
            state, _ = e.reset()
            while not e.is_over():
                state, _ = e.step(int(rng.choice(list(state["legal_actions"]))))
                actions += 1
            endings["win" if e.get_payoffs().max() > 0 else "wash_out"] += 1
        return Run(hands, actions, time.process_time() - started, endings)

    return play


def _add(a: Run, b: Run) -> Run:
    return Run(a.hands + b.hands, a.actions + b.actions, a.seconds + b.seconds, a.endings + b.endings)


def one_pass(hands: int, seed: int, chunk: int) -> dict[str, Run]:
    """``hands`` hands on each environment, the two taking turns ``chunk`` hands at a time (the first of
    each turn alternating), so that what else the machine does weighs on both alike."""
    players = {"sparrow": ours(seed), "rlcard": theirs(seed)}
    runs = {name: Run(0, 0, 0.0, Counter()) for name in players}
    names = list(players)
    for turn, start in enumerate(range(0, hands, chunk)):
        size = min(chunk, hands - start)
        for name in names if turn % 2 == 0 else names[::-1]:
            runs[name] = _add(runs[name], players[name](size))
    return runs


def _median_run(runs: list[Run]) -> Run:
    """The pass of median speed (the lower middle one of an even number)."""
    return sorted(runs, key=lambda run: run.actions_per_second)[(len(runs) - 1) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100, help="hands per environment and pass")
    parser.add_argument("--passes", type=int, default=8, help="passes; the median counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=10, help="hands each environment plays in its turn")
    args = parser.parse_args()
    print("\n".join(machine()))
    print(f"random agents, {args.hands} hands per environment and pass, median of {args.passes} passes (CPU time)")
    print(f"seed {args.seed}")
    one_pass(3, args.seed + 10**6, 3)  # untimed: our lookup tables are got once per process, on first use
    runs: dict[str, list[Run]] = {"sparrow": [], "rlcard": []}
    for _ in range(args.passes):
        for name, run in one_pass(args.hands, args.seed, args.chunk).items():
            runs[name].append(run)
    for name, each in runs.items():
        print(f"  {name} actions/s by pass: {' '.join(f'{run.actions_per_second:,.0f}' for run in each)}")
    print()
    print(f"{'environment':<38}{'actions/s':>10}{'hands/s':>9}{'actions/hand':>14}  endings (median pass)")
    labels = {"sparrow": "sparrow game.rl (PettingZoo AEC)", "rlcard": "rlcard mahjong (RLCard Env)"}
    for name, each in runs.items():
        run = _median_run(each)
        endings = ", ".join(f"{k} {v}" for k, v in sorted(run.endings.items()))
        print(
            f"{labels[name]:<38}{run.actions_per_second:>10,.0f}{run.hands_per_second:>9,.1f}"
            f"{run.actions / run.hands:>14.1f}  {endings}"
        )
    pairs = list(zip(runs["sparrow"], runs["rlcard"], strict=True))
    by_actions = [a.actions_per_second / b.actions_per_second for a, b in pairs]
    by_hands = [a.hands_per_second / b.hands_per_second for a, b in pairs]
    print(
        f"{'ratio sparrow / rlcard, median pass':<38}{statistics.median(by_actions):>9.2f}x"
        f"{statistics.median(by_hands):>8.2f}x   (actions/s by pass {min(by_actions):.2f}-{max(by_actions):.2f})"
    )


if __name__ == "__main__":
    main()
