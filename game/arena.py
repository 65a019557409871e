"""The bot arena: bots play games against each other in duplicate, and their results are tallied.

A game here is one deal: a wall (the shuffle of one deal) dealt to one seating of the bots and played
from the shuffle to a win or a wash-out. Wall ``w`` is the first deal of ``Game(rules, seed=f"{seed}/{w}")``.

Duplicate: every wall is played once by each distinct seating among the four rotations of the bots
(in rotation ``r`` seat ``s`` is played by ``bots[(s + r) % 4]``), so every bot plays every seat of
every wall equally often. A lucky wall then favours no bot: whatever it gives one seat, each bot
gets. A seating is the tuple of bot names per seat, so four different bots give four seatings, two
bots alternating (A, B, A, B) two, and one bot in every seat one: a rotation that seats the same
names again would replay a game already played (:func:`seatings`).

Every decision goes the same way: :meth:`game.seatview.SeatView.of` builds the deciding seat's view
and the bot's ``decide`` gets that view and nothing else, so no bot can look at another hand or the
wall (R12).

The arena reads no clock of its own: a caller that wants decision times passes one in.

>>> wall = play_wall(("normal", "greedy", "normal", "greedy"), seed="doc", wall=0)
>>> [game.rotation for game in wall.games], sorted({s.bot for game in wall.games for s in game.seats})
([0, 1], ['greedy', 'normal'])
>>> tally = Tally()
>>> tally.add(wall)
>>> tally.games, sum(f.seats for f in tally.figures())
(2, 8)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from game.bots import BOTS, Bot, make_bot
from game.deal import Termination
from game.errors import RulesError
from game.game import Game, GamePhase
from game.rules import Rules
from game.rulesets import RULESETS
from game.seatview import SeatView, SeatViewCache

__all__ = [
    "ROTATIONS",
    "ARENA_RULES",
    "BotFigures",
    "GameResult",
    "SeatResult",
    "Tally",
    "WallResult",
    "check_bots",
    "play_game",
    "play_seating",
    "play_wall",
    "seating",
    "seatings",
    "walls_for",
]

#: The rotations of the bots around the table; a wall is played by the distinct seatings among them.
ROTATIONS = 4
#: The classical rules (R13), without the fair pause (R6.9), which only matters when people play.
ARENA_RULES: Rules = RULESETS["classical"].with_overrides({"claim_pause": False})

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class SeatResult:
    """How one seat's bot did in one game."""

    bot: str
    change: int  # the seat's score change from the deal's settlement (R11)
    won: bool
    self_drawn: bool  # won on a tile from the wall (a loose tile included)
    dealt_in: bool  # its discard was won on (or its added kong robbed)
    win_value: int  # the hand's value as scored, when it won; else 0
    decisions: int
    seconds: float  # time spent in the bot's ``decide`` (0 without a clock)


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game: the first deal of a wall played by one seating (the seating of ``rotation``)."""

    wall: int
    rotation: int
    termination: Termination
    seats: tuple[SeatResult, ...]
    moves: int  # actions taken in the deal
    digest: str  # a fingerprint of those actions: two games with the same digest went move for move alike


@dataclass(frozen=True, slots=True)
class WallResult:
    """A wall played once by each distinct seating."""

    wall: int
    games: tuple[GameResult, ...]


@dataclass(frozen=True, slots=True)
class BotFigures:
    """One bot's figures pooled over every seat it played (rates are per seat it played in a game)."""

    bot: str
    seats: int  # seats it played over all the games: a bot named twice plays two seats of each game
    wins: int
    self_draws: int
    deal_ins: int
    mean_score: float  # mean score change per seat it played
    ci95: tuple[float, float] | None  # 95% interval of mean_score, one sample per wall; None under 2 walls
    mean_win_value: float | None  # mean value of its winning hands; None if it never won
    decisions: int
    ms_per_move: float | None  # mean time per decision; None without a clock or a decision

    @property
    def win_rate(self) -> float:
        """Share of its seats that won."""
        return self.wins / self.seats

    @property
    def self_draw_rate(self) -> float:
        """Share of its seats that won on their own draw."""
        return self.self_draws / self.seats

    @property
    def deal_in_rate(self) -> float:
        """Share of its seats on whose discard another seat won."""
        return self.deal_ins / self.seats


def walls_for(games: int, bots: Sequence[str]) -> int:
    """How many walls give at least ``games`` games: every wall is played once by each of
    :func:`seatings` ``(bots)``.

    >>> walls_for(10, "ABAB"), walls_for(10, "ABCD"), walls_for(10, "AAAA")
    (5, 3, 10)
    """
    return max(1, -(-games // len(seatings(bots))))


def check_bots(bots: Sequence[str]) -> tuple[str, str, str, str]:
    """The four bot names, checked: one per seat, each a known bot.

    :raises ValueError: on another count of names, or a name :func:`game.bots.make_bot` does not know.
    """
    names = tuple(bots)
    if len(names) != 4:
        raise ValueError(f"the arena needs exactly four bots, one per seat; got {len(names)}: {', '.join(names)}")
    for name in names:
        if name not in BOTS:
            raise ValueError(f"no bot called {name!r}; the bots are {', '.join(sorted(BOTS))}")
    return names[0], names[1], names[2], names[3]


def seating(bots: Sequence[str], rotation: int) -> tuple[str, str, str, str]:
    """Which bot plays each seat in ``rotation``: seat ``s`` gets ``bots[(s + rotation) % 4]``.

    >>> seating("ABCD", 1)
    ('B', 'C', 'D', 'A')
    """
    a, b, c, d = (bots[(s + rotation) % 4] for s in range(4))
    return a, b, c, d


def seatings(bots: Sequence[str]) -> tuple[int, ...]:
    """The rotations whose seatings are distinct, in order: the rotations 0 to p − 1, where p (1, 2 or 4)
    is the first rotation that seats the same names again. A later rotation would replay, move for move,
    a game that a deterministic bot has already played, and count it twice.

    >>> seatings("ABCD"), seatings("ABAB"), seatings("AABB"), seatings("AAAA")
    ((0, 1, 2, 3), (0, 1), (0, 1, 2, 3), (0,))
    """
    names = tuple(bots)
    period = next(p for p in (1, 2, ROTATIONS) if seating(names, p) == seating(names, 0))
    return tuple(range(period))


def play_seating(
    bots: Sequence[str],
    seed: str,
    wall: int,
    rotation: int,
    rules: Rules = ARENA_RULES,
    clock: Clock | None = None,
) -> GameResult:
    """Play one game: the first deal of wall ``wall`` with the bots seated for ``rotation``.

    Each seat's bot is made afresh for the game (seeded from the run's seed, the wall, the rotation and
    the seat), so no bot carries anything from one game into another.

    :raises ValueError: if a bot name is unknown or a bot chooses an action that is not legal.
    """
    names = seating(check_bots(bots), rotation)
    players: list[Bot] = [make_bot(name, f"{seed}/{wall}/{rotation}/{s}") for s, name in enumerate(names)]
    game = Game(rules, seed=f"{seed}/{wall}")
    cache = SeatViewCache()
    decisions = [0, 0, 0, 0]
    seconds = [0.0, 0.0, 0.0, 0.0]
    while game.phase is GamePhase.DEAL:
        seat = game.to_act()[0]
        seen = SeatView.of(game, seat, cache)
        if clock is None:
            action = players[seat].decide(seen)
        else:
            started = clock()
            action = players[seat].decide(seen)
            seconds[seat] += clock() - started
        decisions[seat] += 1
        try:
            game.apply(seat, action)
        except RulesError as exc:
            raise ValueError(f"bot {names[seat]!r} at seat {seat} chose an action that is not legal: {exc}") from None
    result = game.results[0]
    reckoning = game.reckoning
    assert reckoning is not None
    winner = result.winner
    seats = []
    for s in range(4):
        won = winner == s
        score = reckoning.scores[s]
        seats.append(
            SeatResult(
                bot=names[s],
                change=reckoning.settlement.changes[s],
                won=won,
                self_drawn=won and result.win_by in ("wall", "loose"),
                dealt_in=winner is not None and result.discarder == s,
                win_value=score.value if won and score is not None else 0,
                decisions=decisions[s],
                seconds=seconds[s],
            )
        )
    digest = hashlib.blake2b(repr(game.log).encode(), digest_size=8).hexdigest()
    return GameResult(wall, rotation, result.termination, tuple(seats), len(game.log), digest)


def play_game(bots: Sequence[str], seed: str, rules: Rules = ARENA_RULES, deals: int | None = None) -> Game:
    """A whole game (or its first ``deals`` deals) played by the named bots, seat ``s`` by ``bots[s]``;
    its actions are in ``game.log``. Each bot decides from its seat's view alone, as in :func:`play_seating`.

    :raises ValueError: if a bot name is unknown or a bot chooses an action that is not legal.
    """
    names = check_bots(bots)
    players: list[Bot] = [make_bot(name, f"{seed}/{s}") for s, name in enumerate(names)]
    game = Game(rules, seed=seed)
    cache = SeatViewCache()
    while game.phase is not GamePhase.OVER and (deals is None or len(game.results) < deals):
        seat = game.to_act()[0]
        action = players[seat].decide(SeatView.of(game, seat, cache))
        try:
            game.apply(seat, action)
        except RulesError as exc:
            raise ValueError(f"bot {names[seat]!r} at seat {seat} chose an action that is not legal: {exc}") from None
    return game


def play_wall(
    bots: Sequence[str], seed: str, wall: int, rules: Rules = ARENA_RULES, clock: Clock | None = None
) -> WallResult:
    """Play wall ``wall`` once by each distinct seating (:func:`seatings`).

    :raises ValueError: as :func:`play_seating`.
    """
    return WallResult(wall, tuple(play_seating(bots, seed, wall, r, rules, clock) for r in seatings(bots)))


@dataclass
class _Totals:
    seats: int = 0
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    win_values: int = 0
    changes: int = 0
    decisions: int = 0
    seconds: float = 0.0
    wall_means: list[float] = field(default_factory=list)


class Tally:
    """Running totals of an arena run, per bot name (a bot named twice is pooled over its seats).

    Add walls in wall order: the figures are then the same however the walls were shared out.
    """

    def __init__(self) -> None:
        self._bots: dict[str, _Totals] = {}
        self.games = 0
        self.walls = 0
        self.wash_outs = 0
        self.timed = False

    def add(self, wall: WallResult) -> None:
        """Count every game of one wall; the wall is one sample of each bot's mean score: the mean of
        its changes over the seats it played in that wall's games."""
        changes: dict[str, list[int]] = {}
        for game in wall.games:
            self.games += 1
            self.wash_outs += game.termination is Termination.WASH_OUT
            for seat in game.seats:
                t = self._bots.setdefault(seat.bot, _Totals())
                t.seats += 1
                t.wins += seat.won
                t.self_draws += seat.self_drawn
                t.deal_ins += seat.dealt_in
                t.win_values += seat.win_value
                t.changes += seat.change
                t.decisions += seat.decisions
                t.seconds += seat.seconds
                self.timed = self.timed or seat.seconds > 0
                changes.setdefault(seat.bot, []).append(seat.change)
        for bot, values in changes.items():
            self._bots[bot].wall_means.append(sum(values) / len(values))
        self.walls += 1

    def figures(self) -> list[BotFigures]:
        """Each bot's figures, in the order the bots were first seen (the order of ``--bots``)."""
        out = []
        for bot, t in self._bots.items():
            mean = t.changes / t.seats
            out.append(
                BotFigures(
                    bot=bot,
                    seats=t.seats,
                    wins=t.wins,
                    self_draws=t.self_draws,
                    deal_ins=t.deal_ins,
                    mean_score=mean,
                    ci95=_interval(t.wall_means),
                    mean_win_value=t.win_values / t.wins if t.wins else None,
                    decisions=t.decisions,
                    ms_per_move=1000 * t.seconds / t.decisions if self.timed and t.decisions else None,
                )
            )
        return out


def _interval(samples: Sequence[float]) -> tuple[float, float] | None:
    """The normal 95% interval of the mean of ``samples``: mean ± 1.96·sd/√n (sd with n − 1)."""
    n = len(samples)
    if n < 2:
        return None
    mean = sum(samples) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in samples) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return mean - half, mean + half
