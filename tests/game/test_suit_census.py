"""game.suit_census: the R15.4 one-suit census, and its agreement with game.hand on smaller sizes."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator

import pytest

from game.hand import is_win, waits
from game.suit_census import census, complete_vectors, hands_count

R15_4 = {"9": 1, "8": 16, "7": 79, "6": 392, "5": 1335, "4": 2948, "3": 6739, "2": 14493, "1": 14067, "0": 53530}


def _suit_vectors(tiles: int, ranks: int = 9) -> Iterator[list[int]]:
    """Every count vector over ``ranks`` ranks (each 0–4) with ``tiles`` tiles."""
    if ranks == 1:
        if tiles <= 4:
            yield [tiles]
        return
    for here in range(min(4, tiles) + 1):
        for rest in _suit_vectors(tiles - here, ranks - 1):
            yield [here, *rest]


def test_thirteen_tiles_reproduce_r15_4() -> None:
    result = census(13)
    assert result == {"tiles": 13, "hands": 93600, "by_waits": {str(k): R15_4[str(k)] for k in range(10)}}
    assert list(result["by_waits"]) == [str(k) for k in range(10)]  # JSON keys in rank-count order


@pytest.mark.parametrize("tiles", [1, 4, 7, 10])
def test_waiting_census_matches_hand_waits(tiles: int) -> None:
    counts: Counter[str] = Counter()
    for vector in _suit_vectors(tiles):
        counts[str(len(waits(vector + [0] * 25)))] += 1
    assert sum(counts.values()) == hands_count(tiles)
    assert census(tiles) == {
        "tiles": tiles,
        "hands": hands_count(tiles),
        "by_waits": {str(k): counts[str(k)] for k in range(10)},
    }


@pytest.mark.parametrize("tiles", [2, 5, 8, 11, 14])
def test_complete_census_matches_is_win(tiles: int) -> None:
    complete = sum(is_win(vector + [0] * 25) for vector in _suit_vectors(tiles))
    assert census(tiles) == {"tiles": tiles, "hands": hands_count(tiles), "complete": complete}


@pytest.mark.parametrize("tiles", [3, 6, 9, 12])
def test_sets_only_census_counts_suits_that_are_whole_sets(tiles: int) -> None:
    # a suit of whole sets completes a hand whose pair is elsewhere (here a pair of East)
    complete = sum(is_win(vector + [0] * 18 + [2] + [0] * 6) for vector in _suit_vectors(tiles))
    assert census(tiles) == {"tiles": tiles, "hands": hands_count(tiles), "complete": complete}
    assert len(complete_vectors(tiles)) == complete


def test_small_known_counts() -> None:
    assert census(1) == {"tiles": 1, "hands": 9, "by_waits": {"0": 0, "1": 9, **{str(k): 0 for k in range(2, 10)}}}
    assert census(2) == {"tiles": 2, "hands": 45, "complete": 9}  # the nine pairs
    assert census(3) == {"tiles": 3, "hands": 165, "complete": 16}  # nine pungs and seven chows
    assert sum(hands_count(n) for n in range(37)) == 5**9


def test_the_empty_suit_is_one_complete_hand() -> None:
    assert census(0) == {"tiles": 0, "hands": 1, "complete": 1}  # no tiles: zero sets, nothing missing


@pytest.mark.parametrize("tiles", [-1, 18])
def test_sizes_outside_zero_to_seventeen_are_refused(tiles: int) -> None:
    with pytest.raises(ValueError, match="0 to 17"):
        census(tiles)


# ------------------------------------------------ an independent count: brute force, and an automaton
def _complete_by_search(vector: list[int], pairs: int) -> bool:
    """Whether ``vector`` is exactly sets plus ``pairs`` pairs: try every way to use the lowest rank."""
    low = next((r for r, c in enumerate(vector) if c), None)
    if low is None:
        return pairs == 0
    rest = list(vector)
    if pairs and rest[low] >= 2:
        rest[low] -= 2
        if _complete_by_search(rest, pairs - 1):
            return True
        rest[low] += 2
    if rest[low] >= 3:
        rest[low] -= 3
        if _complete_by_search(rest, pairs):
            return True
        rest[low] += 3
    if low <= 6 and rest[low + 1] and rest[low + 2]:
        rest[low] -= 1
        rest[low + 1] -= 1
        rest[low + 2] -= 1
        return _complete_by_search(rest, pairs)
    return False


def _census_by_search(tiles: int) -> dict[str, object]:
    vectors = list(_suit_vectors(tiles))
    if tiles % 3 != 1:
        complete = sum(_complete_by_search(v, tiles % 3 // 2) for v in vectors)
        return {"tiles": tiles, "hands": len(vectors), "complete": complete}
    by_waits = Counter(
        sum(v[r] < 4 and _complete_by_search([c + (i == r) for i, c in enumerate(v)], 1) for r in range(9))
        for v in vectors
    )
    return {"tiles": tiles, "hands": len(vectors), "by_waits": {str(k): by_waits[k] for k in range(10)}}


@pytest.mark.parametrize("tiles", range(9))
def test_small_sizes_match_a_brute_force_search(tiles: int) -> None:
    assert census(tiles) == _census_by_search(tiles)


_Run = tuple[tuple[int, int, int], ...]  # (chows needing this rank only, chows needing it and the next, pairs)


@functools.cache
def _step(run: _Run, count: int, rank: int) -> _Run:
    """The ways a left-to-right reading can stand after taking ``count`` tiles of ``rank`` (0-based)."""
    out = set()
    for ending, open_, pairs in run:
        rest = count - ending - open_  # what the chows already begun leave of this rank
        for pair in (0,) if pairs else (0, 1):
            for pungs in (0, 1):
                started = rest - 2 * pair - 3 * pungs  # chows begun here; none from rank 8 on
                if started >= 0 and (started == 0 or rank < 7):
                    out.add((open_, started, pairs + pair))
    return tuple(sorted(out))


def _census_by_automaton(most: int) -> dict[int, dict[str, object]]:
    """Every size's census at once, reading each vector rank by rank and keeping, for the hand and for
    the hand plus one tile at each earlier rank, the set of ways its sets and pair can stand.
    """
    layer: dict[tuple[_Run, tuple[_Run, ...]], Counter[int]] = {(((0, 0, 0),), ()): Counter({0: 1})}
    for rank in range(9):
        following: dict[tuple[_Run, tuple[_Run, ...]], Counter[int]] = {}
        for (plain, extras), by_tiles in layer.items():
            for count in range(5):
                moved = [run for extra in extras if (run := _step(extra, count, rank))]
                if count < 4 and (run := _step(plain, count + 1, rank)):
                    moved.append(run)
                bucket = following.setdefault((_step(plain, count, rank), tuple(sorted(moved))), Counter())
                for tiles, hands in by_tiles.items():
                    if tiles + count <= most:
                        bucket[tiles + count] += hands
        layer = following
    result: dict[int, dict[str, object]] = {}
    for tiles in range(most + 1):
        hands = complete = 0
        by_waits: Counter[int] = Counter()
        for (plain, extras), by_tiles in layer.items():
            count = by_tiles[tiles]
            hands += count
            complete += count if (0, 0, tiles % 3 // 2) in plain else 0
            by_waits[sum((0, 0, 1) in run for run in extras)] += count
        if tiles % 3 == 1:
            result[tiles] = {"tiles": tiles, "hands": hands, "by_waits": {str(k): by_waits[k] for k in range(10)}}
        else:
            result[tiles] = {"tiles": tiles, "hands": hands, "complete": complete}
    return result


def test_every_size_from_zero_to_seventeen_matches_an_automaton_count() -> None:
    expected = _census_by_automaton(17)
    assert expected[13]["by_waits"] == R15_4  # the automaton itself reproduces R15.4
    for tiles in range(18):
        assert census(tiles) == expected[tiles]
