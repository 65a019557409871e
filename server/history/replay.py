"""Step-by-step replays of one hand, rendered per viewer through the engine's `view()` (lesson 13):
after a game, every hand may be shown face up, or as one seat saw it; during a game, only what a
spectator sees. Each step carries the acting seat's shanten and waits when the viewer may know them.

Reaching a late hand means replaying every action before it; with a store of hand starts the game as
it stood when a hand began is kept, so that the next replay of that hand, or of a later one, starts
there instead of at the first deal.
"""

from __future__ import annotations

import pickle
from collections.abc import Hashable
from typing import Any, TypeVar

from cachetools import LRUCache

from game.game import Game, GamePhase
from game.hand import shanten
from game.shapes import completing_tiles
from game.view import view
from server.history.logfile import GameLog

__all__ = ["STARTS_BYTES", "HandNotFound", "hand_steps", "keep", "store"]

# Hand starts kept per database (server process): a game pickled at the start of a late hand is 30–40 kB.
STARTS_BYTES = 8 * 2**20

K = TypeVar("K", bound=Hashable)


def store(limit: int) -> LRUCache[Any, bytes]:
    """Byte strings of at most ``limit`` bytes in all; the least recently asked for go first."""
    return LRUCache(maxsize=limit, getsizeof=len)


def keep(kept: LRUCache[K, bytes], key: K, value: bytes) -> None:
    """Keep ``value`` under ``key`` in ``kept`` (a `store`), unless it is larger than the whole store."""
    if len(value) <= kept.maxsize:
        kept[key] = value


class HandNotFound(LookupError):
    """The game has no such hand (yet)."""


def hand_steps(
    log: GameLog,
    number: int,
    *,
    seat: int | None,
    reveal: bool,
    starts: LRUCache[tuple[str, int], bytes] | None = None,
) -> tuple[dict[str, Any], bool]:
    """Every state of hand ``number`` (0-based) as ``seat`` saw it, or face up when ``reveal``; and
    whether the hand has ended (False: the log stops in the middle of it).

    ``reveal`` must be False for a game that is still running: then ``seat`` is ignored and the
    steps hold only public information.

    ``starts`` keeps the game as it stood at the start of the hand, by the log's id and ``number``
    (a stored game's actions are only ever added to, so that state never changes), and the replay
    starts from the latest start kept for the game at or before this hand.

    :raises HandNotFound: if the log does not reach that hand.
    """
    game = _start(log, number, starts)
    viewer = seat if reveal else None
    steps = [_step(game, None, None, viewer, reveal)]
    for step in log.actions[game.version :]:
        answering = game.phase is GamePhase.DEAL and game.deal.window is not None
        game.apply(step.seat, step.action)
        shown = _step(game, step.seat, step.action, viewer, reveal)
        if not reveal:
            # While the game runs, who answered an open claim window, and how, stays secret (R12.2):
            # a step is kept only when the public view changed, and a pass is not attributed.
            if shown["view"] == steps[-1]["view"]:
                continue
            if answering and step.action.get("type") == "pass":
                shown["actor"], shown["action"] = None, None
        steps.append(shown)
        if game.phase is not GamePhase.DEAL:
            break
    replay = {"hand": number, "seat": viewer, "face_up": reveal and seat is None, "steps": steps}
    return replay, game.phase is not GamePhase.DEAL


def _start(log: GameLog, number: int, starts: LRUCache[tuple[str, int], bytes] | None) -> Game:
    """The game as it stood when hand ``number`` was dealt (its version: the actions that led there)."""
    game_id = None if starts is None else log.id
    game = None
    if starts is not None and game_id is not None:
        for earlier in range(number, -1, -1):
            kept = starts.get((game_id, earlier))
            if kept is not None:
                game = pickle.loads(kept)  # only ever what this function pickled, in this process
                break
    if game is None:
        game = Game(log.rules, log.seed)
    reached = game.version
    while game.deal_number < number or (game.deal_number == number and game.phase is not GamePhase.DEAL):
        if game.phase is GamePhase.OVER:
            raise HandNotFound(f"the game ended after {len(game.results)} hands")
        if game.version == len(log.actions):
            raise HandNotFound(f"hand {number + 1} has not been dealt yet")
        step = log.actions[game.version]
        game.apply(step.seat, step.action)
    if starts is not None and game_id is not None and game.version > reached:
        keep(starts, (game_id, number), pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL))
    return game


def _step(
    game: Game, actor: int | None, action: dict[str, Any] | None, seat: int | None, reveal: bool
) -> dict[str, Any]:
    shown = view(game, seat)
    if reveal and seat is None:  # after the game: every hand face up, each through its own seat's view
        seats: list[dict[str, Any]] = shown["seats"]  # type: ignore[assignment]
        for s in range(4):
            own: list[dict[str, Any]] = view(game, s)["seats"]  # type: ignore[assignment]
            seats[s]["concealed"] = own[s].get("concealed", "")
    shown.pop("legal_actions", None)
    out: dict[str, Any] = {"actor": actor, "action": action, "view": shown}
    if actor is not None and reveal and (seat is None or seat == actor) and game.phase is GamePhase.DEAL:
        out["analysis"] = _analysis(game, actor)
    return out


def _analysis(game: Game, seat: int) -> dict[str, Any]:
    hand = game.deal.hands[seat]
    size = sum(hand[:34])
    result: dict[str, Any] = {"seat": seat, "shanten": shanten(hand[:34] + [0] * 8)}
    if size % 3 == 1:
        deal = game.deal
        wins = completing_tiles(hand[:34], deal.melds[seat], deal.held(seat), deal.rules)
        result["waits"] = [t.code for t in wins]
    return result
