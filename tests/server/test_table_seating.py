"""The seating draw at a table (R2.6): when a game starts the players move to the seats the wind tiles
and the dice give them, with their sockets and the owner's rights, and everyone reads the outcome in
the chat; a table whose owner keeps the order of arrival starts as its players sat down; Play again
draws anew (or keeps the seats); a restart finds the drawn seats as they were.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dbkit import BACKENDS, journal_on
from livekit import LiveServer
from tablekit import Client, Kit

from game.seating import draw_seats
from server.lobby import Lobby
from server.tables.actor import TableActor
from server.tables.messages import Join, Start

pytestmark = pytest.mark.asyncio

NAMES = ["Ann", "Bob", "Cy", "Di"]
WIND_NAMES = {"E": "East", "S": "South", "W": "West", "N": "North"}


def _shuffling_seed() -> int:
    """A seed whose draw moves the first to arrive (Ann, the owner) away from seat 0."""
    return next(seed for seed in range(100) if draw_seats(seed).order[0] != 0 and draw_seats(seed).order[1] != 1)


async def _four_people(kit: Kit, *, seed: int, draw: bool) -> tuple[TableActor, list[Client]]:
    """A table with four people seated in the order Ann, Bob, Cy, Di, each attached; not started."""
    request = {
        "name": "Draw",
        "player": "Ann",
        "timers": {"bot_delay": 0, "turn": None},
        "overrides": {"seat_draw": draw, "game_length": "east"},
    }
    made = await kit.lobby.create(request, seed=seed)
    actor = kit.lobby.get(str(made["table"]))
    tokens = [str(made["token"])]
    for name in NAMES[1:]:
        joined = await actor.ask(Join(name))
        assert isinstance(joined, dict)
        tokens.append(str(joined["token"]))
    clients = [Client(actor, t) for t in tokens]
    for c in clients:
        await c.attach()
    return actor, clients


def _winds(actor: TableActor, client: Client) -> dict[str, str]:
    """Each person's wind for the first deal, as ``client``'s page shows it."""
    client.pump()
    game: Any = client.state["game"]
    return {actor.seats[s].name: view["wind"] for s, view in enumerate(game["seats"])}  # type: ignore[union-attr]


async def test_r2_6_players_move_to_their_drawn_seats_and_read_who_sits_where() -> None:
    kit = Kit()
    seed = _shuffling_seed()
    actor, clients = await _four_people(kit, seed=seed, draw=True)
    assert await actor.ask(Start(clients[0].token)) == {"started": True}
    await kit.settle(actor)
    draw = draw_seats(seed)
    assert [s.name if s else None for s in actor.seats] == [NAMES[p] for p in draw.order]
    for arrived, client in enumerate(clients):
        client.pump()
        seat = draw.order.index(arrived)
        assert client.state["seat"] == seat  # each socket plays its person's new seat
        assert client.state["table"]["seats"][seat]["name"] == NAMES[arrived]
    assert clients[0].state["table"]["owner"] == draw.order.index(0)  # Ann still owns the table
    winds = _winds(actor, clients[1])
    east = next(name for name, wind in winds.items() if wind == "E")
    assert east == NAMES[draw.first_dealer]
    line = clients[2].state["chat"][-1]
    assert line["seat"] is None and line["name"] == "Table"
    for name, wind in winds.items():  # the line tells each person's wind, as the seats show it
        assert f"{WIND_NAMES[wind]} {name}" in line["text"]
    assert f"{east} deals first" in line["text"]
    dealer = clients[draw.first_dealer]
    assert dealer.legal, "the first dealer's socket is asked to play"
    assert all(not c.legal for c in clients if c is not dealer)
    answer = dealer.act(dealer.legal[0])
    await kit.settle(actor)
    dealer.pump()
    assert dealer.answers[answer]["t"] == "ack"


async def test_r2_6_a_table_that_keeps_the_order_of_arrival_starts_as_it_sat_down() -> None:
    kit = Kit()
    actor, clients = await _four_people(kit, seed=_shuffling_seed(), draw=False)
    await actor.ask(Start(clients[0].token))
    await kit.settle(actor)
    assert [s.name if s else None for s in actor.seats] == NAMES
    assert _winds(actor, clients[0]) == {"Ann": "E", "Bob": "S", "Cy": "W", "Di": "N"}
    assert clients[0].state["chat"] == []
    for c in clients:
        c.pump()
    assert [c.state["seat"] for c in clients] == [0, 1, 2, 3]


async def _rematch_seats(draw: bool, keep_seats: bool = False) -> tuple[list[str], list[str], int]:
    """Ann and three bots play an East round to its end (Ann's clock runs out every turn); Ann plays
    again (``keep_seats``: asking to keep them) and starts: the new table's seats before and after its
    start, and its seed."""
    kit = Kit()
    seed = _shuffling_seed()
    overrides = {"game_length": "east", "seat_draw": draw}
    actor, (ann,) = await kit.table(humans=1, seed=seed, overrides=overrides, timers={"turn": 3})
    while actor.status == "playing":
        await kit.advance(actor, 3)
        ann.pump()
    made = await kit.lobby.rematch(actor.id, ann.token, None, keep_seats=keep_seats)
    new = kit.lobby.get(str(made["table"]))
    assert new.settings.ruleset.rules.seat_draw == (draw and not keep_seats)
    before = [s.name for s in new.seats if s is not None]
    assert await new.ask(Start(ann.token)) == {"started": True}  # Ann still owns the table, wherever she sits
    return before, [s.name for s in new.seats if s is not None], new.seed


async def test_r2_6_play_again_draws_the_seats_again() -> None:
    before, after, seed = await _rematch_seats(draw=True)
    assert sorted(before) == ["Ann", "Bot 1", "Bot 2", "Bot 3"]
    assert after == [before[p] for p in draw_seats(seed).order]


async def test_r2_6_play_again_keeps_the_seats_when_the_owner_keeps_them() -> None:
    before, after, _seed = await _rematch_seats(draw=False)
    assert after == before == ["Ann", "Bot 1", "Bot 2", "Bot 3"]


async def test_r2_6_play_again_keeps_the_seats_when_the_owner_asks_to() -> None:
    before, after, _seed = await _rematch_seats(draw=True, keep_seats=True)
    assert after == before and sorted(before) == ["Ann", "Bot 1", "Bot 2", "Bot 3"]


async def test_r2_6_keep_seats_must_be_true_or_false() -> None:
    async with LiveServer.running() as live:
        owner = await live.create(overrides={"seat_draw": True})
        path = f"/api/tables/{owner['table']}/rematch"
        bad = await live.post(path, {"token": owner["token"], "keep_seats": "yes"})
        assert bad.status_code == 400 and bad.json()["error"]["reason"] == "table/bad_keep_seats"
        early = await live.post(path, {"token": owner["token"], "keep_seats": True})
        assert early.status_code == 409 and early.json()["error"]["reason"] == "table/not_over"
        assert live.table(owner["table"]).rematch is None  # neither changed anything


@pytest.mark.parametrize("backend", BACKENDS)
async def test_r2_6_a_restart_finds_the_drawn_seats_and_the_line_that_told_them(backend: str, tmp_path: Path) -> None:
    async with journal_on(backend, tmp_path) as (journal, _engine):
        kit = Kit(journal)
        seed = _shuffling_seed()
        actor, clients = await _four_people(kit, seed=seed, draw=True)
        await actor.ask(Start(clients[0].token))
        await kit.settle(actor)
        seats = [s.name if s else None for s in actor.seats]
        owner, told = actor.owner, list(actor.chat)
        await kit.lobby.close()
        again = Lobby(clock=kit.clock, journal=journal)
        assert await again.restore() == 1
        restored = again.get(actor.id)
        assert [s.name if s else None for s in restored.seats] == seats == [NAMES[p] for p in draw_seats(seed).order]
        assert restored.owner == owner
        assert list(restored.chat) == told
        ann = Client(restored, clients[0].token)
        await ann.attach()
        await kit.settle(restored)
        ann.pump()
        assert ann.state["seat"] == draw_seats(seed).order.index(0)
        await again.close()
