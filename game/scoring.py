"""Scoring (R7.4, R8, R9, R10, R11.2): the winner's hand and each loser's unfinished hand, itemised.

Every score is a list of :class:`Item` (rule number, short English text, points or doubles) plus
the arithmetic of its total, so a client can show it line by line. The winner's hand is scored
for every decomposition and every choice of where the winning tile sits, and the best is taken.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from game.hand import decompositions, is_thirteen_orphans, waits
from game.melds import Meld, MeldKind
from game.notation import format_tiles
from game.rules import Rules
from game.shapes import complete, special_shape
from game.tiles import GREENS, NUM_PLAYING_KINDS, TILES, Tile

__all__ = ["Item", "Score", "ScoringError", "WinningHand", "score_win", "score_loser", "tile_name"]

_SUIT_NAMES = {"b": "bamboo", "c": "characters", "d": "dots"}
_HONOUR_NAMES = {
    Tile.EAST: "East wind",
    Tile.SOUTH: "South wind",
    Tile.WEST: "West wind",
    Tile.NORTH: "North wind",
    Tile.RED: "Red dragon",
    Tile.GREEN: "Green dragon",
    Tile.WHITE: "White dragon",
}
_SELF_DRAWN = ("wall", "loose")
_ON_A_DISCARD = ("discard", "robbed_kong")  # a robbed tile counts as a discard (R6.5)


class ScoringError(ValueError):
    """A hand that cannot be scored as asked (not a winning hand, impossible tiles …); says why."""


_BONUS_NAMES = tuple(
    [f"{name} (flower {i})" for i, name in enumerate(("Plum", "Orchid", "Chrysanthemum", "Bamboo"), 1)]
    + [f"{name} (season {i})" for i, name in enumerate(("Spring", "Summer", "Autumn", "Winter"), 1)]
)


def tile_name(tile: Tile, plural: bool = False) -> str:
    """English name of a tile: ``'5 bamboo'``, ``'1 dot'``, ``'West wind'`` (``'West winds'`` in the plural),
    ``'Chrysanthemum (flower 3)'``."""
    if tile < 27:
        rank, suit = tile % 9 + 1, _SUIT_NAMES[tile.code[1]]
        return f"{rank} {suit if rank > 1 else suit.rstrip('s')}"  # 1 dot, 1 character; 2 dots
    if tile < 34:
        name = _HONOUR_NAMES[tile]
        return name + "s" if plural else name
    return _BONUS_NAMES[tile - 34]


@dataclass(frozen=True, slots=True)
class Item:
    """One line of an explanation: points, doubles, or a limit hand's value."""

    rule: str
    text: str
    points: int = 0
    doubles: int = 0
    limit: int = 0

    def to_json(self) -> dict[str, object]:
        """``{"rule", "text", "points"}``, ``{… "doubles"}`` or ``{… "limit"}``."""
        out: dict[str, object] = {"rule": self.rule, "text": self.text}
        if self.limit:
            out["limit"] = self.limit
        elif self.doubles:
            out["doubles"] = self.doubles
        else:
            out["points"] = self.points
        return out


@dataclass(frozen=True, slots=True)
class Score:
    """A hand's score: points, doubles, limit hand (if any), value and the explanation."""

    points: int
    doubles: int
    limit_hand: str | None
    value: int
    items: tuple[Item, ...]
    arithmetic: str
    groups: tuple[str, ...] = ()  # a winner's concealed tiles as the sets and pair scored (R0 notation)

    def to_json(self) -> dict[str, object]:
        """Plain JSON for the client and the CLI (``groups`` only for a winner's hand that has them)."""
        out: dict[str, object] = {
            "points": self.points,
            "doubles": self.doubles,
            "limit_hand": self.limit_hand,
            "value": self.value,
            "items": [i.to_json() for i in self.items],
            "arithmetic": self.arithmetic,
        }
        if self.groups:
            out["groups"] = list(self.groups)
        return out


@dataclass(frozen=True, slots=True)
class WinningHand:
    """The facts a winner's score depends on. ``concealed`` counts the concealed tiles including the
    winning tile; ``melds`` are the declared sets (a declared concealed kong has ``concealed=True``).
    """

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    bonus: tuple[Tile, ...]
    winning_tile: Tile
    win_by: str  # "wall" | "loose" | "discard" | "robbed_kong"
    seat_wind: Tile
    round_wind: Tile
    dealer: bool = False
    last_tile: bool = False
    first_turn: bool = False
    loose_kongs: int = 0
    dealer_streak: int = 0  # the dealer's wins in a row before this one (R16 ``nine_wins_limit``)
    original_call: bool = False  # declared with the first discard and kept (R5.4)


@dataclass(frozen=True, slots=True)
class _Set:
    kind: MeldKind
    tile: Tile
    concealed: bool
    claimed_kong: bool = False  # a kong claimed from a discard with three held concealed (R16)

    def hidden(self, rules: Rules) -> bool:
        """Concealed for the patterns that ask for concealed sets: R16 counts a claimed kong too."""
        return self.concealed or (rules.claimed_kong_concealed and self.claimed_kong)

    @property
    def is_pung(self) -> bool:
        return self.kind is not MeldKind.CHOW

    def tiles(self) -> tuple[Tile, ...]:
        if self.kind is MeldKind.CHOW:
            return (self.tile, TILES[self.tile + 1], TILES[self.tile + 2])
        return (self.tile,) * (4 if self.kind is MeldKind.KONG else 3)


def _is_claimed_kong(m: Meld) -> bool:
    return m.kind is MeldKind.KONG and not m.concealed and not m.added and m.claimed is not None


def _meld_sets(melds: Iterable[Meld]) -> list[_Set]:
    return [_Set(m.kind, m.tiles[0], m.concealed, _is_claimed_kong(m)) for m in melds]


def _hand_concealed(melds: Iterable[Meld], rules: Rules) -> bool:
    """R7.6: no set claimed from a discard (R16: a claimed kong does not count as claimed)."""
    return all(m.concealed or (rules.claimed_kong_concealed and _is_claimed_kong(m)) for m in melds)


# ----------------------------------------------------------------------------- shared pieces
def _set_item(s: _Set) -> Item | None:
    """R8.2: points of a pung or kong by size, majors and whether it is concealed."""
    if not s.is_pung:
        return None
    base = 2 if s.tile.is_simple else 4
    if s.kind is MeldKind.KONG:
        base *= 4
    if s.concealed:
        base *= 2
    state = "concealed" if s.concealed else "exposed"
    return Item("R8.2", f"{state} {s.kind.value} of {tile_name(s.tile, plural=True)}", points=base)


def _pair_item(pair: Tile, seat_wind: Tile, round_wind: Tile, rules: Rules) -> Item | None:
    """R8.3: dragons 2; seat wind 2; prevailing wind 2; both ``double_wind_pair``."""
    if pair.is_dragon:
        return Item("R8.3", f"pair of {tile_name(pair, plural=True)}", points=2)
    if pair == seat_wind and pair == round_wind:
        return Item(
            "R8.3", f"pair of {tile_name(pair, plural=True)}, seat and prevailing wind", points=rules.double_wind_pair
        )
    if pair == seat_wind:
        return Item("R8.3", f"pair of {tile_name(pair, plural=True)}, own wind", points=2)
    if pair == round_wind:
        return Item("R8.3", f"pair of {tile_name(pair, plural=True)}, prevailing wind", points=2)
    return None


def _honour_set_doubles(sets: Sequence[_Set], seat_wind: Tile, round_wind: Tile) -> list[Item]:
    """R9: each dragon pung or kong, and the seat- and prevailing-wind pungs or kongs."""
    items = []
    for s in sets:
        if not s.is_pung:
            continue
        if s.tile.is_dragon:
            items.append(Item("R9", f"{s.kind.value} of {tile_name(s.tile, plural=True)}", doubles=1))
        if s.tile == seat_wind:
            items.append(Item("R9", f"{s.kind.value} of own wind ({tile_name(s.tile)})", doubles=1))
        if s.tile == round_wind:
            items.append(Item("R9", f"{s.kind.value} of prevailing wind ({tile_name(s.tile)})", doubles=1))
    return items


def _bonus_items(bonus: Sequence[Tile], seat_wind: Tile, rules: Rules) -> tuple[list[Item], list[Item]]:
    """R8.4 points and R9 doubles for bonus tiles (R14: no points, doubles kept)."""
    points = [
        Item("R8.4", f"bonus tile: {tile_name(t)}", points=rules.bonus_points) for t in bonus if rules.bonus_points
    ]
    number = seat_wind - Tile.EAST + 1
    doubles = []
    own = [t for t in bonus if t.rank == number]
    if rules.own_bonus == "both":
        if len(own) == 2:
            doubles.append(Item("R16.4", "own flower and own season", doubles=1))
    else:
        for t in own:
            kind = "flower" if t < Tile.SEASON1 else "season"
            doubles.append(Item("R9", f"{tile_name(t).split(' (')[0]} (own {kind})", doubles=1))
    held = set(bonus)
    for group, name in ((range(34, 38), "flowers"), (range(38, 42), "seasons")):
        if all(TILES[k] in held for k in group):
            doubles.append(Item("R9", f"all four {name}", doubles=rules.bouquet_doubles))
    return points, doubles


def _value(points: int, doubles: int, rules: Rules) -> tuple[int, str]:
    """Points × 2^doubles, rounded first if the option says so, capped at the limit (R8, R8.6)."""
    shown = f"{points}"
    if rules.round_points:
        rounded = (points + 5) // 10 * 10
        if rounded != points:
            shown = f"{points} → {rounded}"
        points = rounded
    raw = points * 2**doubles
    times = {0: "no doubles", 1: "doubled once", 2: "doubled twice"}.get(doubles, f"doubled {doubles} times")
    text = f"{shown} points, {times} = {raw}"
    if raw > rules.limit:
        return rules.limit, f"{text} → limit {rules.limit}"
    return raw, text


def _finish(items: list[Item], rules: Rules, limit: tuple[str, str, int] | None = None) -> Score:
    points = sum(i.points for i in items)
    doubles = sum(i.doubles for i in items)
    if limit is not None:
        name, rule, value = limit
        items = [*items, Item(rule, f"{name}: limit hand", limit=value)]
        half = "" if value == rules.limit else " (half)" if 2 * value == rules.limit else f" ({value} of {rules.limit})"
        return Score(points, doubles, name, value, tuple(items), f"{name}: limit{half} {value}")
    value, arithmetic = _value(points, doubles, rules)
    return Score(points, doubles, None, value, tuple(items), arithmetic)


# ---------------------------------------------------------------------------- winner's hand
def _validate(hand: WinningHand, rules: Rules) -> list[int]:
    counts = list(hand.concealed[:NUM_PLAYING_KINDS])
    if len(hand.concealed) not in (34, 42) or any(c < 0 for c in counts):
        raise ScoringError("concealed tiles must be a count vector of 34 tile kinds")
    if any(hand.concealed[NUM_PLAYING_KINDS:]):
        raise ScoringError("bonus tiles are laid aside, never part of the concealed hand (R4.2)")
    if len(hand.melds) > 4:
        raise ScoringError(f"a hand has at most four sets (R7.1), not {len(hand.melds)} melds")
    held = list(counts)
    for m in hand.melds:
        for t in m.tiles:
            held[t] += 1
    over = [TILES[k] for k in range(NUM_PLAYING_KINDS) if held[k] > 4]
    if over:
        raise ScoringError(f"the hand holds {held[over[0]]} of {over[0]}; there are only four (R1.1)")
    if any(not t.is_bonus for t in hand.bonus) or len(set(hand.bonus)) != len(hand.bonus):
        raise ScoringError("bonus tiles must be distinct flowers and seasons (R1.1)")
    if hand.winning_tile.is_bonus:
        raise ScoringError(
            f"the winning tile {hand.winning_tile} is a bonus tile, laid aside and replaced (R4.3), never won on"
        )
    if counts[hand.winning_tile] == 0:
        raise ScoringError(f"the winning tile {hand.winning_tile} must be among the concealed tiles (R7.3)")
    if hand.win_by not in _SELF_DRAWN + _ON_A_DISCARD:
        raise ScoringError(f"win_by must be wall, loose, discard or robbed_kong (R7.3), not {hand.win_by!r}")
    chows = sum(1 for m in hand.melds if m.kind is MeldKind.CHOW)
    if chows > rules.max_chows:
        raise ScoringError(
            f"a player who has declared a chow is offered no other (R17.2, max_chows {rules.max_chows}),"
            f" so the hand cannot show {chows}"
        )
    expected = 14 - 3 * len(hand.melds)
    if sum(counts) != expected:
        raise ScoringError(
            f"with {len(hand.melds)} declared sets the concealed part has {expected} tiles (R4.1, R7.1),"
            f" not {sum(counts)}"
        )
    if not complete(counts, hand.melds, rules):
        if rules.max_chows < 4:
            raise ScoringError(
                f"not a winning hand: the tiles do not form four sets with at most {rules.max_chows} chow and a "
                "pair (R7.1, R17.2), Thirteen Orphans or a special hand (R17.4)"
            )
        raise ScoringError("not a winning hand: the tiles do not form four sets and a pair (R7.1) or Thirteen Orphans")
    _validate_win_by(hand, held)
    return counts


def _validate_win_by(hand: WinningHand, held: Sequence[int]) -> None:
    """Refuse facts about how the hand was won that no deal can produce (R3.2, R4.3, R5.2, R6.5, R9, R10)."""
    kongs = sum(1 for m in hand.melds if m.kind is MeldKind.KONG)
    if hand.loose_kongs < 0:
        raise ScoringError(f"loose_kongs counts kongs, so it cannot be {hand.loose_kongs}")
    if hand.loose_kongs and hand.win_by != "loose":
        raise ScoringError(
            "loose_kongs counts kongs whose loose tile won the hand (R5.2, R10.5), so win_by must be loose,"
            f" not {hand.win_by!r}"
        )
    if hand.loose_kongs > kongs:
        raise ScoringError(
            f"loose_kongs is {hand.loose_kongs} but the hand declares {kongs} kong{'s' if kongs != 1 else ''}"
            " (R10.5 Twofold Fortune needs two kongs in a row)"
        )
    if hand.win_by == "loose" and not kongs and not hand.bonus:
        raise ScoringError(
            "a win on a loose tile needs a kong or a bonus tile to replace (R3.2, R4.3), and the hand has neither"
        )
    if hand.first_turn and hand.melds:
        raise ScoringError(
            "a first-turn win (R10.1, R10.2) comes before any claim or kong, so the hand declares no sets"
        )
    if hand.first_turn and hand.win_by == "robbed_kong":
        raise ScoringError("a first-turn win (R10.1, R10.2) comes before any kong, so none can be robbed")
    if hand.first_turn and hand.dealer and hand.win_by == "discard":
        raise ScoringError(
            "the dealer's first turn (R10.1) has no draw and comes before any discard (R5.1), so the dealer"
            " wins on it only with the fourteen tiles dealt: win_by wall, or loose after a bonus tile"
        )
    if hand.first_turn and hand.last_tile:
        raise ScoringError(
            "a first-turn win (R10.1, R10.2) comes long before the last tile of the live wall or the last"
            " discard (R9, R6.8): first_turn and last_tile exclude each other"
        )
    if hand.last_tile and hand.win_by in ("loose", "robbed_kong"):
        raise ScoringError(
            f"last_tile is the last tile of the live wall or the last discard (R9, R6.8), never a {hand.win_by} win"
        )
    tile = hand.winning_tile
    if hand.win_by == "robbed_kong" and held[tile] > 1:
        raise ScoringError(
            f"robbing a kong of {tile}: the robbed pung and the added tile are all four {tile} (R5.2c, R6.5),"
            f" so the winner cannot hold {held[tile] - 1} more"
        )


def _only_tile_wait(counts: list[int], hand: WinningHand) -> bool:
    """R8.5: exactly one tile kind (of those held fewer than four times) completes the 13 tiles."""
    before = list(counts)
    before[hand.winning_tile] -= 1
    held = list(before)
    for m in hand.melds:
        for t in m.tiles:
            held[t] += 1
    return len(waits(before, held=held)) == 1


def _hand_items(counts: list[int], hand: WinningHand, rules: Rules) -> tuple[list[Item], list[Item]]:
    """Points and doubles that do not depend on how the tiles are arranged."""
    points = [Item("R8.1", "going Mah-Jong", points=rules.win_points)]
    bonus_points, bonus_doubles = _bonus_items(hand.bonus, hand.seat_wind, rules)
    points += bonus_points
    if hand.win_by == "wall":
        points.append(Item("R8.5", "winning tile drawn from the live wall", points=2))
    if rules.only_tile_points and _only_tile_wait(counts, hand):
        points.append(Item("R8.5", "only-tile wait", points=2))
    if hand.win_by == "loose":
        points.append(Item("R8.5", "out on a loose tile", points=2))
    if hand.win_by == "robbed_kong" and not rules.robbing_double:
        points.append(Item("R8.5", "robbing the kong", points=2))
    concealed = _hand_concealed(hand.melds, rules)  # R7.6
    if rules.concealed_discard_points and concealed and hand.win_by in _ON_A_DISCARD:
        points.append(Item("R14", "concealed hand won on a discard", points=rules.concealed_discard_points))
    doubles = bonus_doubles
    if concealed and hand.win_by in _SELF_DRAWN:
        doubles.append(Item("R9", "fully concealed hand, self-drawn", doubles=rules.concealed_doubles))
    if hand.last_tile:
        text = "won on the last tile of the live wall" if hand.win_by in _SELF_DRAWN else "won on the last discard"
        doubles.append(Item("R9", text, doubles=1))
    if rules.loose_tile_double and hand.win_by == "loose":
        doubles.append(Item("R16.3", "won on a loose tile", doubles=1))
    if rules.robbing_double and hand.win_by == "robbed_kong":
        doubles.append(Item("R16.3", "robbing the kong", doubles=1))
    if hand.original_call:
        doubles.append(Item("R5.4", "Original Call", doubles=1))
    return points, doubles


def _validate_call(hand: WinningHand, rules: Rules) -> None:
    """R5.4: Original Call only where the ruleset has it, on a hand that cannot have changed since."""
    if not hand.original_call:
        return
    if not rules.original_call:
        raise ScoringError("this ruleset has no Original Call (option original_call, R5.4)")
    if hand.first_turn:
        raise ScoringError(
            "Original Call is declared with one's first discard (R5.4), and a first-turn win (R10.1, R10.2)"
            " comes before it: first_turn and original_call exclude each other"
        )
    claimed = sum(1 for m in hand.melds if not m.concealed)
    if claimed > 1:
        raise ScoringError(
            f"a hand with Original Call cannot change after the first discard (R5.4): at most one declared set"
            f" was claimed before it, not {claimed}"
        )
    if hand.loose_kongs:
        raise ScoringError("a kong after Original Call changes the hand (R5.4), so no loose_kongs with it")


def _pattern_doubles(sets: Sequence[_Set], pair: Tile, tiles: Sequence[Tile], rules: Rules) -> list[Item]:
    """R9 patterns of the whole hand: no chows, flushes, little three dragons (R16: terminals and
    honours only; the dragon and wind patterns are scored on every hand by :func:`_every_hand_doubles`)."""
    items = []
    if all(s.is_pung for s in sets):
        items.append(Item("R9", "no chows", doubles=1))
    suits = {t // 9 for t in tiles if t < 27}
    honours = any(t.is_honour for t in tiles)
    if rules.flush_doubles == "purity":
        if len(suits) == 1 and not honours and all(s.is_pung for s in sets):
            items.append(Item("R17.3", "purity: one suit, no honours, no chows", doubles=3))
    elif len(suits) == 1 and honours:
        items.append(Item("R9", "half flush", doubles=1))
    elif len(suits) == 1:
        items.append(Item("R9", "full flush", doubles=3))
    dragon_sets = sum(1 for s in sets if s.is_pung and s.tile.is_dragon)
    bmja = rules.special_hands == "bmja"
    if dragon_sets == 2 and pair.is_dragon and not rules.dragon_wind_doubles and not bmja:
        items.append(Item("R9", "little three dragons", doubles=1))
    if rules.majors_double and all(t.is_terminal or t.is_honour for t in tiles):
        items.append(Item("R16.2", "only terminals and honours", doubles=1))
    return items


def _every_hand_doubles(sets: Sequence[_Set], pairs: Sequence[Tile], rules: Rules) -> list[Item]:
    """R16.4: doubles a loser's hand earns as well as the winner's: three concealed pungs, the
    dragon and wind patterns (``pairs`` are the hand's pairs: a winner's one, a loser's every one)."""
    items = []
    pungs = [s for s in sets if s.is_pung]
    if rules.three_concealed_pungs and sum(1 for s in pungs if s.hidden(rules)) >= 3:
        items.append(Item("R16.4", "three concealed pungs", doubles=1))
    if rules.dragon_wind_doubles:
        dragons = sum(1 for s in pungs if s.tile.is_dragon)
        winds = sum(1 for s in pungs if s.tile.is_wind)
        if dragons == 3:
            items.append(Item("R16.4", "big three dragons", doubles=2))
        elif dragons == 2 and any(p.is_dragon for p in pairs):
            items.append(Item("R16.4", "little three dragons", doubles=1))
        if winds == 4:
            items.append(Item("R16.4", "big four joys", doubles=2))
        elif winds == 3 and any(p.is_wind for p in pairs):
            items.append(Item("R16.4", "little four joys", doubles=1))
    return items


def _limit_hands(
    sets: Sequence[_Set], pair: Tile | None, tiles: Sequence[Tile], counts: list[int], hand: WinningHand, rules: Rules
) -> list[tuple[str, str, int]]:
    """Every limit hand (R10.1–R10.5) this arrangement makes, with its value."""
    found: list[tuple[str, str, int]] = []
    full = rules.limit
    dealer_first = hand.dealer and hand.first_turn
    if dealer_first and hand.win_by in _SELF_DRAWN:
        found.append(("Heavenly Hand", "R10.1", full))
    if not hand.dealer and hand.first_turn:
        if hand.win_by == "discard" or (rules.earthly_self_drawn and hand.win_by in _SELF_DRAWN):
            found.append(
                (
                    "Earthly Hand",
                    "R10.2" if hand.win_by == "discard" else "R14",
                    full // 2 if rules.earthly_half_limit else full,
                )
            )
    if pair is None:
        found.append(("Thirteen Orphans", "R10.3", full))
        return found
    if not hand.melds:
        suits = {t // 9 for t in tiles if t < 27}
        if len(suits) == 1 and not any(t.is_honour for t in tiles):
            base = 9 * suits.pop()
            before = list(counts[base : base + 9])
            before[hand.winning_tile - base] -= 1
            if before == [3, 1, 1, 1, 1, 1, 1, 1, 3] and rules.special_hands != "bmja":  # R17.4: Gates of Heaven
                found.append(("Nine Gates", "R10.4", full))
    pungs = [s for s in sets if s.is_pung]
    if sum(1 for s in sets if s.kind is MeldKind.KONG) == 4:
        found.append(("Four Kongs", "R10.5", full))
    if all(t.is_honour for t in tiles):
        found.append(("All Honours", "R10.5", full))
    if all(t.is_terminal for t in tiles):
        found.append(("All Terminals", "R10.5", full))
    bmja = rules.special_hands == "bmja"
    if sum(1 for s in pungs if s.tile.is_dragon) == 3 and not (bmja and len(pungs) < 4):  # R17.4: no chow
        found.append(("Big Three Dragons", "R10.5", full))
    wind_sets = sum(1 for s in pungs if s.tile.is_wind)
    if wind_sets == 3 and pair.is_wind and not rules.dragon_wind_doubles and not bmja:  # R16.4, R17.4
        found.append(("Little Four Winds", "R10.5", full))
    if wind_sets == 4:
        found.append(("Big Four Winds", "R10.5", full))
    if all(t in GREENS for t in tiles):
        found.append(("All Green", "R10.5", full))
    if bmja:
        one_suit = len({t // 9 for t in tiles if t < 27}) == 1
        if len(pungs) == 4 and one_suit and all(s.concealed for s in pungs):
            found.append(("Buried Treasure", "R17.4", full))
    elif len(pungs) == 4 and all(s.hidden(rules) for s in pungs):
        if rules.special_hands != "dmjl":
            found.append(("Four Concealed Pungs", "R10.5", full))
        elif hand.win_by in _SELF_DRAWN:  # R16.5: Hidden Treasure is self-drawn
            found.append(("Hidden Treasure", "R16.5", full))
    if hand.loose_kongs >= 2 and hand.win_by == "loose":
        found.append(("Twofold Fortune", "R10.5", full))
    if rules.special_hands == "dmjl":
        found += _dmjl_limit_hands(tiles, hand, rules)
    if rules.special_hands != "none":
        found += _tile_limit_hands(hand, rules)
    if rules.nine_wins_limit and hand.dealer and hand.dealer_streak >= 8:
        found.append(("East's Ninth Win in a Row", "R16.5", full))
    return found


def _dmjl_limit_hands(tiles: Sequence[Tile], hand: WinningHand, rules: Rules) -> list[tuple[str, str, int]]:
    """R16.5: the DMJL book's own limit hands."""
    found: list[tuple[str, str, int]] = []
    full = rules.limit
    suits = {t // 9 for t in tiles if t < 27}
    flush = len(suits) == 1 and not any(t.is_honour for t in tiles)
    if flush:
        ranks = [0] * 10
        for t in tiles:
            ranks[t % 9 + 1] += 1
        middle = ranks[2:9]
        doubled = [r for r in (2, 5, 8) if ranks[r] == 2]
        if ranks[1] >= 3 and ranks[9] >= 3 and len(doubled) == 1 and sum(middle) == 8 and min(middle) == 1:
            found.append(("Squirming Snake", "R16.5", full))
        if hand.win_by in _SELF_DRAWN and _hand_concealed(hand.melds, rules):
            found.append(("Concealed True Color Game", "R16.5", full))
    return found


def _tile_limit_hands(hand: WinningHand, rules: Rules) -> list[tuple[str, str, int]]:
    """R16.5, R17.4: the limit hands both books name after the winning tile and how it came."""
    found: list[tuple[str, str, int]] = []
    rule = "R16.5" if rules.special_hands == "dmjl" else "R17.4"
    if hand.win_by == "loose" and hand.winning_tile == Tile.parse("5d"):
        found.append(("Gathering the Plum Blossom from the Roof", rule, rules.limit))
    if hand.win_by == "wall" and hand.last_tile and hand.winning_tile == Tile.parse("1d"):
        found.append(("Plucking the Moon from the Bottom of the Sea", rule, rules.limit))
    if hand.win_by == "robbed_kong" and hand.winning_tile == Tile.parse("2b"):
        found.append(("Scratching a Carrying Pole", rule, rules.limit))
    return found


def _arrangements(counts: list[int], hand: WinningHand, rules: Rules) -> Iterable[tuple[list[_Set], Tile | None, bool]]:
    """Every decomposition with every choice of where the winning tile sits (R7.4), and whether it
    completed the pair; a set that the winning discard completes is exposed (R8.2). Thirteen Orphans
    yields one arrangement, no pair.
    """
    melds = _meld_sets(hand.melds)
    if not hand.melds and is_thirteen_orphans(counts):
        yield melds, None, False
        return
    wt = hand.winning_tile
    on_discard = hand.win_by in _ON_A_DISCARD
    cap = rules.max_chows - sum(1 for m in hand.melds if m.kind is MeldKind.CHOW)  # R17.2
    for d in decompositions(counts):
        if sum(1 for s in d.sets if s.kind == "chow") > cap:
            continue
        concealed = [_Set(MeldKind(s.kind), s.first, True) for s in d.sets]
        places: list[int] = [-1] if d.pair == wt else []
        seen = set()
        for i, s in enumerate(d.sets):
            if wt in s.tiles and (s.kind, s.first) not in seen:
                seen.add((s.kind, s.first))
                places.append(i)
        for place in places:
            sets = list(concealed)
            if on_discard and place >= 0 and sets[place].is_pung:
                sets[place] = _Set(sets[place].kind, sets[place].tile, False)
            yield sets + melds, d.pair, place == -1


def score_win(hand: WinningHand, rules: Rules) -> Score:
    """The winner's score: the best over every arrangement (R7.4) of points (R8), doubles (R9) and
    limit hands (R10), capped at the limit (R8.6).

    :raises ScoringError: if the hand is not a winning hand, or its facts are impossible.
    """
    counts = _validate(hand, rules)
    _validate_call(hand, rules)
    tiles = [TILES[k] for k in range(NUM_PLAYING_KINDS) for _ in range(counts[k])]
    for m in hand.melds:
        tiles.extend(m.tiles)
    hand_points, hand_doubles = _hand_items(counts, hand, rules)
    special = special_shape(counts, hand.melds, rules)
    if special is not None:  # R17.4: knitting and the like score their limit (or half) outright
        name, value = special
        return _finish([*hand_points, *hand_doubles], rules, (name, "R17.4", value))
    best: Score | None = None
    for sets, pair, in_pair in _arrangements(counts, hand, rules):
        items = list(hand_points)
        shape_points = [item for s in sets if (item := _set_item(s)) is not None]
        pair_item = None if pair is None else _pair_item(pair, hand.seat_wind, hand.round_wind, rules)
        if pair_item is not None:
            shape_points.append(pair_item)
        items[1:1] = shape_points  # after "going Mah-Jong", before bonus tiles and winning bonuses
        if in_pair and rules.pair_wait_points and pair is not None:
            major = not pair.is_simple
            text = f"winning tile completes the pair of {'terminals or honours' if major else 'simples'}"
            items.append(Item("R16.1", text, points=4 if major else 2))
        items += hand_doubles
        items += _honour_set_doubles(sets, hand.seat_wind, hand.round_wind)
        if pair is not None:
            items += _pattern_doubles(sets, pair, tiles, rules)
            items += _every_hand_doubles(sets, [pair], rules)
            if rules.no_points_double and not shape_points:
                rule = "R16.2" if rules.special_hands == "dmjl" else "R14"
                items.append(Item(rule, "no points from sets and pair", doubles=1))
        limits = _limit_hands(sets, pair, tiles, counts, hand, rules)
        points = sum(i.points for i in items)
        doubles = sum(i.doubles for i in items)
        if rules.auto_limit and (doubles >= 5 or (points >= 32 and doubles >= 4)):
            limits.append(("Auto Limit", "R10.6", rules.limit))
        limit = max(limits, key=lambda x: x[2]) if limits else None
        score = _finish(items, rules, limit)
        if best is None or score.value > best.value:
            concealed_sets = sets[: len(sets) - len(hand.melds)]
            groups = [format_tiles(s.tiles()) for s in concealed_sets]
            if pair is not None:
                groups.append(format_tiles((pair, pair)))
            best = dataclasses.replace(score, groups=tuple(groups))
    assert best is not None  # is_win guarantees at least one arrangement
    return best


# ---------------------------------------------------------------------------- losers' hands
# R17.5: a loser's hand one tile short of these limit hands earns this many tenths of the limit.
_CALLING_TENTHS = {
    "All Honours": 4,
    "All Terminals": 4,
    "All Green": 4,
    "Thirteen Orphans": 4,
    "Big Three Dragons": 4,
    "Big Four Winds": 4,
    "Four Kongs": 4,
    "Buried Treasure": 4,
    "Gates of Heaven": 4,
    "Wriggling Snake": 4,
    "Knitting": 2,
    "Triple Knitting": 2,
    "All Pair Honours": 2,
}


def _calling_for(
    counts: list[int], melds: Sequence[Meld], bonus: Sequence[Tile], seat_wind: Tile, round_wind: Tile, rules: Rules
) -> tuple[tuple[str, int] | None, bool]:
    """R17.5: the best limit hand (name, value) one more tile would make of a loser's hand, and
    whether one more tile would make it a Purity hand."""
    best: tuple[str, int] | None = None
    purity = False
    held = list(counts)
    for m in melds:
        for t in m.tiles:
            held[t] += 1
    if sum(counts) != 13 - 3 * len(melds):
        return None, False
    for k in range(NUM_PLAYING_KINDS):
        if held[k] >= 4:
            continue
        full = list(counts)
        full[k] += 1
        if not complete(full, melds, rules):
            continue
        hand = WinningHand(tuple(full), tuple(melds), tuple(bonus), TILES[k], "wall", seat_wind, round_wind)
        score = score_win(hand, rules)
        if score.limit_hand in _CALLING_TENTHS:
            value = rules.limit * _CALLING_TENTHS[score.limit_hand] // 10
            if best is None or value > best[1]:
                best = (score.limit_hand, value)
        purity = purity or any(i.rule == "R17.3" for i in score.items)
    return best, purity


def score_loser(
    concealed: Sequence[int],
    melds: Sequence[Meld],
    bonus: Sequence[Tile],
    seat_wind: Tile,
    round_wind: Tile,
    rules: Rules,
) -> Score:
    """A loser's unfinished hand (R11.2): exposed and declared sets, concealed pungs and at most one
    pair (the arrangement that scores most), bonus tiles; doubles only for dragon and wind sets,
    own flower or season and full bouquets; no win points, winning bonuses or limit hands.
    """
    counts = list(concealed[:NUM_PLAYING_KINDS])
    sets = _meld_sets(melds)
    # Chows score nothing, so the best arrangement takes every concealed pung it can …
    sets += [_Set(MeldKind.PUNG, TILES[k], True) for k in range(NUM_PLAYING_KINDS) if counts[k] >= 3]
    items = [item for s in sets if (item := _set_item(s)) is not None]
    # … and the one pair that scores most among the tiles left in twos (R16: every such pair).
    held_pairs = [TILES[k] for k in range(NUM_PLAYING_KINDS) if counts[k] == 2]
    pairs = [p for t in held_pairs if (p := _pair_item(t, seat_wind, round_wind, rules))]
    if pairs and rules.loser_pairs == "all":
        items += pairs
    elif pairs:
        items.append(max(pairs, key=lambda i: i.points))
    bonus_points, bonus_doubles = _bonus_items(bonus, seat_wind, rules)
    items += bonus_points
    items += _honour_set_doubles(sets, seat_wind, round_wind)
    items += _every_hand_doubles(sets, held_pairs, rules)
    items += bonus_doubles
    if not rules.calling_limits:
        return _finish(items, rules)
    calling, purity = _calling_for(counts, melds, bonus, seat_wind, round_wind, rules)
    if purity:
        items.append(Item("R17.5", "calling for Purity", doubles=3))
    score = _finish(items, rules)
    if calling is not None and calling[1] > score.value:
        return _finish(items, rules, (f"Calling for {calling[0]}", "R17.5", calling[1]))
    return score
