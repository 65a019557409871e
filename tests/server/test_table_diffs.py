"""ARCHITECTURE lesson 3: every seat's diffs, applied in order from its snapshot, rebuild exactly the
server's view for that seat after every update — checked over more than 100 bot-played hands.
"""

from __future__ import annotations

import json

import pytest
from tablekit import Kit

from game.policy import choose
from server.statediff import patch_in_place
from server.tables.actor import TableActor
from server.tables.connection import Connection
from server.tables.messages import Act, Attach

pytestmark = pytest.mark.asyncio


class Mirror(Connection):
    """A connection that applies each frame the moment the table queues it, and compares the
    result with the document the table would build for its seat at that very moment.
    """

    def __init__(self, actor: TableActor) -> None:
        super().__init__(None)
        self.actor = actor
        self.state: object = None
        self.updates = 0
        self.errors: list[str] = []  # an assert here would be caught by the actor's guard, so keep a list

    def send(self, frame: str) -> bool:
        message = json.loads(frame)
        if message["t"] == "snapshot":
            self.state = message["d"]["state"]
        elif message["t"] == "diff":
            if message["d"]["seq"] != self.seq:  # the table numbered it just before sending
                self.errors.append(f"seq {message['d']['seq']} sent as {self.seq}")
            self.state = patch_in_place(self.state, message["d"]["ops"])  # (both parsed from frames: its own)
            self.updates += 1
        if message["t"] in ("snapshot", "diff") and self.state != self.actor.state.document(self.seat):
            self.errors.append(f"seat {self.seat} diverged at version {self.actor.window}: {message}")
        return True


def _check_every_publish(actor: TableActor, mirrors: list[Mirror]) -> None:
    """Not only the seats sent a diff: after every publish every seat must be in step (a pass that
    leaves a claim window open is sent to the passing seat alone).
    """
    publish = actor._publish

    def publish_and_check(only: int | None = None) -> None:
        publish(only)
        for mirror in mirrors:
            if mirror.state != actor.state.document(mirror.seat):
                mirror.errors.append(f"seat {mirror.seat} left out of step at version {actor.window}")

    actor._publish = publish_and_check  # type: ignore[method-assign]


async def test_diffs_rebuild_every_seats_view_over_100_bot_played_hands() -> None:
    hands = updates = 0
    seed = 0
    while hands < 100:
        seed += 1
        kit = Kit()
        actor, clients = await kit.table(
            seed=seed, timers={"turn": None, "ready": None}, overrides={"game_length": "east"}
        )
        mirrors = []
        for seat, client in enumerate(clients):
            mirror = Mirror(actor)
            await actor.ask(Attach(mirror, client.token))
            assert mirror.seat == seat
            mirrors.append(mirror)
        spectator = Mirror(actor)
        await actor.ask(Attach(spectator, None))
        mirrors.append(spectator)
        _check_every_publish(actor, mirrors)
        game = actor.game
        assert game is not None
        request = 0
        while actor.status == "playing":
            for seat in game.to_act():
                request += 1
                actor.post(Act(mirrors[seat], request, choose(game, seat).to_json(), actor.window))
            await kit.settle(actor)
        hands += len(game.results)
        updates += sum(m.updates for m in mirrors)
        for seat, mirror in enumerate(mirrors):
            assert mirror.errors == []
            assert mirror.state == actor.state.document(None if seat == 4 else seat)
    assert hands >= 100 and updates > 100 * 50


async def test_an_intent_is_acknowledged_inside_the_diff_it_caused() -> None:
    """docs/protocol.md: the mover gets one frame, its diff with the ack in it; a refusal comes alone."""
    kit = Kit()
    actor, clients = await kit.table(humans=4, bots=False)
    mover = next(c for c in clients if any(a["type"] == "discard" for a in c.legal))
    discard = next(a for a in mover.legal if a["type"] == "discard")
    request = mover.act(discard)
    await kit.settle(actor)
    frames = mover.pump()
    assert [f["t"] for f in frames] == ["diff"]
    assert frames[0]["d"]["ack"] == request
    assert mover.answers[request]["t"] == "ack"
    others = [f for c in clients if c is not mover for f in c.pump()]
    assert others and all("ack" not in f["d"] for f in others)  # nobody else's frame carries it
    stale = mover.act(discard, window=-1)
    await kit.settle(actor)
    frames = mover.pump()
    assert [f["t"] for f in frames] == ["refused"] and frames[0]["d"]["id"] == stale
