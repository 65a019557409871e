"""The one projection (R12): what each seat and a spectator may see."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from game import ActionType, Game, GamePhase, Rules, Tile, parse_tiles, view
from game.policy import choose
from game.rulesets import RULESETS
from game.view import ViewCache, views

_TILE_FIELDS = {"concealed", "tiles", "tile", "drawn", "claimed", "bonus"}


def _tile_texts(node: object, found: list[str], key: str = "") -> list[str]:
    """Every tile text a view holds, wherever it sits (so a new leaky field is caught too), and
    ``"<str>"`` markers for every other string (checked for the seed).
    """
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in ("legal_actions", "answer", "discards"):  # own choices; discards are checked whole
                _tile_texts(v, found, k)
    elif isinstance(node, list):
        for v in node:
            _tile_texts(v, found, key)
    elif isinstance(node, str):
        found.append(node if key in _TILE_FIELDS else "<str>" + node)
    return found


def _entitled(game: Game, seat: int | None) -> Counter[Tile]:
    """Exactly the tiles R12.1 shows ``seat`` outside the discards: its own concealed tiles and
    drawn tile, every meld (and the discard it claimed), every bonus tile, the tile in a window.
    """
    deal = game.deal
    allowed: Counter[Tile] = Counter()
    if seat is not None:
        allowed.update(deal.concealed(seat))
        if deal.drawn is not None and deal.current == seat and deal.window is None:
            allowed[deal.drawn] += 1
    for s in range(4):
        for meld in deal.melds[s]:
            allowed.update(meld.tiles)
            if meld.claimed is not None:
                allowed[meld.claimed] += 1
        allowed.update(deal.bonus[s])
    if deal.window is not None:
        allowed[deal.window.tile] += 1
    return allowed


def _check(game: Game, seed: str) -> None:
    public_discards = [d.to_json() for d in game.deal.discards]
    for seat in (0, 1, 2, 3, None):
        v = view(game, seat)
        for d in v["discards"]:  # who threw what, who took it, and the Dangerous Game's public mark
            assert set(d) <= {"seat", "tile", "claimed_by", "danger"}, d
        texts = _tile_texts(v, [])
        assert not any(seed in t for t in texts), "the seed left the server"
        for other in range(4):
            if other != seat:
                assert "concealed" not in v["seats"][other], f"seat {seat} sees seat {other}'s concealed tiles"
        assert v["discards"] == public_discards
        shown = Counter(parse_tiles(" ".join(t for t in texts if not t.startswith("<str>"))))
        assert shown == _entitled(game, seat), f"seat {seat} is shown {sorted(shown - _entitled(game, seat))} extra"


@pytest.mark.parametrize(
    "name, count",
    [("classical", 250), ("dmjl", 40), ("bmja", 20)],
)
def test_no_view_leaks_hidden_tiles_over_random_hands(name: str, count: int) -> None:
    """Under `dmjl` and `bmja` too: there a discard carries the Dangerous Game's mark (R11.6), and
    whether its discarder had a choice stays secret until the hand ends."""
    rng = random.Random(2024)
    hands = 0
    game_no = 0
    dangerous = 0
    while hands < count:
        seed = f"secret-seed-{game_no}-x9"
        game = Game(RULESETS[name].with_overrides({"game_length": "east"}), seed=seed)
        game_no += 1
        while game.phase is not GamePhase.OVER and hands < count:
            if game.phase is GamePhase.BETWEEN:
                for seat in range(4):
                    game.apply(seat, {"type": "ready"})
                continue
            if rng.random() < 0.5:  # (every step of half as many hands checked less of what play reaches)
                _check(game, seed)
                dangerous += sum(1 for d in game.deal.discards if d.danger is not None)
            seat = rng.choice(game.to_act())
            # half the deals played by the policy (realistic), half at random (odd corners)
            action = choose(game, seat) if hands % 2 else rng.choice(game.legal_actions(seat))
            game.apply(seat, action)
            if game.phase is not GamePhase.DEAL:
                hands += 1
    assert hands == count
    assert (dangerous > 0) == RULESETS[name].dangerous_game  # the marks were there to be checked


def test_views_built_together_equal_each_seats_own_view() -> None:
    """A table builds its four views at once, sharing the public parts; each must still be exactly
    that seat's `view`, its own concealed tiles included and nobody else's.
    """
    rng = random.Random(7)
    game = Game(Rules(game_length="east"), seed="together")
    checked = 0
    while game.phase is not GamePhase.OVER and checked < 300:
        if game.phase is GamePhase.BETWEEN:
            for seat in range(4):
                game.apply(seat, {"type": "ready"})
            continue
        together = views(game, [None, 0, 1, 2, 3])
        for seat in (None, 0, 1, 2, 3):
            assert together[seat] == view(game, seat)
        checked += 1
        seat = rng.choice(game.to_act())
        game.apply(seat, choose(game, seat))
    assert checked == 300


def test_views_from_a_cache_equal_fresh_views_through_whole_games() -> None:
    """A table keeps a `ViewCache` and gets unchanged parts back as the same objects; after every
    action of whole games (claims, kongs, wins, wash-outs, new deals), the views it builds must still be
    exactly the fresh ones, and a part it hands out again must not have changed since.
    """
    rng = random.Random(11)
    steps = deals = 0
    for n in range(3):
        game = Game(Rules(game_length="east"), seed=f"cached-{n}")
        cache = ViewCache()
        last: dict[int | None, dict[str, object]] = {}
        snapshot: dict[int | None, str] = {}
        while game.phase is not GamePhase.OVER:
            cached = views(game, [None, 0, 1, 2, 3], cache)
            for seat in (None, 0, 1, 2, 3):
                assert cached[seat] == view(game, seat)
                if seat in last:  # the old views are untouched by the new ones sharing their parts
                    assert repr(last[seat]) == snapshot[seat]
            last, snapshot = cached, {seat: repr(v) for seat, v in cached.items()}
            steps += 1
            if game.phase is GamePhase.BETWEEN:
                deals += 1
                for seat in range(4):
                    game.apply(seat, {"type": "ready"})
                continue
            seat = rng.choice(game.to_act())
            game.apply(seat, choose(game, seat))
    assert deals >= 12 and steps > 500


def test_view_holds_own_tiles_and_legal_actions_only() -> None:
    game = Game(Rules(), seed=11)
    dealer = view(game, 0)
    assert parse_tiles(dealer["seats"][0]["concealed"]) == game.deal.concealed(0)
    assert dealer["legal_actions"], "the dealer must be told what it may do"
    assert all(a["type"] in ("discard", "win", "kong") for a in dealer["legal_actions"])
    south = view(game, 1)
    assert south["legal_actions"] == []
    assert south["seats"][0]["tiles"] == 14 and "concealed" not in south["seats"][0]
    assert south["wall"] == {"live": game.deal.wall.live_count, "dead": game.deal.wall.dead_count}
    spectator = view(game, None)
    assert spectator["legal_actions"] == [] and all("concealed" not in s for s in spectator["seats"])


def test_claim_window_hides_who_was_offered_what() -> None:
    rng = random.Random(3)
    for n in range(200):
        game = Game(Rules(), seed=n)
        while game.phase is GamePhase.DEAL and game.deal.window is None:
            seat = game.to_act()[0]
            game.apply(seat, choose(game, seat))
        if game.deal.window is None:
            continue
        offered = set(game.deal.window.options)
        outsiders = [s for s in range(4) if s not in offered]
        views = [view(game, s)["turn"] for s in outsiders] + [view(game, None)["turn"]]
        # everyone outside the window sees the same thing: the tile and who discarded it
        assert all(v == views[0] for v in views)
        assert set(views[0]) == {"phase", "tile", "from"}
        claimant = rng.choice(sorted(offered))
        own = view(game, claimant)
        assert own["legal_actions"] and any(a["type"] == "pass" for a in own["legal_actions"])
        return
    raise AssertionError("no claim window opened in 200 deals")


def test_an_answer_in_an_open_window_changes_no_other_seats_view() -> None:
    # R12.2: the other seats must not even learn that somebody answered (no counter may move).
    for n in range(500):
        game = Game(Rules(), seed=n)
        while game.phase is GamePhase.DEAL and (game.deal.window is None or len(game.deal.window.options) < 2):
            seat = game.to_act()[0]
            game.apply(seat, choose(game, seat))
        if game.deal.window is None:
            continue
        first, *rest = sorted(game.deal.window.options)
        before = {s: view(game, s) for s in [None, *range(4)] if s != first}
        game.apply(first, {"type": "pass"})
        assert game.deal.window is not None  # still open: the others have not answered
        assert {s: view(game, s) for s in before} == before
        return
    raise AssertionError("no window with two claimants in 500 deals")


def test_all_hands_are_revealed_when_the_deal_ends() -> None:
    game = Game(Rules(), seed=8)
    while game.phase is GamePhase.DEAL:
        seat = game.to_act()[0]
        game.apply(seat, choose(game, seat))
    for seat in (0, 1, 2, 3, None):
        v = view(game, seat)
        assert all("concealed" in s for s in v["seats"])
        assert v["result"] is not None
        assert v["legal_actions"] == ([] if seat is None else [{"type": "ready"}])


def test_only_the_drawer_sees_the_drawn_tile() -> None:
    game = Game(Rules(), seed=4)
    while game.phase is GamePhase.DEAL:
        seat = game.to_act()[0]
        acts = game.legal_actions(seat)
        if game.deal.phase.value == "turn" and game.deal.draw_source == "wall":
            assert view(game, seat)["turn"]["drawn"] == game.deal.drawn.code
            for other in {0, 1, 2, 3} - {seat}:
                assert "drawn" not in view(game, other)["turn"]
            return
        game.apply(seat, next((a for a in acts if a.type is ActionType.DISCARD), acts[0]))
    raise AssertionError("no draw seen")
