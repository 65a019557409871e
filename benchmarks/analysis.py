"""Benchmark of Sparrow's hand analysis against the PyPI ``mahjong`` and ``xiangting`` packages (``make bench``).

Prints, in one run: the machine; how long the lookup tables take to build, and to load from their
cache file (outside every timed loop); the R15.4 census time; win checks per second on complete hands and
shanten per second on random hands, ours against ``mahjong`` (pure Python) and ``xiangting`` (Rust,
with Python bindings) on the very same count vectors, with the speed ratios and how many answers
agreed; and the engine's speed, self-play by the built-in policy and by the strong bot included (see
:func:`engine_section`). Fixed seed; ``--quick`` for a smaller run.

Every comparison runs its functions over the same list of hands (``list(map(f, hands))``), in seven
passes: in each pass every function runs over all the hands in turn, the first rotating from pass to
pass, timed in CPU time (``time.process_time``). Rates are the median pass; a ratio is the median over
passes of the two functions' times in the same pass.

    .venv/bin/python benchmarks/analysis.py [--quick] [--seed N]
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from importlib import metadata

from game import Action, Game, GamePhase, Rules, acceptance, suit_census
from game.hand import any_form_shanten, is_win, standard_shanten
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
_PASSES = 7  # each comparison runs this many passes; the median counts (the machine may be shared)
_REPEATS = 3  # self-play passes each way; the best counts (the machine may be shared)


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
    versions = ", ".join(f"{name} {_version(name)}" for name in ("numpy", "mahjong", "xiangting"))
    print(f"libs:    {versions}")


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


Race = dict[str, tuple[list[float], list[object]]]  # name → (seconds per pass, the last pass's answers)


def _race(functions: dict[str, Callable[[Sequence[int]], object]], hands: list[list[int]]) -> Race:
    """Time every function over all of ``hands`` once in each of ``_PASSES`` passes, in turn, the first
    of each pass rotating. (Turns of a thousand hands cost our lookups about a tenth: each turn begins
    with the tables pushed out of the CPU caches by the other library's turn.)"""
    names = list(functions)
    times: dict[str, list[float]] = {name: [] for name in names}
    answers: dict[str, list[object]] = {}
    for number in range(_PASSES):
        first = number % len(names)
        for name in names[first:] + names[:first]:
            begun = time.process_time()
            answers[name] = list(map(functions[name], hands))
            times[name].append(time.process_time() - begun)
    return {name: (times[name], answers[name]) for name in names}


def _rate(race: Race, name: str, count: int) -> float:
    """Median hands per second of one function."""
    return count / statistics.median(race[name][0])


def _ratio(race: Race, ours: str, theirs: str) -> str:
    """How many times faster ``ours`` ran than ``theirs``: the median over passes, and the range."""
    each = [t / o for o, t in zip(race[ours][0], race[theirs][0], strict=True)]
    return f"{statistics.median(each):.2f}x (passes {min(each):.2f}-{max(each):.2f})"


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
    for _ in range(3):  # the best of three: the cold census is not compared with anything
        suit_census._sets_only.cache_clear()  # cold: no complete vectors cached
        start = time.process_time()
        result = suit_census.census(13)
        best = min(best, time.process_time() - start)
    assert result is not None and result["hands"] == 93600
    ok = result.get("by_waits") == R15_4
    print(f"R15.4 census (13 tiles, 93,600 hands): {best:.3f} s CPU, figures {'match' if ok else 'DIFFER from'} R15.4")
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
    race = _race({"ours": is_win, "mahjong": Agari().is_agari}, hands)
    print(f"win check, {count:,} complete 14-tile hands (4 sets + pair):")
    for name, label in (("ours", "ours    game.hand.is_win"), ("mahjong", "mahjong Agari().is_agari")):
        print(f"  {label:<58}{_rate(race, name, count):>10,.0f} /s   all complete: {all(race[name][1])}")
    agree = sum(a == b for a, b in zip(race["ours"][1], race["mahjong"][1], strict=True))
    print(f"  ratio ours / mahjong {_ratio(race, 'ours', 'mahjong')}; answers agreed: {agree:,} of {count:,}")


def _xiangting() -> Callable[[Sequence[int]], object] | None:
    """``xiangting``'s replacement number (its shanten + 1) of a count vector, called straight from C
    (``functools.partial``: no Python frame of ours in its time), if it is installed."""
    try:
        import xiangting
    except ImportError:
        return None
    return functools.partial(xiangting.calculate_replacement_number, player_count=xiangting.PlayerCount.FOUR)


def shanten_section(count: int, rng: random.Random, kinds: int = 34, label: str = "") -> None:
    """Shanten per second: ``standard_shanten`` against ``mahjong``'s regular-hand shanten and against
    ``xiangting`` (which takes the lowest of three forms: standard, seven pairs, Thirteen Orphans), and
    ``any_form_shanten`` (the same three forms) against ``xiangting``, like for like."""
    from mahjong.shanten import Shanten

    hands = random_hands(count, rng, kinds)
    functions: dict[str, Callable[[Sequence[int]], object]] = {
        "ours": standard_shanten,
        "mahjong": Shanten.calculate_shanten_for_regular_hand,
    }
    peer = _xiangting()
    if peer is not None:
        functions["any"] = any_form_shanten
        functions["xiangting"] = peer
    race = _race(functions, hands)
    labels = {
        "ours": "ours      game.hand.standard_shanten",
        "mahjong": "mahjong   Shanten.calculate_shanten_for_regular_hand",
        "any": "ours      game.hand.any_form_shanten (3 forms)",
        "xiangting": "xiangting calculate_replacement_number (3 forms)",
    }
    print(f"shanten, {count:,} random 13- and 14-tile hands{label}:")
    for name in functions:
        print(f"  {labels[name]:<58}{_rate(race, name, count):>10,.0f} /s")
    ours, theirs = race["ours"][1], race["mahjong"][1]
    agree = sum(a == b for a, b in zip(ours, theirs, strict=True))
    print(f"  ratio standard ours / mahjong   {_ratio(race, 'ours', 'mahjong')}; agreed: {agree:,} of {count:,}")
    shown = 0
    for hand, a, b in zip(hands, ours, theirs, strict=True):
        if a != b and shown < 10:
            print(f"  DISAGREE {_show(hand)}: ours {a}, mahjong {b}")
            shown += 1
    if peer is None:
        print("  (xiangting not installed: pip install 'sparrow[bench]')")
        return
    three, other = race["any"][1], [replacement - 1 for replacement in race["xiangting"][1]]  # type: ignore[operator]
    agree = sum(a == b for a, b in zip(three, other, strict=True))
    print(f"  ratio standard ours / xiangting {_ratio(race, 'ours', 'xiangting')} (it computes 3 forms)")
    print(f"  ratio 3 forms ours / xiangting  {_ratio(race, 'any', 'xiangting')}; agreed: {agree:,} of {count:,}")
    shown = 0
    for hand, a, b in zip(hands, three, other, strict=True):
        if a != b and shown < 10:
            print(f"  DISAGREE {_show(hand)}: ours {a}, xiangting {b}")
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
    started = time.process_time()
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
    elapsed = time.process_time() - started
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
    quick = ", quick run" if args.quick else ""
    print(f"seed {args.seed}{quick}; each comparison: median of {_PASSES} passes, CPU time")
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
