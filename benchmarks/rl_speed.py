"""Speed of the PettingZoo environment (`game.rl`) beside RLCard's mahjong environment, in one run.

Random agents on both: every action is a uniform choice among the legal ones (our action mask,
RLCard's `legal_actions`), from one seeded generator per environment. Both environments build the
acting seat's observation at every step, as a learner would need it. Each pass plays the same
number of hands (deals) on each environment, the two taking turns, after a few untimed hands on
each; the best pass of each counts, since the machine may be shared.

RLCard's mahjong is a simpler game: 136 tiles (no flowers or seasons), no scoring (the winner gets
+1 and every other seat -1), kongs only on a discard, one claim offered per discard, and a hand is
declared won as soon as it is complete, with no win action.

    python benchmarks/rl_speed.py [--hands 100] [--passes 8] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections import Counter
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


def ours(hands: int, seed: int) -> Run:
    """Random masked actions on `game.rl.env()`, one hand per episode, seeds seed, seed + 1, …"""
    rng = np.random.default_rng(seed)
    e = env()
    actions = 0
    endings: Counter[str] = Counter()
    started = time.perf_counter()
    for hand in range(hands):
        e.reset(seed=seed + hand)
        for _ in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            actions += 1
        endings[e.unwrapped.game.results[-1].termination.value] += 1
    return Run(hands, actions, time.perf_counter() - started, endings)


def theirs(hands: int, seed: int) -> Run:
    """Random legal actions on `rlcard.make("mahjong")`, its deals shuffled by its own seeded generator."""
    rng = np.random.default_rng(seed)
    e = rlcard.make("mahjong", config={"seed": seed})
    actions = 0
    endings: Counter[str] = Counter()
    started = time.perf_counter()
    for _ in range(hands):
        state, _ = e.reset()
        while not e.is_over():
            state, _ = e.step(int(rng.choice(list(state["legal_actions"]))))
            actions += 1
        endings["win" if e.get_payoffs().max() > 0 else "wash_out"] += 1
    return Run(hands, actions, time.perf_counter() - started, endings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100, help="hands per environment and pass")
    parser.add_argument("--passes", type=int, default=8, help="passes; the best of each environment counts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("\n".join(machine()))
    print(f"random agents, {args.hands} hands per environment and pass, best of {args.passes} passes, seed {args.seed}")
    ours(3, args.seed + 10**6)  # untimed: our lookup tables are built once per process, on first use
    theirs(3, args.seed + 10**6)
    best: dict[str, Run] = {}
    rates: dict[str, list[str]] = {"sparrow": [], "rlcard": []}
    for _ in range(args.passes):
        for name, play in (("sparrow", ours), ("rlcard", theirs)):
            run = play(args.hands, args.seed)
            rates[name].append(f"{run.actions_per_second:,.0f}")
            if name not in best or run.seconds < best[name].seconds:
                best[name] = run
    for name, each in rates.items():
        print(f"  {name} actions/s by pass: {' '.join(each)}")
    print()
    print(f"{'environment':<38}{'actions/s':>10}{'hands/s':>9}{'actions/hand':>14}  endings")
    labels = {"sparrow": "sparrow game.rl (PettingZoo AEC)", "rlcard": "rlcard mahjong (RLCard Env)"}
    for name, run in best.items():
        endings = ", ".join(f"{k} {v}" for k, v in sorted(run.endings.items()))
        print(
            f"{labels[name]:<38}{run.actions_per_second:>10,.0f}{run.hands_per_second:>9,.1f}"
            f"{run.actions / run.hands:>14.1f}  {endings}"
        )
    a, b = best["sparrow"], best["rlcard"]
    print(
        f"{'ratio sparrow / rlcard':<38}{a.actions_per_second / b.actions_per_second:>9.2f}x"
        f"{a.hands_per_second / b.hands_per_second:>8.2f}x"
    )


if __name__ == "__main__":
    main()
