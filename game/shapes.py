"""Which hands are complete under a ruleset (R7, R17): the standard shape, with the cap on chows a
ruleset may set, and the special shapes the BMJA book adds (knitting, triple knitting, all pair
honours, the Wriggling Snake)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from game.hand import decompositions, is_thirteen_orphans, is_win, waits
from game.melds import Meld, MeldKind
from game.rules import Rules
from game.tiles import NUM_PLAYING_KINDS, TILES, Tile

__all__ = ["complete", "special_shape", "chows_allowed", "completing_tiles"]

_WINDS = (Tile.EAST, Tile.SOUTH, Tile.WEST, Tile.NORTH)


def chows_allowed(melds: Iterable[Meld], rules: Rules) -> int:
    """How many more chows the hand may hold (R17: ``max_chows``), given its declared chows."""
    return rules.max_chows - sum(1 for m in melds if m.kind is MeldKind.CHOW)


def _suit_counts(counts: Sequence[int]) -> list[list[int]]:
    return [list(counts[9 * s : 9 * s + 9]) for s in range(3)]


def special_shape(counts: Sequence[int], melds: Sequence[Meld], rules: Rules) -> tuple[str, int] | None:
    """The BMJA book's special hand these 14 concealed tiles make, as ``(name, value)`` (R17.4), or
    None: the hands it lets win whatever their chows, or outside the four-sets-and-a-pair shape."""
    if rules.special_hands != "bmja":
        return None
    if melds:
        return _declared_snake(counts, melds, rules)
    if sum(counts[:NUM_PLAYING_KINDS]) != 14:
        return None
    half, full = rules.limit // 2, rules.limit
    honours = counts[27:NUM_PLAYING_KINDS]
    suits = _suit_counts(counts)
    used = [s for s in range(3) if any(suits[s])]
    if len(used) == 1 and not any(honours):
        ranks = list(suits[used[0]])
        extra = [r for r in range(1, 8) if ranks[r] == 2]
        if len(extra) == 1:
            ranks[extra[0]] -= 1
            if ranks == [3, 1, 1, 1, 1, 1, 1, 1, 3]:
                return "Gates of Heaven", full
    if len(used) == 1 and all(counts[w] == 1 for w in _WINDS) and not any(honours[4:]):
        ranks = suits[used[0]]
        if ranks == [2, 1, 1, 1, 1, 1, 1, 1, 1]:
            return "Wriggling Snake", full
    if not any(honours):
        if len(used) == 2 and suits[used[0]] == suits[used[1]]:
            return "Knitting", half
        if len(used) == 3:
            triples = [min(suits[0][r], suits[1][r], suits[2][r]) for r in range(9)]
            rest = [[suits[s][r] - triples[r] for r in range(9)] for s in range(3)]
            left = [(s, r) for s in range(3) for r in range(9) for _ in range(rest[s][r])]
            if sum(triples) == 4 and len(left) == 2 and left[0][1] == left[1][1] and left[0][0] != left[1][0]:
                return "Triple Knitting", half
    majors = [k for k in range(NUM_PLAYING_KINDS) if counts[k]]
    if len(majors) == 7 and all(counts[k] == 2 and Tile(k).is_major for k in majors):
        return "All Pair Honours", half
    return None


def _declared_snake(counts: Sequence[int], melds: Sequence[Meld], rules: Rules) -> tuple[str, int] | None:
    """The Wriggling Snake with a declared chow in its run (R17.4 asks only its pair of 1s concealed;
    R17.2 lets a player declare one chow, and refuses the next)."""
    if any(m.kind is not MeldKind.CHOW for m in melds) or sum(counts[:NUM_PLAYING_KINDS]) + 3 * len(melds) != 14:
        return None
    if len(melds) > rules.max_chows:
        return None
    full = list(counts[:NUM_PLAYING_KINDS])
    for m in melds:
        for t in m.tiles:
            full[t] += 1
    shape = special_shape(full, (), rules)
    if shape is None or shape[0] != "Wriggling Snake" or counts[int(melds[0].tiles[0]) // 9 * 9] != 2:
        return None
    return shape


def complete(counts: Sequence[int], melds: Sequence[Meld], rules: Rules) -> bool:
    """Whether the concealed ``counts`` with the declared ``melds`` are a winning hand under ``rules``:
    four sets and a pair (R7.1) with at most ``max_chows`` chows in all (R17.2), Thirteen Orphans
    (R7.2), or a special shape of the ruleset's book (R17.4)."""
    if rules.max_chows >= 4 and rules.special_hands != "bmja":
        return is_win(counts)
    if special_shape(counts, melds, rules) is not None:
        return True
    allowed = chows_allowed(melds, rules)
    if allowed >= 4:
        return is_win(counts)
    if not melds and is_thirteen_orphans(counts):
        return True
    return any(sum(s.kind == "chow" for s in d.sets) <= allowed for d in decompositions(counts))


def completing_tiles(counts: Sequence[int], melds: Sequence[Meld], held: Sequence[int], rules: Rules) -> list[Tile]:
    """The tiles that would complete the hand under ``rules`` (R7, R17.2, R17.4), among those it holds
    fewer than four of (``held`` counts its declared sets too): :func:`game.hand.waits` where the
    ruleset caps no chows and adds no shapes."""
    if rules.max_chows >= 4 and rules.special_hands != "bmja":
        return waits(counts, held=held)
    found = []
    for k in range(NUM_PLAYING_KINDS):
        if held[k] >= 4:
            continue
        full = list(counts[:NUM_PLAYING_KINDS])
        full[k] += 1
        if complete(full, melds, rules):
            found.append(TILES[k])
    return found
