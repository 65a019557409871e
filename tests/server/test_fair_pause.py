"""The fair pause (R6.9, lesson 16): with it, what a seat receives after a discard, and when, does not
depend on other seats' concealed tiles. Two deals differ only in one seat's concealed tiles (a pair
it could pung a discard with is broken up, the tile going to the bottom of the dead wall, which is
never reached here); every other seat gets the same frames at the same (fake) times. Without the
pause they do not: a claim window opens in one deal and not in the other."""

from __future__ import annotations

import re
from typing import Any

import pytest
from tablekit import Kit

from game.actions import ActionType
from game.game import Game, GamePhase
from game.rules import Rules
from server.tables.actor import TableActor

pytestmark = pytest.mark.asyncio

X = 2  # the seat whose concealed tiles differ between the two deals
PAUSE = 2.0
TIMERS = {"turn": 600, "claim": 20, "ready": None, "pause": PAUSE, "bot_delay": 0}
STEP = 0.25


def _swap(game: Game, tile: int) -> None:
    """Give seat X one tile fewer of ``tile`` and the dead wall's last tile instead (test-only surgery)."""
    deal = game.deal
    dead = deal.wall._dead  # the last item is drawn first: index 0 is the bottom, never drawn here
    index = next(i for i, t in enumerate(dead) if t != tile)
    other = dead[index]
    deal.hands[X][tile] -= 1
    deal.hands[X][other] += 1
    dead[index] = tile  # type: ignore[call-overload]


def _scripted(game: Game, seat: int) -> Any:
    """Everyone passes every claim and discards the tile just drawn."""
    legal = game.legal_actions(seat)
    for a in legal:
        if a.type is ActionType.PASS:
            return a
    drawn = game.deal.drawn
    discards = [a for a in legal if a.type is ActionType.DISCARD]
    return next((a for a in discards if a.tile == drawn), discards[-1])


def _find_deal() -> tuple[int, int]:
    """A seed and a tile such that, under the script, a discard opens a classical window for seat X
    alone (X could pung it), and with X's pair broken up no window opens on that discard."""
    for seed in range(200):
        game = Game(Rules(flowers=False), seed)
        while game.phase is GamePhase.DEAL and game.deal.wall.live_count > 20:
            window = game.deal.window
            if window is not None:
                if list(window.options) == [X] and any(a.type is ActionType.PUNG for a in window.options[X]):
                    tile = int(window.tile)
                    if game.deal.hands[X][tile] == 2:
                        return seed, tile
            seat = game.to_act()[0]
            game.apply(seat, _scripted(game, seat))
    raise AssertionError("no suitable deal in 200 seeds")


def _normalised(raw: str, actor: TableActor, tokens: dict[str, int]) -> str:
    raw = raw.replace(actor.id, "TABLE")

    def token(match: re.Match[str]) -> str:  # the decision tokens are random: number them in order
        return f'"window":{match.group(1)}{tokens.setdefault(match.group(2), len(tokens))}'

    return re.sub(r'"window":(\[?)(\d+)', token, raw)


async def _play(seed: int, tile: int, *, swap: bool, pause: bool) -> dict[int, list[tuple[float, str]]]:
    """Play the scripted deal; the frames each seat but X received, with the (fake) time of each."""
    kit = Kit()
    overrides = {"flowers": False, "claim_pause": pause}
    actor, clients = await kit.table(humans=4, seed=seed, timers=TIMERS, overrides=overrides)
    if swap:
        _swap(actor.game, tile)
    start = kit.clock.now()
    seen: dict[int, list[tuple[float, str]]] = {s: [] for s in range(4) if s != X}
    tokens: dict[int, dict[str, int]] = {s: {} for s in seen}
    opened, window = kit.clock.now(), actor.window
    for _ in range(4000):
        for s in seen:
            while not clients[s].conn.queue.empty():
                raw = clients[s].conn.queue.get_nowait()
                assert raw is not None
                seen[s].append((kit.clock.now() - start, _normalised(raw, actor, tokens[s])))
        game = actor.game
        if game.phase is not GamePhase.DEAL or game.deal.wall.live_count <= 20:
            break
        if actor.window != window:
            opened, window = kit.clock.now(), actor.window
        waited = kit.clock.now() - opened
        deal = game.deal
        if deal.window is None and waited >= 0.5:  # the player whose turn it is discards after half a second
            seat = deal.current
            actor.post(_act(clients[seat], _scripted(game, seat), actor.window))
        elif deal.window is not None and X in game.to_act() and waited >= PAUSE / 2:
            if any(a.type is not ActionType.PASS for a in game.legal_actions(X)):
                actor.post(_act(clients[X], _scripted(game, X), actor.window))  # X thinks, then passes
        # The other people never answer a claim window: the pause (or the deadline) ends it.
        await kit.advance(actor, STEP)
    await kit.lobby.close()
    return seen


def _act(client: Any, action: Any, window: int) -> Any:
    from server.tables.messages import Act

    client.next_id += 1
    return Act(client.conn, client.next_id, action.to_json(), window)


async def test_with_the_pause_other_seats_cannot_tell_the_deals_apart() -> None:
    seed, tile = _find_deal()
    a = await _play(seed, tile, swap=False, pause=True)
    b = await _play(seed, tile, swap=True, pause=True)
    for seat in a:
        assert len(a[seat]) > 40
        assert a[seat] == b[seat], f"seat {seat} saw the deals differ"


async def test_without_the_pause_they_can() -> None:
    seed, tile = _find_deal()
    a = await _play(seed, tile, swap=False, pause=False)
    b = await _play(seed, tile, swap=True, pause=False)
    differ = [seat for seat in a if a[seat] != b[seat]]
    assert differ == sorted(a)  # every other seat learns of X's pair from the window
    assert any('"claim"' in raw for _, raw in a[0]) or any('"claim"' in raw for _, raw in a[1])


def _lone_pung(game: Game) -> bool:
    """A window is open, X may pung its tile and no other seat may claim it (so a pung answered at
    once could not be outranked)."""
    window = game.deal.window
    if window is None or not any(a.type is ActionType.PUNG for a in window.options.get(X, ())):
        return False
    return all(a.type is ActionType.PASS for s in window.options if s != X for a in window.options[s])


def _find_lone_pung() -> int:
    """A seed whose scripted play reaches `_lone_pung`."""
    for seed in range(200):
        game = Game(Rules(flowers=False, claim_pause=True), seed)
        while game.phase is GamePhase.DEAL and game.deal.wall.live_count > 20:
            if _lone_pung(game):
                return seed
            seat = game.to_act()[0]
            game.apply(seat, _scripted(game, seat))
    raise AssertionError("no suitable deal in 200 seeds")


async def test_an_answer_nothing_can_outrank_waits_for_the_pause_like_any_other() -> None:
    """Applied at once, X's pung would close the window before the pause ends, telling everyone that
    nobody else could have claimed the tile. It is held for X alone (shown as X's answer) and
    applied, then acknowledged, when the pause ends."""
    seed = _find_lone_pung()
    kit = Kit()
    overrides = {"flowers": False, "claim_pause": True}
    actor, clients = await kit.table(humans=4, seed=seed, timers=TIMERS, overrides=overrides)
    for _ in range(1000):
        game = actor.game
        if _lone_pung(game):
            break
        for seat in game.to_act():  # everyone passes a window at once (each answer is held till the last)
            actor.post(_act(clients[seat], _scripted(game, seat), actor.window))
        await kit.settle(actor)
    else:
        raise AssertionError("the table never reached the window")
    for c in clients:
        c.pump()
    pung = next(a for a in actor.game.legal_actions(X) if a.type is ActionType.PUNG)
    asked = kit.clock.now()
    request = clients[X].act(pung.to_json())
    await kit.advance(actor, PAUSE / 4)
    assert [c.pump() for s, c in enumerate(clients) if s != X] == [[], [], []]  # the others see nothing yet
    clients[X].pump()
    assert clients[X].state["answer"] == pung.to_json()
    assert request not in clients[X].answers  # not acknowledged before it is applied and stored
    assert actor.game.deal.window is not None
    while actor.game.deal.window is not None:
        await kit.advance(actor, STEP)
    assert kit.clock.now() - asked >= PAUSE  # the window closed when the pause ended, not before
    for c in clients:
        c.pump()
    assert clients[X].answers[request]["t"] == "ack"
    assert "answer" not in clients[X].state
    assert any(m["kind"] == "pung" for m in clients[0].state["game"]["seats"][X]["melds"])
