"""game.suit_census: the R15.4 one-suit census, and its agreement with game.hand on smaller sizes."""

from __future__ import annotations

import time
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


def test_thirteen_tile_census_is_fast_from_cold() -> None:
    from game import suit_census

    suit_census._sets_only.cache_clear()
    start = time.perf_counter()
    census(13)
    assert time.perf_counter() - start < 1.0  # 0.1 s here; generous for slow CI machines


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


@pytest.mark.parametrize("tiles", [0, 15, -1])
def test_sizes_outside_one_to_fourteen_are_refused(tiles: int) -> None:
    with pytest.raises(ValueError, match="1 to 14"):
        census(tiles)
