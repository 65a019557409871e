"""A review of one seat's play: at each of its decisions, what it did and what the ``strong`` bot
(:mod:`game.strong`) would have done from that seat's own view, with the reasons (issue 35).

A game is replayed from its rules, seed and actions. Before each action of the reviewed seat that
had a choice, :meth:`game.seatview.SeatView.of` builds that seat's view, exactly what it could see
then (R12), and :meth:`game.strong.StrongBot.deliberate` weighs the candidates from it. The review's
choice *is* the bot's decision: the same code decides both. Each candidate carries its reasons:
the shanten of the hand it leaves, the kinds that would bring that hand closer and how many copies
of them the seat has not seen, the points it aims for and what makes them up, and the danger of the
tile it throws (which opponent, and why: :func:`game.danger.threats`).

Marks flag where it mattered (:class:`MarkKind`). Per hand and per game: how often the seat agreed
with the bot, its deal-ins and the wins it passed.

>>> from game.game import Game
>>> from game.policy import choose
>>> game = Game(seed=3)
>>> while game.deal_number == 0 and game.to_act():
...     seat = game.to_act()[0]
...     _ = game.apply(seat, choose(game, seat))
>>> seen = review(Game(seed=3), game.log, seat=0)
>>> seen.hands[0].finished, len(seen.hands[0].decisions) > 0
(True, True)
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from game.actions import Action, ActionType
from game.danger import Threat, threats
from game.deal import DealResult
from game.game import Game, GamePhase
from game.notation import format_tiles
from game.seatview import SeatView, SeatViewCache, SeenMeld
from game.strong import Candidate, Deliberation, Mind, StrongBot
from game.tiles import Tile

__all__ = [
    "Decision",
    "GameReview",
    "HandReview",
    "KeyMoment",
    "Mark",
    "MarkKind",
    "Option",
    "decision_cost",
    "key_moments",
    "review",
    "review_decision",
]

# A discard is "far more dangerous than a near-equal safe one" when another discard keeps the hand as
# close to ready, at this share of its worth or more, and is this much safer: the gap at least
# _DANGER_GAP (a threat about half likely to be ready, on a middle tile) and at most a third the risk.
_NEAR_WORTH = 0.9
_LISTED = 8  # a reason lists the improving kinds when there are at most this many
_DANGER_GAP = 0.3
_DANGER_RATIO = 3.0
KEY_MOMENTS = 5  # a game's review opens with at most this many of the seat's costliest decisions
# The chance of dealing in, by the danger the review reads (`Option.danger_read`): each point is one
# band of readings, its mean reading and the share of its discards another seat won on, over the
# 33,282 discards of 40 games of `strong` and `normal` bots (benchmarks/review_danger_rates.py, docs/bots.md,
# *The review*); between points the chance is interpolated, and above the last it stays.
_DEAL_IN_RATES = (
    (0.0, 0.0019),
    (0.140, 0.0062),
    (0.406, 0.0138),
    (0.546, 0.0175),
    (0.651, 0.0293),
    (0.747, 0.0522),
    (0.848, 0.0714),
    (0.940, 0.1348),
)


def _deal_in_rate(reading: float) -> float:
    """The measured chance of dealing in at danger ``reading`` (`_DEAL_IN_RATES`, interpolated)."""
    low = _DEAL_IN_RATES[0]
    for high in _DEAL_IN_RATES[1:]:
        if reading <= high[0]:
            return low[1] + (high[1] - low[1]) * (reading - low[0]) / (high[0] - low[0])
        low = high
    return low[1]


class MarkKind(StrEnum):
    """Where a decision mattered."""

    DEAL_IN = "deal_in"  # the discard (or added kong) another seat won on
    WIN_PASSED = "win_passed"  # a win on offer, not declared
    READY_BROKEN = "ready_broken"  # the hand was ready before the draw and is not after the discard
    CLAIM_MISSED = "claim_missed"  # a claim would have made the hand ready; it was not made
    DANGER = "danger"  # a discard far more dangerous than a near-equal safe one


@dataclass(frozen=True, slots=True)
class Mark:
    """One mark on a decision, with what it means in words."""

    kind: MarkKind
    text: str
    instead: Action | None = None  # the better action it names: the claim missed, the safer discard

    def to_json(self) -> dict[str, object]:
        """Plain JSON data."""
        return {
            "kind": self.kind.value,
            "text": self.text,
            "instead": None if self.instead is None else self.instead.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Option:
    """One candidate the bot weighed, with its reasons."""

    action: Action
    leaves: tuple[int, ...]  # the concealed hand it leaves waiting to draw (34 counts)
    shanten: int  # of the hand it leaves (-1: complete)
    improving: tuple[tuple[Tile, int], ...]  # kinds that bring that hand closer, each with its unseen copies
    aims: float  # the points the hand aims for, as the bot weighs them
    aims_for: tuple[str, ...]  # what makes them up
    worth: float  # the bot's worth (acceptance × value, less per step from ready)
    risk: float  # the danger of the tile thrown (0 when none is)
    danger: tuple[Threat, ...]  # per threatening opponent: its share of the risk, and why
    considered: bool  # among the actions the bot chose between
    note: str  # why it was ruled out, when it was
    then: Tile | None  # after a chow or pung: the discard that follows

    @property
    def unseen(self) -> int:
        """Copies of the improving kinds the seat has not seen."""
        return sum(n for _, n in self.improving)

    @property
    def danger_read(self) -> float:
        """The bot's reading of the tile's danger as one figure from 0 to 1: one less the chance no
        threatening opponent wins on it, each opponent's :attr:`Threat.chance` taken alone. It ranks
        tiles (:attr:`risk` sums the same threats weighted by what a deal-in costs, and may exceed 1),
        but it is no rate: :attr:`deal_in` is."""
        none = 1.0
        for t in self.danger:
            none *= 1.0 - t.chance
        return 1.0 - none

    @property
    def deal_in(self) -> float:
        """The chance of dealing in with the tile thrown: the share of discards read as dangerous as this
        one (:attr:`danger_read`) that another seat won on, as measured (``_DEAL_IN_RATES``)."""
        return _deal_in_rate(self.danger_read)

    @property
    def reason(self) -> str:
        """The candidate's figures in words."""
        parts = [_steps(self.shanten) if self.then is None else f"then {self.then}: {_steps(self.shanten)}"]
        if self.improving:
            what = "win" if self.shanten == 0 else "improve"
            said = f"{len(self.improving)} kinds {what} it, {self.unseen} unseen"
            if len(self.improving) <= _LISTED:
                said += " (" + " ".join(f"{t}×{n}" for t, n in self.improving) + ")"
            parts.append(said)
        aims = f"aims for about {self.aims:.0f} points"
        if self.aims_for:
            aims += " (" + "; ".join(self.aims_for) + ")"
        parts.append(aims)
        if self.danger and self.risk > 0:
            worst = self.danger[0]
            said = f"deal-in chance {self.deal_in:.1%} (danger {self.risk:.2f}), most from seat {worst.seat}: "
            parts.append(said + "; ".join(worst.reasons))
        elif self.action.type is ActionType.DISCARD or self.then is not None:
            parts.append("safe: no opponent looks ready" if not self.danger else "safe against every threat")
        if self.note:
            parts.append(self.note)
        return "; ".join(parts)

    def to_json(self) -> dict[str, object]:
        """Plain JSON data."""
        return {
            "action": self.action.to_json(),
            "leaves": format_tiles([Tile(k) for k in range(34) for _ in range(self.leaves[k])]),
            "shanten": self.shanten,
            "improving": [{"tile": t.code, "unseen": n} for t, n in self.improving],
            "unseen": self.unseen,
            "aims": round(self.aims, 1),
            "aims_for": list(self.aims_for),
            "worth": round(self.worth, 4),
            "risk": round(self.risk, 4),
            "danger_read": round(self.danger_read, 3),
            "deal_in": round(self.deal_in, 4),
            "danger": [
                {
                    "seat": t.seat,
                    "ready": round(t.ready, 3),
                    "risk": round(t.risk, 4),
                    "chance": round(t.chance, 3),
                    "reasons": list(t.reasons),
                }
                for t in self.danger
            ],
            "considered": self.considered,
            "note": self.note,
            "then": None if self.then is None else self.then.code,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the reviewed seat."""

    hand: int  # the deal's number in the game (0-based)
    seq: int  # the action's number in the game (1-based, as in the log)
    step: int  # the action's number in its hand (1-based): the step of a hand's replay that shows the moment
    wall_live: int
    concealed: str  # the seat's concealed tiles then, in notation, the tile it had just drawn left out
    drawn: Tile | None  # the tile it had just drawn, in its turn
    offered: Tile | None  # the tile a claim window was about
    done: Action
    strong: Action
    mode: str  # how the bot chose: see :class:`game.strong.Deliberation`
    options: tuple[Option, ...]  # the bot's candidates, best first
    marks: tuple[Mark, ...]
    made_by: str | None = None  # what made the decision for the seat ("timer", "stand-in"); None: the seat
    dealt_in: bool = False  # another seat won on the tile this decision threw
    win_value: int | None = None  # a win passed: the value it would have scored, when the replay knows it
    melds: tuple[SeenMeld, ...] = ()  # the seat's declared sets then

    @property
    def agreed(self) -> bool:
        """Whether the seat did what the bot would have done, or what ties with it on every figure the
        review shows (a decision the bot would take as readily)."""
        return self.done == self.strong or _ties(self.options, self.done, self.strong)

    def to_json(self, options: int | None = None) -> dict[str, object]:
        """Plain JSON data; ``options`` keeps only the bot's first candidates and the one the seat chose."""
        shown = (
            self.options
            if options is None
            else [o for i, o in enumerate(self.options) if i < options or o.action == self.done]
        )
        return {
            "hand": self.hand + 1,  # numbered from 1, as every page, answer and command shows hands
            "seq": self.seq,
            "step": self.step,
            "wall_live": self.wall_live,
            "concealed": self.concealed,
            "drawn": None if self.drawn is None else self.drawn.code,
            "offered": None if self.offered is None else self.offered.code,
            "done": self.done.to_json(),
            "strong": self.strong.to_json(),
            "agreed": self.agreed,
            "made_by": self.made_by,
            "dealt_in": self.dealt_in,
            "mode": self.mode,
            "options": [o.to_json() for o in shown],
            "option_count": len(self.options),
            "marks": [m.to_json() for m in self.marks],
            "melds": [{"kind": m.kind, "tiles": format_tiles(m.tiles), "exposed": m.exposed} for m in self.melds],
        }


@dataclass(frozen=True, slots=True)
class HandReview:
    """The reviewed seat's decisions in one hand, and its figures."""

    number: int
    finished: bool
    result: DealResult | None
    decisions: tuple[Decision, ...]

    @property
    def agreed(self) -> int:
        """The seat's own decisions where it did what the bot would have done."""
        return sum(d.agreed for d in self.decisions if d.made_by is None)

    @property
    def agreement(self) -> float | None:
        """Share of the seat's own decisions agreeing with the bot; None without one."""
        own = sum(1 for d in self.decisions if d.made_by is None)
        return self.agreed / own if own else None

    def count(self, kind: MarkKind) -> int:
        """How many decisions carry a mark of ``kind``."""
        return sum(1 for d in self.decisions for m in d.marks if m.kind is kind)

    def to_json(self, options: int | None = None, decisions: bool = True) -> dict[str, object]:
        """Plain JSON data (``options``: as :meth:`Decision.to_json`; ``decisions``: False leaves them out)."""
        doc: dict[str, object] = {
            "hand": self.number + 1,
            "finished": self.finished,
            "result": None if self.result is None else self.result.to_json(),
            **_figures(self.decisions),
        }
        if decisions:
            doc["decisions"] = [d.to_json(options) for d in self.decisions]
        return doc


@dataclass(frozen=True, slots=True)
class GameReview:
    """One seat's review over a game (or as much of it as was reviewed)."""

    seat: int
    hands: tuple[HandReview, ...]

    @property
    def decisions(self) -> tuple[Decision, ...]:
        """Every reviewed decision, in order."""
        return tuple(d for h in self.hands for d in h.decisions)

    def to_json(self, options: int | None = None, decisions: bool = True) -> dict[str, object]:
        """Plain JSON data: the seat, each hand, and the figures over all of them (the arguments as
        :meth:`HandReview.to_json`)."""
        hands = [h.to_json(options, decisions) for h in self.hands]
        doc: dict[str, object] = {"seat": self.seat, "hands": hands, **_figures(self.decisions)}
        doc["discards"] = sum(1 for d in self.decisions if d.done.type in _THROWS)
        doc["key_moments"] = [m.to_json() for m in key_moments(self)]
        return doc


_THROWS = (ActionType.DISCARD, ActionType.ORIGINAL_CALL)  # a decision that throws a tile from the hand


def decision_cost(decision: Decision) -> float:
    """What ``decision`` cost against the bot's choice, in points: 0 when it agrees; a win passed, the
    value that win would have scored (0 when unknown: :func:`review_decision` alone cannot score it);
    otherwise the points the bot's choice aims for times the share of its worth the seat's choice gave
    up (0 when the seat's choice is worth as much: a safer or riskier throw of equal worth costs nothing
    here, its danger shows in the marks and the deal-ins)."""
    if decision.agreed:
        return 0.0
    if decision.win_value is not None:
        return float(decision.win_value)
    mine = next((o for o in decision.options if o.action == decision.done), None)
    best = next((o for o in decision.options if o.action == decision.strong), None)
    if mine is None or best is None or best.worth <= 0:
        return 0.0
    return max(0.0, best.aims * (1.0 - mine.worth / best.worth))


@dataclass(frozen=True, slots=True)
class KeyMoment:
    """One of the seat's costliest decisions in a game, and what it cost (:func:`decision_cost`)."""

    decision: Decision
    cost: float

    def to_json(self) -> dict[str, object]:
        """Plain JSON data: where the decision is (hand numbered from 1, its step and the game's action
        number), what it cost, what was done and what the bot would have done (and the tile a claim was
        about), and its marks."""
        d = self.decision
        return {
            "hand": d.hand + 1,
            "step": d.step,
            "seq": d.seq,
            "cost": round(self.cost, 1),
            "done": d.done.to_json(),
            "strong": d.strong.to_json(),
            "offered": None if d.offered is None else d.offered.code,
            "marks": [m.kind.value for m in d.marks],
        }


def key_moments(game_review: GameReview, limit: int = KEY_MOMENTS) -> tuple[KeyMoment, ...]:
    """The seat's own decisions that cost anything (:func:`decision_cost`), costliest first, at most
    ``limit``; equal costs (as shown, to a tenth of a point) in the order they were played."""
    costed = [KeyMoment(d, decision_cost(d)) for d in game_review.decisions if d.made_by is None]
    costed = [m for m in costed if round(m.cost, 1) > 0]
    costed.sort(key=lambda m: (-round(m.cost, 1), m.decision.seq))
    return tuple(costed[:limit])


def _figures(decisions: Sequence[Decision]) -> dict[str, object]:
    own = [d for d in decisions if d.made_by is None]
    agreed = sum(d.agreed for d in own)
    kinds = [m.kind for d in decisions for m in d.marks]
    return {
        "decision_count": len(own),
        "made_for": len(decisions) - len(own),
        "agreed": agreed,
        "agreement": round(agreed / len(own), 4) if own else None,
        "deal_ins": sum(d.dealt_in for d in decisions),
        "missed_wins": kinds.count(MarkKind.WIN_PASSED),
        "marks": {k.value: kinds.count(k) for k in MarkKind},
    }


def review(
    game: Game,
    actions: Sequence[tuple[int, Mapping[str, object]]],
    seat: int,
    *,
    finished_only: bool = False,
    made_by: Sequence[str | None] | None = None,
) -> GameReview:
    """Review ``seat``'s decisions in the game that ``actions`` play from ``game``, a new game (no action
    applied yet; it is played on). ``finished_only`` leaves out a hand the actions stop in the middle of.
    ``made_by`` says, per action, what made it for the seat when the seat did not choose it itself (its
    clock ran out, a bot stood in): such a decision is reviewed but not counted in the agreement.

    :raises ValueError: if ``seat`` is not 0–3, or ``game`` is not new.
    :raises RulesError: if an action is not legal where it stands.
    """
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
        raise ValueError(f"seat must be 0, 1, 2 or 3, not {seat!r}")
    if game.version:
        raise ValueError(f"a review replays a game from its start, not from action {game.version}")
    bot = StrongBot()
    cache = SeatViewCache()
    hands: list[HandReview] = []
    decisions: list[Decision] = []
    last_throw: int | None = None  # index in ``decisions`` of the seat's latest discard or added kong
    number = game.deal_number
    start = 0  # actions before the deal being played began
    for index, (actor, action) in enumerate(actions):
        if actor == seat and game.phase is GamePhase.DEAL and len(game.legal_actions(seat)) > 1:
            seen = SeatView.of(game, seat, cache)
            decision = review_decision(seen, Action.from_json(action), bot, hand=number, seq=index + 1)
            by = None if made_by is None or index >= len(made_by) else made_by[index]
            decision = dataclasses.replace(
                decision, step=index + 1 - start, made_by=by, win_value=_passed_win(game, seen, decision.done)
            )
            if decision.done.type in (ActionType.DISCARD, ActionType.ORIGINAL_CALL) or (
                decision.done.type is ActionType.KONG and seen.hand[decision.done.tile or 0] == 1
            ):
                last_throw = len(decisions)
            decisions.append(decision)
        dealing = game.phase is GamePhase.DEAL
        game.apply(actor, action)
        if game.phase is GamePhase.DEAL and not dealing:
            start = game.version
        if game.phase is not GamePhase.DEAL and number == len(game.results) - 1:
            result = game.results[number]
            if result.discarder == seat and result.winner is not None and last_throw is not None:
                dealt = dataclasses.replace(decisions[last_throw], dealt_in=True)
                if not dealt.agreed:  # the bot would have thrown it too: a fact, not a mistake
                    dealt = _with_mark(dealt, Mark(MarkKind.DEAL_IN, f"seat {result.winner} won on this {result.tile}"))
                decisions[last_throw] = dealt
            hands.append(HandReview(number, True, result, tuple(decisions)))
            decisions, last_throw = [], None
            number = len(game.results)
    if game.phase is GamePhase.DEAL and not finished_only:
        hands.append(HandReview(number, False, None, tuple(decisions)))
    return GameReview(seat, tuple(hands))


def _passed_win(game: Game, seen: SeatView, done: Action) -> int | None:
    """The value of the win offered to ``seen``'s seat in ``game`` that ``done`` passes (declared on a
    copy, the others passing any claim), or None: no win passed, or it would not have been the seat's."""
    seat = seen.seat
    if done.type is ActionType.WIN or Action(ActionType.WIN) not in seen.legal:
        return None
    probe = copy.deepcopy(game)
    probe.apply(seat, Action(ActionType.WIN))
    for _ in range(3):  # the other seats' answers to the claim window, at most three
        waiting = [s for s in probe.to_act() if s != seat] if probe.phase is GamePhase.DEAL else []
        if not waiting or Action(ActionType.PASS) not in probe.legal_actions(waiting[0]):
            break
        probe.apply(waiting[0], Action(ActionType.PASS))
    if probe.phase is GamePhase.DEAL or probe.reckoning is None or probe.results[-1].winner != seat:
        return None
    score = probe.reckoning.scores[seat]
    return None if score is None else score.value


def _shown(option: Option) -> tuple[object, ...]:
    """The figures the review shows of ``option``, as rounded as it shows them (`Option.to_json`)."""
    return (option.shanten, option.unseen, round(option.aims, 1), round(option.worth, 4), round(option.risk, 4))


def _ties(options: Sequence[Option], done: Action, strong: Action) -> bool:
    """Whether ``done`` and the bot's choice ``strong`` are two options alike on every figure shown:
    two discards of that kind, say, or two chows that leave equal hands."""
    mine = next((o for o in options if o.action == done), None)
    best = next((o for o in options if o.action == strong), None)
    if mine is None or best is None or not mine.considered or mine.action.type is not best.action.type:
        return False
    return _shown(mine) == _shown(best)


def _with_mark(decision: Decision, mark: Mark) -> Decision:
    return dataclasses.replace(decision, marks=(mark, *decision.marks))


def review_decision(
    seen: SeatView, done: Action, bot: StrongBot | None = None, *, hand: int = 0, seq: int = 0
) -> Decision:
    """One decision: what the seat whose view ``seen`` is did (``done``), what the bot would do from the
    same view, the candidates with their reasons, and the marks (all but a deal-in, which only the end
    of the hand shows).

    :raises ValueError: if the seat has nothing to do.
    """
    deliberation = (bot or StrongBot()).deliberate(seen)
    options = _options(seen, deliberation)
    if deliberation.mode != "obvious" and all(o.action != done for o in options):
        options = (*options, _outside(seen, deliberation.mind, done))
    agreed = done == deliberation.choice or _ties(options, done, deliberation.choice)
    marks = () if agreed else _marks(seen, done, deliberation, options)  # the bot's own play is no mistake
    counts = list(seen.hand)
    if seen.drawn is not None:
        counts[seen.drawn] -= 1
    concealed = [Tile(k) for k in range(34) for _ in range(counts[k])]
    return Decision(
        hand=hand,
        seq=seq,
        step=seq,
        wall_live=seen.wall_live,
        concealed=format_tiles(concealed),
        drawn=seen.drawn,
        offered=seen.offered,
        done=done,
        strong=deliberation.choice,
        mode=deliberation.mode,
        options=options,
        marks=marks,
        melds=tuple(seen.melds[seen.seat]),
    )


def _options(seen: SeatView, deliberation: Deliberation) -> tuple[Option, ...]:
    mind = deliberation.mind
    thrown = [_thrown(c) for c in deliberation.candidates]
    danger = threats(seen, {k for k in thrown if k is not None})
    return tuple(
        _option(mind, c, danger.get(k, ()) if k is not None else ())
        for c, k in zip(deliberation.candidates, thrown, strict=True)
    )


def _thrown(c: Candidate) -> int | None:
    if c.action.type is ActionType.DISCARD:
        assert c.action.tile is not None
        return int(c.action.tile)
    return None if c.then is None else int(c.then)


def _option(mind: Mind, c: Candidate, danger: tuple[Threat, ...]) -> Option:
    leaves = list(c.leaves)
    shanten, kinds = mind.improving(leaves, c.melds)
    aims, notes = mind.aims(leaves, c.melds)
    unseen = mind.unseen
    return Option(
        action=c.action,
        leaves=c.leaves,
        shanten=shanten,
        improving=tuple((Tile(k), unseen[k]) for k in kinds),
        aims=aims,
        aims_for=tuple(text for text, _ in notes),
        worth=c.worth,
        risk=c.risk,
        danger=danger,
        considered=c.considered,
        note=c.note,
        then=c.then,
    )


def _outside(seen: SeatView, mind: Mind, done: Action) -> Option:
    """An action the bot did not weigh (passing a win, declaring one it would not): its bare figures."""
    hand = list(seen.hand)
    shanten = mind.improving(hand, seen.melds[seen.seat])[0] if sum(hand) % 3 == 1 else -1
    note = "a win" if done.type is ActionType.WIN else "not weighed by the bot"
    return Option(done, tuple(hand), shanten, (), 0.0, (), 0.0, 0.0, (), False, note, None)


def _marks(seen: SeatView, done: Action, deliberation: Deliberation, options: tuple[Option, ...]) -> tuple[Mark, ...]:
    marks: list[Mark] = []
    legal = seen.legal
    mind = deliberation.mind
    melds = seen.melds[seen.seat]
    if Action(ActionType.WIN) in legal and done.type is not ActionType.WIN:
        tile = seen.offered or seen.drawn
        marks.append(Mark(MarkKind.WIN_PASSED, f"a win{'' if tile is None else f' on {tile}'} was on offer"))
    if done.type is ActionType.DISCARD and seen.drawn is not None:
        before = list(seen.hand)
        before[seen.drawn] -= 1
        after = list(seen.hand)
        assert done.tile is not None
        after[done.tile] -= 1
        if mind.improving(before, melds)[0] == 0 and mind.improving(after, melds)[0] > 0:
            marks.append(
                Mark(
                    MarkKind.READY_BROKEN,
                    f"the hand was ready before drawing {seen.drawn}; throwing {done.tile} broke it",
                )
            )
    if ActionType.PASS in {a.type for a in legal} and mind.improving(list(seen.hand), melds)[0] > 0:
        ready = [
            a
            for a in legal
            if a.type in (ActionType.CHOW, ActionType.PUNG, ActionType.KONG) and _readies(seen, mind, a)
        ]
        if ready and done not in ready:
            marks.append(
                Mark(MarkKind.CLAIM_MISSED, f"{_say(ready[0], seen.offered)} would have made the hand ready", ready[0])
            )
    if done.type is ActionType.DISCARD:
        mine = next((o for o in options if o.action == done), None)
        if mine is not None:
            for o in options:
                if (
                    o.action.type is ActionType.DISCARD
                    and o.shanten <= mine.shanten
                    and o.worth >= _NEAR_WORTH * mine.worth
                    and mine.risk - o.risk >= _DANGER_GAP
                    and o.risk * _DANGER_RATIO <= mine.risk
                ):
                    text = (
                        f"{done.tile} (deal-in chance {mine.deal_in:.1%}) where {o.action.tile} kept the hand"
                        f" about as good at {o.deal_in:.1%}"
                    )
                    marks.append(Mark(MarkKind.DANGER, text, o.action))
                    break
    return tuple(marks)


def _readies(seen: SeatView, mind: Mind, claim: Action) -> bool:
    """Whether ``claim`` leaves the hand ready (after the best discard, for a chow or pung)."""
    after = seen.hand_after(claim)
    tile = seen.offered
    assert tile is not None
    melds = (*seen.melds[seen.seat], _meld(claim, tile))
    if claim.type is ActionType.KONG:
        return mind.improving(after, melds)[0] == 0  # a loose tile follows
    for k in range(34):
        if after[k]:
            after[k] -= 1
            ready = mind.improving(after, melds)[0] == 0
            after[k] += 1
            if ready:
                return True
    return False


def _meld(claim: Action, tile: Tile) -> SeenMeld:
    if claim.type is ActionType.CHOW:
        assert claim.tiles is not None
        return SeenMeld("chow", tuple(sorted((tile, *claim.tiles))), True, tile)
    n = 4 if claim.type is ActionType.KONG else 3
    return SeenMeld(claim.type.value, (tile,) * n, True, tile)


def _say(action: Action, tile: Tile | None) -> str:
    if action.type is ActionType.CHOW and action.tiles is not None and tile is not None:
        return "chow " + format_tiles(sorted((tile, *action.tiles)))
    if action.type is ActionType.DISCARD:
        return f"discard {action.tile}"
    return action.type.value + ("" if tile is None else f" {tile}")


def _steps(shanten: int) -> str:
    if shanten < 0:
        return "complete"
    return "ready" if shanten == 0 else f"{shanten} from ready"
