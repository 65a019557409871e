"""Properties of scoring and settlement (R8.6, R11): zero-sum payments, the value formula, East's double."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game import Game, GamePhase, OptionError, Rules
from game.policy import choose
from game.rulesets import RULESETS, differences, ruleset, version
from game.settlement import settle

seats = st.integers(0, 3)
values = st.lists(st.integers(0, 2000), min_size=4, max_size=4)
rule_variants = st.builds(
    Rules,
    losers_settle=st.booleans(),
    pao=st.booleans(),
    payment=st.sampled_from(["all", "discarder"]),
)


@st.composite
def deals(draw: st.DrawFn) -> tuple[Rules, int | None, int, int | None, list[int], int | None]:
    rules = draw(rule_variants)
    winner = draw(st.none() | seats)
    dealer = draw(seats)
    others = [s for s in range(4) if s != winner]
    discarder = draw(st.none() | st.sampled_from(others)) if winner is not None else None
    pao = draw(st.none() | st.sampled_from(others)) if winner is not None else None
    return rules, winner, dealer, discarder, draw(values), pao


@given(deals())
def test_settlement_always_sums_to_zero(deal: tuple[Rules, int | None, int, int | None, list[int], int | None]) -> None:
    rules, winner, dealer, discarder, vals, pao = deal
    result = settle(rules, winner, dealer, discarder, vals, pao)
    assert sum(result.changes) == 0
    for seat in range(4):
        paid = sum(p.amount for p in result.payments if p.payer == seat)
        got = sum(p.amount for p in result.payments if p.payee == seat)
        assert result.changes[seat] == got - paid
    if winner is None:
        assert result.changes == (0, 0, 0, 0)
    else:
        assert result.changes[winner] >= 0


@given(winner=seats, dealer=seats, value=st.integers(1, 2000), discarder=st.none() | seats)
def test_east_pays_and_receives_exactly_double(winner: int, dealer: int, value: int, discarder: int | None) -> None:
    if discarder == winner:
        discarder = None
    rules = Rules(losers_settle=False)
    result = settle(rules, winner, dealer, discarder, [value if s == winner else 0 for s in range(4)])
    paid = {p.payer: p.amount for p in result.payments}
    for loser in (s for s in range(4) if s != winner):
        expected = 2 * value if dealer in (loser, winner) else value
        assert paid[loser] == expected


def _played_scores(rules: Rules, deals_wanted: int, seed: str) -> list[tuple[dict[str, object], bool]]:
    """Every seat's score from self-play deals, with whether it is the winner's."""
    found: list[tuple[dict[str, object], bool]] = []
    game = Game(rules, seed=seed)
    deals_done = 0
    while deals_done < deals_wanted:
        if game.phase is GamePhase.OVER:
            game = Game(rules, seed=f"{seed}/{deals_done}")
        elif game.phase is GamePhase.BETWEEN:
            for seat in range(4):
                game.apply(seat, {"type": "ready"})
        else:
            seat = game.to_act()[0]
            for event in game.apply(seat, choose(game, seat)):
                if event["type"] == "deal_end":
                    deals_done += 1
                    for s, score in enumerate(event["scores"]):
                        if score is not None:
                            found.append((score, s == event["winner"]))
    return found


@settings(max_examples=6, deadline=None)
@given(limit=st.sampled_from([500, 1000, 2000]), round_points=st.booleans(), seed=st.integers(0, 10_000))
def test_value_is_points_times_doubles_capped_unless_a_limit_hand(limit: int, round_points: bool, seed: int) -> None:
    rules = Rules(limit=limit, round_points=round_points)
    scores = _played_scores(rules, 25, f"prop/{seed}")
    assert any(winner for _, winner in scores)
    for score, winner in scores:
        items = score["items"]
        assert isinstance(items, list)
        assert score["points"] == sum(i.get("points", 0) for i in items)
        assert score["doubles"] == sum(i.get("doubles", 0) for i in items)
        if score["limit_hand"] is not None:
            assert winner, "a loser's hand is never a limit hand (R11.2)"
            assert score["value"] in (limit, limit // 2)
            continue
        points = int(score["points"])
        if round_points:
            points = (points + 5) // 10 * 10
        assert score["value"] == min(limit, points * 2 ** int(score["doubles"]))


def test_ruleset_versions_are_stable_and_differences_listed() -> None:
    classical = ruleset("classical")
    assert classical.rules == Rules() and classical.version == version(Rules())
    assert classical.version == "5e91c349f39a6125"  # changes only if an option or its value changes
    assert ruleset("classical", {"limit": 1000}).version != classical.version
    american = ruleset("chinese-american")
    changed = {name for name, _, _ in differences(classical.rules, american.rules)}
    assert changed == {
        "round_points",
        "auto_limit",
        "losers_settle",
        "pao",
        "dealer_keeps_on_washout",
        "bonus_points",
        "no_points_double",
        "concealed_discard_points",
        "payment",
        "earthly_self_drawn",
    }
    assert american.version == "908ade8e9c4e05cd"  # options added later leave stored versions alone
    assert set(RULESETS) >= {"classical", "chinese-american", "dmjl"}
    assert ruleset("chinese-american", {"pao": True}).rules.pao is True


def test_unknown_ruleset_or_option_is_refused() -> None:
    with pytest.raises(OptionError, match="unknown ruleset 'riichi'"):
        ruleset("riichi")
    with pytest.raises(OptionError, match="unknown option"):
        ruleset("classical", {"speed": 3})


def test_starting_score_option_sets_every_seat() -> None:
    assert Game(Rules(), seed=1).scores == [2000] * 4
    assert Game(Rules(starting_score=500), seed=1).scores == [500] * 4
