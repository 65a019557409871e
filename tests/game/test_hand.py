"""game.hand: win checks, decompositions, waits and shanten (R7, R10.3), against known answers,
brute force by definition, and each other."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.hand import (
    Decomposition,
    TileSet,
    any_form_shanten,
    counts_of,
    decompositions,
    is_thirteen_orphans,
    is_win,
    orphans_shanten,
    seven_pairs_shanten,
    shanten,
    standard_shanten,
    waits,
)
from game.hand_tables import COMMON_TILES, special_counts, tables
from game.notation import format_tiles
from game.suit_tables import component_distances
from game.tiles import Tile

ANSWERS = Path(__file__).parent.parent / "data" / "hand_answers.txt"
PROPERTY = settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every set as a count vector: 34 pungs and 21 chows.
_GROUPS: list[tuple[int, ...]] = [(k, k, k) for k in range(34)] + [
    (s * 9 + r, s * 9 + r + 1, s * 9 + r + 2) for s in range(3) for r in range(7)
]


def _answers() -> Iterator[tuple[str, int, str]]:
    for line in ANSWERS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            hand, value, rest = (part.strip() for part in line.split("|"))
            yield hand, int(value), rest


def _vector(tiles: list[int]) -> list[int]:
    counts = [0] * 34
    for k in tiles:
        counts[k] += 1
    return counts


# -- known answers --------------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "expected", "rest"), list(_answers()), ids=lambda v: str(v))
def test_known_answer(hand: str, expected: int, rest: str) -> None:
    counts = counts_of(hand)
    assert shanten(counts) == expected
    if sum(counts) % 3 == 1:
        assert format_tiles(waits(counts), compact=False) == ("" if rest == "-" else rest)
    else:
        assert len(decompositions(counts)) == int(rest)
        assert is_win(counts) == (expected == -1)


def test_nine_gates_waits_on_every_rank_of_its_suit() -> None:
    for suit in "bcd":
        assert [str(t) for t in waits(counts_of(f"1112345678999{suit}"))] == [f"{r}{suit}" for r in range(1, 10)]


def test_thirteen_orphans_waits_thirteen_ways_and_wins() -> None:
    ready = counts_of("19b 19c 19d ESWNRGP")
    assert [str(t) for t in waits(ready)] == "1b 9b 1c 9c 1d 9d E S W N R G P".split()
    for tile in waits(ready):
        whole = list(ready)
        whole[tile] += 1
        assert is_win(whole) and is_thirteen_orphans(whole)
        assert shanten(whole) == -1 and standard_shanten(whole) > 0
        assert decompositions(whole) == []  # not a standard shape (R7.2)


def test_thirteen_orphans_needs_a_major_as_fourteenth_tile() -> None:
    assert not is_win(counts_of("19b 19c 19d ESWNRGP 5b"))
    assert not is_thirteen_orphans(counts_of("19b 19c 19d ESWNRGP 5b"))
    assert not is_win(counts_of("19b 19c 19d ESWNRGP"))
    with pytest.raises(ValueError, match="13 or 14"):
        orphans_shanten(counts_of("19b 19c 19d E"))


def test_fifth_copy_is_never_a_wait() -> None:
    hand = counts_of("1111b 234c 567c 888d")
    assert waits(hand) == []
    assert shanten(hand) == 1  # the only completion needs a fifth 1b
    whole = list(hand)
    whole[Tile.B1] += 1
    with pytest.raises(ValueError, match="holds 5 of 1b"):
        is_win(whole)


def test_tiles_all_held_in_exposed_sets_are_not_waits() -> None:
    single = counts_of("5b")
    assert waits(single) == [Tile.B5]
    assert waits(single, held=counts_of("5b 555b")) == []  # an exposed pung of 5b holds the rest
    assert waits(counts_of("13c EE"), held=counts_of("13c EE 222c")) == [Tile.C2]  # one 2c left
    assert waits(counts_of("13c EE"), held=counts_of("13c EE 2222c")) == []
    with pytest.raises(ValueError, match="held must include"):
        waits(counts_of("13c EE"), held=counts_of("1c"))


def test_seven_pairs_is_not_a_win() -> None:
    assert not is_win(counts_of("11b 44b 77b 22c 55c 88c EE"))


def test_decompositions_of_ambiguous_hand() -> None:
    found = decompositions(counts_of("111222333b 789c 55d"))
    assert found == [
        Decomposition(
            Tile.D5,
            (TileSet("pung", Tile.B1), TileSet("pung", Tile.B2), TileSet("pung", Tile.B3), TileSet("chow", Tile.C7)),
        ),
        Decomposition(
            Tile.D5,
            (TileSet("chow", Tile.B1), TileSet("chow", Tile.B1), TileSet("chow", Tile.B1), TileSet("chow", Tile.C7)),
        ),
    ]
    assert [str(d) for d in found] == ["111b 222b 333b 789c 55d", "123b 123b 123b 789c 55d"]


def test_decompositions_where_the_pair_moves() -> None:
    found = [str(d) for d in decompositions(counts_of("11123b 456c 789d EEE"))]
    assert found == ["123b 456c 789d EEE 11b"]
    found = [str(d) for d in decompositions(counts_of("1112345678999b 5b"))]  # Nine Gates won on 5b
    assert found == ["111b 234b 678b 999b 55b"]


def test_four_identical_tiles_are_never_a_kong() -> None:
    found = [str(d) for d in decompositions(counts_of("1111b 2345678b 999b"))]
    assert found == ["111b 123b 456b 789b 99b"]


def test_tile_set_reads_back() -> None:
    chow = TileSet("chow", Tile.D7)
    assert chow.tiles == (Tile.D7, Tile.D8, Tile.D9)
    assert eval(repr(chow), {"TileSet": TileSet, "Tile": Tile}) == chow


def test_smaller_concealed_parts_with_declared_sets() -> None:
    assert is_win(counts_of("55d")) and shanten(counts_of("55d")) == -1  # four sets declared
    assert shanten(counts_of("45d")) == 0  # 2 tiles: one from complete
    assert waits(counts_of("4556d")) == [Tile.D5]
    assert is_win(counts_of("456d 99c")) and not is_win(counts_of("456d 9c 8c"))


def test_other_sequences_are_accepted() -> None:
    hand = counts_of("123b 456b 789b 123c 44c")
    assert is_win(tuple(hand)) and is_win(hand + [0] * 8) and is_win(np.array(hand))
    assert shanten(tuple(hand)) == shanten(np.array(hand)) == -1


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (counts_of("11111b"), "holds 5 of 1b"),
        (counts_of("111b 222b 333b 444b 555b"), "15 concealed tiles"),
        ([0] * 33, "34 entries"),
        ([-1] + [0] * 33, "holds -1 of 1b"),
    ],
)
def test_bad_vectors_are_refused(counts: list[int], message: str) -> None:
    for function in (is_win, shanten, decompositions):
        with pytest.raises(ValueError, match=message):
            function(counts)


def test_tile_counts_that_are_no_hand() -> None:
    with pytest.raises(ValueError, match="3k \\+ 1 or 3k \\+ 2"):
        shanten(counts_of("123b 456b 789b 123c"))
    with pytest.raises(ValueError, match="3k \\+ 1"):
        waits(counts_of("123b 456b 789b 123c 44c"))
    assert not is_win(counts_of("123b 456b 789b 123c"))  # 12 tiles: never complete
    with pytest.raises(ValueError, match="bonus tile"):
        counts_of("123b 1f")


# -- brute force by definition ---------------------------------------------------------------


def _targets(sets: int) -> np.ndarray:
    """Every vector of ``sets`` sets plus a pair, no kind over 4 (the shanten definition's targets)."""
    groups = np.zeros((len(_GROUPS), 34), dtype=np.int16)
    for g, tiles in enumerate(_GROUPS):
        for k in tiles:
            groups[g, k] += 1
    combos = np.array(list(itertools.combinations_with_replacement(range(len(_GROUPS)), sets)), dtype=np.intp)
    bases = groups[combos].sum(axis=1) if sets else np.zeros((1, 34), dtype=np.int16)
    rows = (bases[:, None, :] + 2 * np.eye(34, dtype=np.int16)[None, :, :]).reshape(-1, 34)
    return rows[rows.max(axis=1) <= 4]


def _brute_shanten(counts: list[int], targets: np.ndarray) -> int:
    """(fewest target tiles not in the hand) − 1; a target's tiles not in the hand = its size − overlap."""
    held = [k for k in range(34) if counts[k]]
    overlap = np.minimum(targets[:, held], np.array([counts[k] for k in held], dtype=np.int16)).sum(axis=1)
    return int(targets[0].sum() - overlap.max()) - 1


def test_standard_shanten_matches_definition_on_small_hands() -> None:
    rng = random.Random(20240607)
    wall = [k for k in range(34) for _ in range(4)]
    by_sets = {m: _targets(m) for m in range(3)}
    for size in (1, 2, 4, 5, 7, 8):
        for _ in range(60):
            counts = _vector(rng.sample(wall, size))
            assert standard_shanten(counts) == _brute_shanten(counts, by_sets[size // 3]), format_tiles(
                [Tile(k) for k in range(34) for _ in range(counts[k])]
            )


def test_standard_shanten_matches_definition_with_three_sets() -> None:
    rng = random.Random(7)
    targets = _targets(3)
    for size in (10, 11):
        for _ in range(20):
            # crowd the hand into few kinds so that the four-copy limit matters
            kinds = rng.sample(range(34), 6)
            wall = [k for k in kinds for _ in range(4)]
            counts = _vector(rng.sample(wall, size))
            assert standard_shanten(counts) == _brute_shanten(counts, targets)


def _suit_targets(sets: int, pair: int) -> np.ndarray:
    rows = []
    groups = [(r, r, r) for r in range(9)] + [(r, r + 1, r + 2) for r in range(7)]
    for combo in itertools.combinations_with_replacement(range(len(groups)), sets):
        base = [0] * 9
        for g in combo:
            for k in groups[g]:
                base[k] += 1
        for p in range(9) if pair else [None]:
            row = list(base)
            if p is not None:
                row[p] += 2
            if max(row) <= 4:
                rows.append(row)
    return np.array(rows, dtype=np.int16)


def test_suit_distances_match_definition() -> None:
    rng = random.Random(3)
    targets = {(m, p): _suit_targets(m, p) for m in range(5) for p in range(2)}
    for _ in range(150):
        size = rng.randrange(15)
        vector = [0] * 9
        for k in rng.sample([r for r in range(9) for _ in range(4)], size):
            vector[k] += 1
        expected = tuple(
            int(np.maximum(targets[m, p] - np.array(vector), 0).sum(axis=1).min()) for m in range(5) for p in range(2)
        )
        assert component_distances(bytes(vector)) == expected, vector


def _brute_decompositions(counts: list[int]) -> set[tuple[int, tuple[int, ...]]]:
    """Every (pair, multiset of group indices) summing exactly to ``counts``."""
    found: set[tuple[int, tuple[int, ...]]] = set()
    n = sum(counts)
    for pair in range(34):
        if counts[pair] < 2:
            continue
        rest = list(counts)
        rest[pair] -= 2
        usable = [g for g, tiles in enumerate(_GROUPS) if all(rest[k] for k in tiles)]
        for combo in itertools.combinations_with_replacement(usable, n // 3):
            left = list(rest)
            for g in combo:
                for k in _GROUPS[g]:
                    left[k] -= 1
            if not any(left):
                found.add((pair, combo))
    return found


def _as_brute(d: Decomposition) -> tuple[int, tuple[int, ...]]:
    index = {("pung", g[0]) if g[0] == g[1] else ("chow", g[0]): i for i, g in enumerate(_GROUPS)}
    return int(d.pair), tuple(sorted(index[s.kind, int(s.first)] for s in d.sets))


# -- properties -----------------------------------------------------------------------------

_SIZES = (1, 2, 4, 5, 7, 8, 10, 11, 13, 14)


@st.composite
def random_hands(draw: st.DrawFn) -> list[int]:
    """A hand drawn from the 136 tiles, of any concealed size a hand can have."""
    size = draw(st.sampled_from(_SIZES))
    picks = draw(st.lists(st.integers(0, 135), min_size=size, max_size=size, unique=True))
    return _vector([p // 4 for p in picks])


@st.composite
def near_complete_hands(draw: st.DrawFn) -> list[int]:
    """A complete hand (sets + pair, often crowded into one suit) with up to two tiles swapped or dropped."""
    sets = draw(st.integers(0, 4))
    suit = draw(st.sampled_from([range(34), range(9), range(27, 34)]))
    groups = [g for g in _GROUPS if g[0] in suit]
    counts = [0] * 34
    for g in draw(st.lists(st.sampled_from(groups), min_size=sets, max_size=sets)):
        for k in g:
            counts[k] += 1
    counts[draw(st.sampled_from(list(suit)))] += 2
    if max(counts) > 4:
        counts = [min(c, 4) for c in counts]
        while sum(counts) % 3 != 2:
            counts[counts.index(max(counts))] -= 1
    for _ in range(draw(st.integers(0, 2))):
        held = [k for k in range(34) if counts[k]]
        counts[draw(st.sampled_from(held))] -= 1
        if draw(st.booleans()):
            free = [k for k in range(34) if counts[k] < 4]
            counts[draw(st.sampled_from(free))] += 1
    if sum(counts) == 0:
        counts[draw(st.sampled_from(list(suit)))] += 1
    elif sum(counts) % 3 == 0:  # dropped without replacing: drop one more
        counts[next(k for k in range(34) if counts[k])] -= 1
    return counts


hands = st.one_of(random_hands(), near_complete_hands())


@PROPERTY
@given(hands)
def test_win_shanten_and_waits_agree(counts: list[int]) -> None:
    n = sum(counts)
    value = shanten(counts)
    if n % 3 == 2:
        assert is_win(counts) == (value == -1)
        if value >= 0:  # scored as after the best discard
            assert value == min(shanten([c - (k == d) for k, c in enumerate(counts)]) for d in range(34) if counts[d])
        return
    assert value >= 0 and not is_win(counts)
    found = waits(counts)
    # shanten 0 means one tile short of a target with no kind over four: exactly "some wait exists"
    assert (value == 0) == bool(found)
    after = {}
    for k in range(34):
        if counts[k] < 4:
            whole = list(counts)
            whole[k] += 1
            after[k] = shanten(whole)
            assert is_win(whole) == (Tile(k) in found)
    assert value == 1 + min(after.values())


@PROPERTY
@given(near_complete_hands())
def test_decompositions_are_exactly_the_standard_readings(counts: list[int]) -> None:
    found = decompositions(counts) if sum(counts) % 3 == 2 else []
    if sum(counts) % 3 != 2:
        return
    assert bool(found) == (standard_shanten(counts) == -1)
    assert len(set(found)) == len(found)
    for d in found:
        assert sum(len(s.tiles) for s in d.sets) + 2 == sum(counts)
        assert counts_of([t for s in d.sets for t in s.tiles] + [d.pair, d.pair]) == counts
    assert {_as_brute(d) for d in found} == _brute_decompositions(counts)
    assert found == decompositions(counts)  # deterministic order


@PROPERTY
@given(random_hands())
def test_shanten_is_the_lower_of_its_two_shapes(counts: list[int]) -> None:
    n = sum(counts)
    expected = standard_shanten(counts)
    if n >= 13:
        expected = min(expected, orphans_shanten(counts))
    assert shanten(counts) == expected


def test_standard_shanten_agrees_with_mahjong_package() -> None:
    shanten_module = pytest.importorskip("mahjong.shanten")
    calculate = shanten_module.Shanten.calculate_shanten_for_regular_hand
    rng = random.Random(99)
    wall = [k for k in range(34) for _ in range(4)]
    for i in range(1500):
        counts = _vector(rng.sample(wall, 13 + i % 2))
        assert standard_shanten(counts) == calculate(counts)


# -- the fast paths against simple references ---------------------------------------------------


def _reference_sets(counts: list[int]) -> bool:
    """Whether ``counts`` is sets alone: the lowest kind held starts a pung or a chow (plain recursion)."""
    k = next((k for k in range(34) if counts[k]), None)
    if k is None:
        return True
    if counts[k] >= 3:
        counts[k] -= 3
        found = _reference_sets(counts)
        counts[k] += 3
        if found:
            return True
    if k < 27 and k % 9 <= 6 and counts[k + 1] and counts[k + 2]:
        for i in (k, k + 1, k + 2):
            counts[i] -= 1
        found = _reference_sets(counts)
        for i in (k, k + 1, k + 2):
            counts[i] += 1
        return found
    return False


def _reference_is_win(counts: list[int]) -> bool:
    """Sets plus one pair, or Thirteen Orphans: by recursion, with no tables."""
    if sum(counts) % 3 == 2:
        for pair in range(34):
            if counts[pair] >= 2:
                rest = list(counts)
                rest[pair] -= 2
                if _reference_sets(rest):
                    return True
    majors = [0, 8, 9, 17, 18, 26, *range(27, 34)]
    return sum(counts) == 14 and all(counts[k] for k in majors) and sum(counts[k] for k in majors) == 14


@st.composite
def one_suit_hands(draw: st.DrawFn) -> list[int]:
    """Up to 14 tiles of one suit or of the honours: components past the common tables' 8 tiles."""
    kinds = draw(st.sampled_from([range(0, 9), range(9, 18), range(18, 27), range(27, 34)]))
    size = draw(st.sampled_from(_SIZES))
    picks = draw(st.lists(st.integers(0, 4 * len(kinds) - 1), min_size=size, max_size=size, unique=True))
    return _vector([kinds[0] + p // 4 for p in picks])


@st.composite
def orphans_hands(draw: st.DrawFn) -> list[int]:
    """Thirteen Orphans, or a near miss: the 13 majors and one more tile, one of them maybe swapped."""
    majors = [0, 8, 9, 17, 18, 26, *range(27, 34)]
    counts = _vector([*majors, draw(st.sampled_from(majors + [4, 13]))])
    if draw(st.booleans()):
        counts[draw(st.sampled_from(majors))] -= 1
        counts[draw(st.sampled_from([k for k in range(34) if counts[k] < 4]))] += 1
    return counts


every_hand = st.one_of(random_hands(), near_complete_hands(), one_suit_hands(), orphans_hands())


@PROPERTY
@given(every_hand)
def test_win_check_agrees_with_plain_recursion(counts: list[int]) -> None:
    expected = _reference_is_win(counts)
    assert is_win(counts) == expected
    assert is_win(tuple(counts)) == is_win(counts + [0] * 8) == is_win(np.array(counts)) == expected


@PROPERTY
@given(every_hand)
def test_shanten_kernels_agree_with_their_parts(counts: list[int]) -> None:
    """The table paths (common vectors, then every vector) against the plain functions of each form."""
    n = sum(counts)
    standard = standard_shanten(counts)
    assert standard_shanten(tuple(counts)) == standard_shanten(counts + [0] * 8) == standard
    assert standard_shanten(np.array(counts)) == standard
    if n in (13, 14):
        assert shanten(counts) == min(standard, orphans_shanten(counts))
        assert any_form_shanten(counts) == min(standard, orphans_shanten(counts), seven_pairs_shanten(counts))
    else:
        assert shanten(counts) == any_form_shanten(counts) == standard
    assert (standard == -1) == (n % 3 == 2 and _reference_sets_and_pair(counts))


def _reference_sets_and_pair(counts: list[int]) -> bool:
    return any(
        counts[pair] >= 2 and _reference_sets([c - 2 * (k == pair) for k, c in enumerate(counts)]) for pair in range(34)
    )


def test_seven_pairs_shanten_counts_four_alike_as_one_pair() -> None:
    assert seven_pairs_shanten(counts_of("11b 44b 77b 22c 55c 88c EE")) == -1
    assert seven_pairs_shanten(counts_of("1111b 44b 77b 22c 55c 88c")) == 1  # a 7th kind is needed
    with pytest.raises(ValueError, match="13 or 14"):
        seven_pairs_shanten(counts_of("11b 44b"))


def test_any_form_shanten_agrees_with_xiangting_package() -> None:
    """``xiangting`` counts the same three forms (its replacement number is shanten + 1)."""
    xiangting = pytest.importorskip("xiangting")
    rng = random.Random(41)
    wall = [k for k in range(34) for _ in range(4)]
    for i in range(1500):
        counts = _vector(rng.sample(wall, 13 + i % 2) if i % 3 else rng.sample(wall[:40], 13 + i % 2))
        expected = xiangting.calculate_replacement_number(counts, xiangting.PlayerCount.FOUR) - 1
        assert any_form_shanten(counts) == expected, format_tiles(
            [Tile(k) for k in range(34) for _ in range(counts[k])]
        )


def test_common_tables_agree_with_every_vector_and_its_counts() -> None:
    """Every vector of the small first-looked-up dicts: its class as in the dict of every vector, and
    its special counts as counted directly."""
    t = tables()
    for common, full, majors in ((t.suit_common, t.suit_class, (0, 8)), (t.honour_common, t.honour_class, range(7))):
        assert len(common) == sum(1 for key in full if sum(key) <= COMMON_TILES)
        classes = t.suit_common_class if common is t.suit_common else t.honour_common_class
        assert classes.keys() == common.keys()
        for key, (kind, special) in common.items():
            assert kind == full[key] == classes[key]
            held = list(key)
            fields = (
                sum(held),
                sum(1 for c in held if c >= 2),
                sum(1 for c in held if c),
                sum(held),
                sum(1 for i in majors if held[i]),
                sum(1 for i in majors if held[i] >= 2),
            )
            assert special == sum(value << shift for value, shift in zip(fields, (0, 6, 9, 13, 19, 23), strict=True))
            assert special == special_counts(key, tuple(majors))


def test_composed_standard_table_agrees_with_its_parts() -> None:
    t = tables()
    rng = random.Random(8)
    suits, honours = len(t.suit_rows), len(t.honour_rows)
    for _ in range(20_000):
        a, b, c, h = rng.randrange(suits), rng.randrange(suits), rng.randrange(suits), rng.randrange(honours)
        assert t.standard[a][b][c][h] == t.shanten[t.three_suits[t.two_suits[a][b]][c]][h]
