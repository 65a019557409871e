"""Benchmark of Sparrow's hand analysis against the PyPI ``mahjong`` package (``make bench``).

Prints, in one run: the machine; how long the lookup tables take to build, and to load from their
cache file (outside every timed loop); the R15.4 census time; win checks per second on complete hands and
standard shanten per second on random hands, ours against ``mahjong`` on the very same count
vectors, with the speed ratio and how many answers agreed; and the engine's speed, self-play by the
built-in policy and by the strong bot included (see :func:`engine_section`). Fixed seed; ``--quick``
for a smaller run.

    .venv/bin/python benchmarks/analysis.py [--quick] [--seed N]
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from importlib import metadata

from game import Action, Game, GamePhase, Rules, acceptance, suit_census
from game.hand import is_win, standard_shanten
from game.hand_tables import tables
from game.notation import format_tiles
from game.policy import decide
from game.seatread import ViewReader
from game.seatview import SeatView, SeatViewCache
from game.strong import StrongBot
from game.suit_tables import build
from game.tiles import Tile

R15_4 = {"9": 1, "8": 16, "7": 79, "6": 392, "5": 1335, "4": 2948, "3": 6739, "2": 14493, "1": 14067, "0": 53530}
_PUNGS = [(k, k, k) for k in range(34)]
_CHOWS = [(s * 9 + r, s * 9 + r + 1, s * 9 + r + 2) for s in range(3) for r in range(7)]
_GROUPS = _PUNGS + _CHOWS
_REPEATS = 3  # each timed loop runs this often; the best run counts (the machine may be shared)


def machine() -> None:
    """Print the facts a reader needs to compare figures: CPU, cores, Python, library versions."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    print(f"machine: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}")
    print(f"python:  {platform.python_implementation()} {platform.python_version()}")
    versions = ", ".join(f"{name} {_version(name)}" for name in ("numpy", "mahjong"))
    print(f"libs:    {versions}")


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _best_time(function: Callable[[Sequence[int]], object], hands: list[list[int]]) -> tuple[float, list[object]]:
    """Best wall time of ``_REPEATS`` passes of ``function`` over ``hands``, and the last pass's answers."""
    best = float("inf")
    answers: list[object] = []
    for _ in range(_REPEATS):
        start = time.perf_counter()
        answers = [function(h) for h in hands]
        best = min(best, time.perf_counter() - start)
    return best, answers


def _show(counts: Sequence[int]) -> str:
    return format_tiles([Tile(k) for k in range(34) for _ in range(counts[k])])


def table_section() -> None:
    """Time the build of the lookup tables, and their load from the cache file as a new process gets them
    (before the timed loops)."""
    start = time.process_time()
    build()
    built = time.process_time() - start
    tables()  # (writes the cache file if there was none)
    tables.cache_clear()
    start = time.process_time()
    tables()
    loaded = time.process_time() - start
    print(f"lookup tables: built in {built:.2f} s of CPU; loaded from the cache file in {loaded:.2f} s")


def census_section() -> None:
    """Time the R15.4 census of 13-tile one-suit hands from cold, and check its figures."""
    best = float("inf")
    result = None
    for _ in range(_REPEATS):
        suit_census._sets_only.cache_clear()  # cold: no complete vectors cached
        start = time.perf_counter()
        result = suit_census.census(13)
        best = min(best, time.perf_counter() - start)
    assert result is not None and result["hands"] == 93600
    ok = result.get("by_waits") == R15_4
    print(f"R15.4 census (13 tiles, 93,600 hands): {best:.3f} s, figures {'match' if ok else 'DIFFER from'} R15.4")
    slowest, size = 0.0, 0
    for tiles in range(18):  # every hand size `sparrow analyze suit --tiles N` answers, each from cold
        suit_census._sets_only.cache_clear()
        start = time.process_time()
        suit_census.census(tiles)
        spent = time.process_time() - start
        slowest, size = max((slowest, size), (spent, tiles))
    print(f"census of every hand size 0-17, each from cold: slowest {slowest:.3f} s CPU ({size} tiles)")


def complete_hands(count: int, rng: random.Random) -> list[list[int]]:
    """``count`` random complete standard 14-tile hands: four sets and a pair, four copies at most."""
    hands: list[list[int]] = []
    while len(hands) < count:
        counts = [0] * 34
        for group in rng.choices(_GROUPS, k=4):
            for kind in group:
                counts[kind] += 1
        counts[rng.randrange(34)] += 2
        if max(counts) <= 4:
            hands.append(counts)
    return hands


def random_hands(count: int, rng: random.Random, kinds: int = 34) -> list[list[int]]:
    """``count`` hands of 13 and 14 tiles (alternately) drawn from the four copies of ``kinds`` random kinds."""
    hands: list[list[int]] = []
    for i in range(count):
        chosen = range(34) if kinds == 34 else rng.sample(range(34), kinds)
        wall = [k for k in chosen for _ in range(4)]
        counts = [0] * 34
        for kind in rng.sample(wall, 13 + i % 2):
            counts[kind] += 1
        hands.append(counts)
    return hands


def win_section(count: int, rng: random.Random) -> None:
    """Win checks per second on complete hands: ``is_win`` against ``mahjong``'s ``Agari().is_agari``."""
    from mahjong.agari import Agari

    hands = complete_hands(count, rng)
    agari = Agari()
    ours, our_answers = _best_time(is_win, hands)
    theirs, their_answers = _best_time(agari.is_agari, hands)
    print(f"win check, {count:,} complete 14-tile hands (4 sets + pair):")
    print(f"  {'ours    game.hand.is_win':<58}{count / ours:>10,.0f} /s   all complete: {all(our_answers)}")
    print(f"  {'mahjong Agari().is_agari':<58}{count / theirs:>10,.0f} /s   all complete: {all(their_answers)}")
    print(f"  ratio {theirs / ours:.1f}x")


def shanten_section(count: int, rng: random.Random, kinds: int = 34, label: str = "") -> None:
    """Shanten per second: ``standard_shanten`` against ``Shanten.calculate_shanten_for_regular_hand``."""
    from mahjong.shanten import Shanten

    hands = random_hands(count, rng, kinds)
    ours, our_answers = _best_time(standard_shanten, hands)
    theirs, their_answers = _best_time(Shanten.calculate_shanten_for_regular_hand, hands)
    agree = sum(a == b for a, b in zip(our_answers, their_answers, strict=True))
    print(f"standard shanten, {count:,} random 13- and 14-tile hands{label}:")
    print(f"  {'ours    game.hand.standard_shanten':<58}{count / ours:>10,.0f} /s")
    print(f"  {'mahjong Shanten.calculate_shanten_for_regular_hand':<58}{count / theirs:>10,.0f} /s")
    print(f"  ratio {theirs / ours:.1f}x; answers agreed: {agree:,} of {count:,}")
    shown = 0
    for hand, a, b in zip(hands, our_answers, their_answers, strict=True):
        if a != b and shown < 10:
            print(f"  DISAGREE {_show(hand)}: ours {a}, mahjong {b}")
            shown += 1


def engine_section(quick: bool) -> None:
    """Engine speed: random legal play (actions/s, every action validated), and whole games of self-play
    by the built-in policy and by the strong bot, in deals per CPU-second (``time.process_time``), each
    with the seat's view built the two ways bots have had it: read back from the seat's view document
    (the browser's JSON, as bots saw the table before) and built from the deal itself
    (:meth:`game.seatview.SeatView.of`). Both ways play the same games; the run checks that they do."""
    deals = 100 if quick else 1000
    rng = random.Random(7)
    actions = 0
    started = time.perf_counter()
    game = Game(Rules(), seed="bench/0")
    for n in range(deals):
        while game.phase is GamePhase.DEAL:
            seat = rng.choice(game.to_act())
            game.apply(seat, rng.choice(game.legal_actions(seat)))
            actions += 1
        if game.phase is GamePhase.OVER:
            game = Game(Rules(), seed=f"bench/{n}")
        else:
            for seat in range(4):
                game.apply(seat, {"type": "ready"})
                actions += 1
    elapsed = time.perf_counter() - started
    print(f"engine, random legal play, {deals:,} deals:")
    print(f"  {'legal_actions + apply (validated)':<58}{actions / elapsed:>10,.0f} actions/s")
    policy_deals, strong_deals = (40, 10) if quick else (250, 50)
    _self_play("built-in policy self-play (game.policy.decide)", lambda seed: decide, policy_deals)
    _self_play("strong against strong (game.strong.StrongBot)", lambda seed: StrongBot(seed).decide, strong_deals)


Decide = Callable[[SeatView], Action]
Viewer = Callable[[Game, int], SeatView]


def _self_play(label: str, bot: Callable[[str], Decide], deals: int) -> None:
    """Whole games of ``deals`` deals by ``bot`` at every seat, timed in CPU seconds, the seat's view built
    each way in turn (best of :data:`_REPEATS` passes each); then whether both ways chose alike."""
    ways: dict[str, Callable[[], Viewer]] = {
        "view read back from the seat's view document (before)": lambda: ViewReader().of,
        "view built from the deal (SeatView.of)": lambda: functools.partial(SeatView.of, cache=SeatViewCache()),
    }
    best = dict.fromkeys(ways, 0.0)
    logs: dict[str, str] = {}
    for _ in range(_REPEATS):
        for way, viewer in ways.items():
            acceptance.forget()  # each pass starts with no hand's figures kept, as a fresh process does
            start = time.process_time()
            logs[way] = _play(bot, viewer, deals)
            best[way] = max(best[way], deals / (time.process_time() - start))
    print(f"engine, {label}, {deals:,} deals, deals per CPU-second (best of {_REPEATS}):")
    for way, rate in best.items():
        print(f"  {way:<58}{rate:>10,.1f} deals/s")
    before, after = best.values()
    print(f"  ratio {after / before:.1f}x; the same choices both ways: {len(set(logs.values())) == 1}")


def _play(bot: Callable[[str], Decide], viewer: Callable[[], Viewer], deals: int) -> str:
    """Play ``deals`` deals (whole games, one after another, each seat deciding from its own view), and
    return a digest of every action taken."""
    played = number = 0
    log = hashlib.sha256()
    while played < deals:
        game = Game(Rules(), seed=f"bench-self-play/{number}")
        deciders = [bot(f"{number}/{seat}") for seat in range(4)]
        view = viewer()  # one per game, as a table and the arena keep one
        number += 1
        while game.phase is not GamePhase.OVER and played < deals:
            if game.phase is GamePhase.BETWEEN:
                played += 1
                for seat in range(4):
                    game.apply(seat, {"type": "ready"})
                continue
            seat = game.to_act()[0]
            action = deciders[seat](view(game, seat))
            game.apply(seat, action)
            log.update(f"{seat} {action};".encode())
        played += game.phase is GamePhase.OVER  # the last deal of a game ends it
    return log.hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    """Run every section and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smaller run (20,000 and 10,000 hands)")
    parser.add_argument("--seed", type=int, default=20240607, help="seed of the random hands (default 20240607)")
    args = parser.parse_args(argv)
    wins, shantens, crowded = (20_000, 10_000, 10_000) if args.quick else (200_000, 100_000, 50_000)

    machine()
    print(f"seed {args.seed}{', quick run' if args.quick else ''}; each timed loop: best of {_REPEATS} passes")
    print()
    table_section()
    census_section()
    rng = random.Random(args.seed)
    win_section(wins, rng)
    shanten_section(shantens, rng)
    shanten_section(crowded, rng, kinds=6, label=" crowded into 6 kinds (many fourth copies)")
    engine_section(args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
