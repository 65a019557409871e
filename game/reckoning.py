"""The reckoning of a finished deal: every seat's hand scored and the payments settled (R8–R11)."""

from __future__ import annotations

from dataclasses import dataclass

from game.deal import Deal, Termination
from game.scoring import Score, WinningHand, score_loser, score_win
from game.settlement import Settlement, settle

__all__ = ["Reckoning", "reckon"]

_PAO_LIMITS = {"dragons": "Big Three Dragons", "winds": "Big Four Winds"}


@dataclass(frozen=True, slots=True)
class Reckoning:
    """Each seat's score (None for everyone after a wash-out) and the settlement."""

    scores: tuple[Score | None, ...]
    settlement: Settlement
    pao: int | None
    dangerous: int | None = None  # the seat that pays for all after a Dangerous Game (R11.6)

    def to_json(self) -> dict[str, object]:
        """Plain JSON: scores by seat, changes and payments (``dangerous`` only when a seat pays by R11.6)."""
        out: dict[str, object] = {
            "scores": [None if s is None else s.to_json() for s in self.scores],
            "pao": self.pao,
            **self.settlement.to_json(),
        }
        if self.dangerous is not None:
            out["dangerous"] = self.dangerous
        return out


def reckon(deal: Deal, dealer_streak: int = 0) -> Reckoning:
    """Score and settle a finished deal; ``dealer_streak`` is how many deals in a row the dealer
    had won before this one (R16 ``nine_wins_limit``).

    :raises ValueError: if the deal is not over.
    """
    result = deal.result
    if result is None:
        raise ValueError("the deal is not over")
    rules = deal.rules
    if result.termination is Termination.WASH_OUT or result.winner is None:
        return Reckoning((None, None, None, None), settle(rules, None, deal.dealer, None, [0, 0, 0, 0]), None)
    winner = result.winner
    assert result.tile is not None and result.win_by is not None
    scores: list[Score] = []
    for seat in range(4):
        if seat == winner:
            hand = WinningHand(
                concealed=tuple(deal.hands[seat]),
                melds=tuple(deal.melds[seat]),
                bonus=tuple(deal.bonus[seat]),
                winning_tile=result.tile,
                win_by=result.win_by,
                seat_wind=deal.seat_wind(seat),
                round_wind=deal.round_wind,
                dealer=seat == deal.dealer,
                last_tile=result.last_tile,
                first_turn=result.first_turn,
                loose_kongs=result.loose_kongs,
                dealer_streak=dealer_streak if seat == deal.dealer else 0,
                original_call=deal.calls[seat] == "declared",
            )
            scores.append(score_win(hand, rules))
        else:
            scores.append(
                score_loser(
                    deal.hands[seat], deal.melds[seat], deal.bonus[seat], deal.seat_wind(seat), deal.round_wind, rules
                )
            )
    pao = None
    if rules.pao and winner in deal.pao:
        payer, group = deal.pao[winner]
        if scores[winner].limit_hand == _PAO_LIMITS[group]:
            pao = payer  # R11.3: only when the hand really is Big Three Dragons / Big Four Winds
    # R11.6: the winner took a discard the table judged dangerous, played with a choice.
    dangerous = deal.liable.get(winner) if rules.dangerous_game and pao is None else None
    values = [s.value for s in scores]
    settlement = settle(rules, winner, deal.dealer, result.discarder, values, pao, dangerous)
    return Reckoning(tuple(scores), settlement, pao, dangerous)
