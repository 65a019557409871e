"""Server-side timers on a fake clock (issue 4): claim windows, turn deadlines, stale window tokens,
disconnected seats, bots after the grace period, and a person taking the seat back.
"""

from __future__ import annotations

from typing import Any

import pytest
from tablekit import Client, Kit

from server.tables.actor import TableActor

pytestmark = pytest.mark.asyncio

TIMERS = {"turn": 30, "claim": 6, "ready": 20, "grace": 60, "bot_delay": 0.5}
NO_PAUSE = {
    "claim_pause": False
}  # these tests time classical claim windows; tests/server/test_fair_pause.py the paused ones


def discard_drawn(client: Client) -> dict[str, Any]:
    """The discard a hurried human makes: the drawn tile, else the last tile offered."""
    game = client.state["game"]
    discards = [a for a in client.legal if a["type"] == "discard"]
    drawn = (game["turn"] or {}).get("drawn")
    return next((a for a in discards if a["tile"] == drawn), discards[-1])


async def play_until_claim(kit: Kit, actor: TableActor, clients: list[Client], *, humans: set[int]) -> int:
    """Discard drawn tiles until a claim window opens in which a seat of ``humans`` may claim;
    return that seat. Passes every other window by hand.
    """
    for _ in range(400):
        for c in clients:
            c.pump()
        game = actor.game
        assert game is not None
        if game.phase.value != "deal":
            for c in clients:
                if c.legal:
                    c.act(c.legal[0])
        elif game.deal.window is not None:
            waiting = set(game.to_act())
            if waiting & humans and len(waiting) >= 1:
                return min(waiting & humans)
            for seat in waiting:
                clients[seat].act({"type": "pass"})
        else:
            seat = game.deal.current
            clients[seat].act(discard_drawn(clients[seat]))
        await kit.settle(actor)
    raise AssertionError("no claim window opened")


async def others_play_until_seat_is_to_act(kit: Kit, actor: TableActor, clients: list[Client], seat: int) -> None:
    """The other seats pass claims and discard drawn tiles until ``seat`` has something to do."""
    for _ in range(100):
        game = actor.game
        assert game is not None
        if seat in game.to_act():
            return
        for s in game.to_act():
            clients[s].pump()
            clients[s].act({"type": "pass"} if game.deal.window is not None else discard_drawn(clients[s]))
        await kit.settle(actor)
    raise AssertionError(f"seat {seat} never had to act")


async def test_claim_window_closes_early_once_every_eligible_seat_answers() -> None:
    kit = Kit()
    actor, clients = await kit.table(timers=TIMERS, overrides=NO_PAUSE)
    await play_until_claim(kit, actor, clients, humans={0, 1, 2, 3})
    start, window = kit.clock.now(), actor.window
    assert actor.deadline == pytest.approx(start + 6)
    for seat in actor.game.to_act():
        clients[seat].act({"type": "pass"})
    await kit.settle(actor)
    assert kit.clock.now() == start  # no time passed: the window closed on the last answer
    assert actor.window != window
    assert actor.deadline_kind == "turn"


async def test_claim_window_deadline_passes_for_seats_that_did_not_answer() -> None:
    kit = Kit()
    actor, clients = await kit.table(timers=TIMERS, overrides=NO_PAUSE)
    await play_until_claim(kit, actor, clients, humans={0, 1, 2, 3})
    waiting, window, version = actor.game.to_act(), actor.window, actor.game.version
    await kit.advance(actor, 5.9)
    assert actor.window == window and actor.game.version == version  # still open
    await kit.advance(actor, 0.2)
    assert actor.window != window
    timed_out = [r for r in kit.journal.records if r.version > version]
    assert [(r.seat, r.action["type"], r.auto) for r in timed_out] == [(s, "pass", "timer") for s in waiting]
    for c in clients:
        c.pump()
        assert c.state["clock"]["window"] == actor.window


async def test_turn_deadline_discards_the_drawn_tile() -> None:
    kit = Kit()
    actor, clients = await kit.table(timers=TIMERS, overrides=NO_PAUSE)
    seat = actor.game.deal.current
    drawn = clients[seat].state["game"]["turn"].get("drawn")
    deadline = clients[seat].state["clock"]["deadline"]
    assert clients[seat].state["clock"]["kind"] == "turn"
    assert deadline == int((kit.clock.now() + 30) * 1000)  # an absolute time, in ms, that clients count down to
    await kit.advance(actor, 29.5)
    assert not kit.journal.records
    await kit.advance(actor, 0.5)
    first = kit.journal.records[0]
    expected = drawn if drawn is not None else discard_drawn(clients[seat])["tile"]
    assert (first.seat, first.action, first.auto) == (seat, {"type": "discard", "tile": expected}, "timer")


async def test_stale_window_token_is_refused_and_changes_nothing() -> None:
    kit = Kit()
    actor, clients = await kit.table(timers=TIMERS, overrides=NO_PAUSE)
    seat = actor.game.deal.current
    old_window = actor.window
    clients[seat].act(discard_drawn(clients[seat]))
    await kit.settle(actor)
    # Play on until the same seat has a turn again, then replay its old token.
    for _ in range(200):
        for c in clients:
            c.pump()
        if actor.game.deal.window is None and actor.game.deal.current == seat and actor.window != old_window:
            break
        for s in actor.game.to_act():
            action = {"type": "pass"} if actor.game.deal.window is not None else discard_drawn(clients[s])
            clients[s].act(action)
        await kit.settle(actor)
    version, digest = actor.game.version, actor.game.digest()
    request = clients[seat].act(discard_drawn(clients[seat]), window=old_window)
    await kit.settle(actor)
    clients[seat].pump()
    refusal = clients[seat].answers[request]
    assert refusal["t"] == "refused" and refusal["d"]["reason"] == "window/stale"
    assert (actor.game.version, actor.game.digest()) == (version, digest)


async def test_disconnected_seat_keeps_its_place_and_auto_acts_at_deadlines() -> None:
    kit = Kit()
    actor, clients = await kit.table(timers=TIMERS, overrides=NO_PAUSE)
    away = (actor.game.deal.current + 1) % 4
    clients[away].detach()
    await kit.settle(actor)
    seat_info = actor.state.public()["seats"][away]
    assert seat_info["away"] and not seat_info["substitute"] and seat_info["name"]
    for c in clients:
        c.pump()
    assert clients[actor.game.deal.current].state["table"]["seats"][away]["connected"] is False
    # Everyone else discards; when it is the away seat's turn the deadline plays for it.
    for _ in range(50):
        game = actor.game
        if game.deal.window is None and game.deal.current == away:
            break
        for s in game.to_act():
            clients[s].pump()
            clients[s].act({"type": "pass"} if game.deal.window is not None else discard_drawn(clients[s]))
        await kit.settle(actor)
    assert actor.game.deal.current == away and actor.game.deal.window is None
    before = len(kit.journal.records)
    await kit.advance(actor, 30)
    acted = kit.journal.records[before]
    assert (acted.seat, acted.action["type"], acted.auto) == (away, "discard", "timer")
    assert actor.seats[away].token_hash is not None and not actor.seats[away].substitute


async def test_bot_takes_over_after_the_grace_period_and_the_person_reclaims_the_seat() -> None:
    kit = Kit()
    actor, clients = await kit.table(timers=TIMERS, overrides=NO_PAUSE)
    away = actor.game.deal.current
    token = clients[away].token
    clients[away].detach()
    await kit.settle(actor)
    await kit.advance(actor, 29)  # the turn clock (30 s) has not run out yet …
    assert not kit.journal.records
    await kit.advance(actor, 1)  # … now it has: the server discards for the away seat
    assert kit.journal.records[-1].auto == "timer"
    # Let the others play along until the grace period (60 s) ends.
    await kit.advance(actor, 30)
    assert actor.seats[away].substitute
    for c in clients:
        c.pump()
    present = clients[(away + 1) % 4]
    assert present.state["table"]["seats"][away]["substitute"] is True
    # While substituted, the away seat's decisions are made by the bot after its short delay.
    await others_play_until_seat_is_to_act(kit, actor, clients, away)
    assert away in actor.game.to_act()
    before = len(kit.journal.records)
    await kit.advance(actor, 0.5)
    assert any(r.seat == away and r.auto == "stand-in" for r in kit.journal.records[before:])
    # The person returns with the same token: gets a snapshot of their own seat, and the bot stops.
    back = Client(actor, token)
    await back.attach()
    await kit.settle(actor)
    frames = back.pump()
    assert frames[0]["t"] == "snapshot" and back.state["seat"] == away
    assert "concealed" in back.state["game"]["seats"][away]
    assert not actor.seats[away].substitute and actor.seats[away].away_since is None
    await others_play_until_seat_is_to_act(kit, actor, clients, away)
    before = len(kit.journal.records)
    await kit.advance(actor, 1.0)  # a bot would have acted by now; the person has the seat
    assert all(r.seat != away for r in kit.journal.records[before:])


async def test_relaxed_table_has_no_turn_clock_but_claims_still_time_out() -> None:
    kit = Kit()
    actor, clients = await kit.table(timers={**TIMERS, "turn": None})
    assert actor.deadline_kind == "turn" and actor.deadline is None
    assert clients[0].state["clock"]["deadline"] is None
    await kit.advance(actor, 3600)
    assert not kit.journal.records  # nobody is hurried on a relaxed table
    await play_until_claim(kit, actor, clients, humans={0, 1, 2, 3})
    assert actor.deadline_kind == "claim" and actor.deadline is not None


async def test_bots_wait_their_delay_before_acting() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=1, timers=TIMERS)
    # Play until a bot must act, then check it waits bot_delay.
    for _ in range(50):
        if any(actor.seats[s].bot for s in actor.game.to_act()):
            break
        clients[0].pump()
        clients[0].act(discard_drawn(clients[0]) if actor.game.deal.window is None else {"type": "pass"})
        await kit.settle(actor)
    before = len(kit.journal.records)
    await kit.advance(actor, 0.4)
    assert len(kit.journal.records) == before
    await kit.advance(actor, 0.1)
    assert len(kit.journal.records) > before and kit.journal.records[before].auto == "bot"


async def test_a_person_who_returns_within_grace_gets_a_fresh_grace_period_next_time() -> None:
    kit = Kit()
    actor, clients = await kit.table(timers={**TIMERS, "turn": None})
    seat = 2
    clients[seat].detach()
    await kit.settle(actor)
    await kit.advance(actor, 40)
    back = Client(actor, clients[seat].token)
    await back.attach()
    back.detach()  # a flaky connection: back, then gone again at t = 40 s
    await kit.settle(actor)
    await kit.advance(actor, 30)  # 70 s after the first drop, 30 s after the second
    assert not actor.seats[seat].substitute
    await kit.advance(actor, 30)
    assert actor.seats[seat].substitute


async def test_a_lower_claim_waits_for_a_higher_one_until_it_answers_or_time_runs_out() -> None:
    # R6.3: a chow by the next seat must wait while a seat that could pung has not answered.
    for seed in range(1, 60):
        kit = Kit()
        actor, clients = await kit.table(timers=TIMERS, seed=seed)
        found = None
        for _ in range(300):
            game = actor.game
            if game.phase.value != "deal":
                break
            window = game.deal.window
            if window is not None:
                kinds = {s: {a.type.value for a in acts} for s, acts in window.options.items()}
                chow = next((s for s, k in kinds.items() if "chow" in k), None)
                pung = next((s for s, k in kinds.items() if s != chow and ({"pung", "kong"} & k)), None)
                if chow is not None and pung is not None and "win" not in set().union(*kinds.values()):
                    found = (chow, pung)
                    break
                for s in game.to_act():
                    clients[s].act({"type": "pass"})
            else:
                clients[game.deal.current].pump()
                clients[game.deal.current].act(discard_drawn(clients[game.deal.current]))
            await kit.settle(actor)
            for c in clients:
                c.pump()
        if found:
            break
    else:
        raise AssertionError("no window with a chow and a pung in 60 games")
    chow_seat, pung_seat = found
    for c in clients:
        c.pump()
    chow = next(a for a in clients[chow_seat].legal if a["type"] == "chow")
    window, version = actor.window, actor.game.version
    melds = len(actor.game.deal.melds[chow_seat])
    clients[chow_seat].act(chow)
    for s in actor.game.to_act():
        if s not in (chow_seat, pung_seat):
            clients[s].act({"type": "pass"})
    await kit.settle(actor)
    assert actor.window == window  # still open: the pung outranks the chow (R6.2)
    assert len(actor.game.deal.melds[chow_seat]) == melds  # the chow waits
    await kit.advance(actor, 6)  # the pung seat never answers: the deadline passes for it
    assert actor.window != window
    claim = next(e for r in kit.journal.records if r.version > version for e in r.events if e["type"] == "claim")
    assert (claim["seat"], claim["action"]["type"]) == (chow_seat, "chow")
    passed = [r for r in kit.journal.records if r.version > version and r.seat == pung_seat]
    assert [(r.action["type"], r.auto) for r in passed] == [("pass", "timer")]
