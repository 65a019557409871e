"""The engine as a PettingZoo AEC environment, for reinforcement learning (docs/rl.md).

Needs the optional ``rl`` extra (``pip install 'sparrow[rl]'``); ``import game`` never imports this
module. Agents are ``seat_0`` … ``seat_3``. One episode is one deal by default (``hands=N`` for
more). Each seat's observation is built from its own view alone (:class:`game.seatview.SeatView`,
read from :func:`game.view.view`), so it holds nothing that seat could not see at the table.

>>> e = env()
>>> e.reset(seed=3)
>>> e.agent_selection, e.observation_space("seat_0")["observation"].shape, int(e.action_space("seat_0").n)
('seat_0', (465,), 118)
>>> obs, reward, terminated, truncated, info = e.last()
>>> [str(ACTIONS[i]) for i in obs["action_mask"].nonzero()[0]][:3]
['discard 1b', 'discard 2b', 'discard 3b']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from game.actions import Action, ActionType
from game.game import Game, GamePhase
from game.hand import shanten
from game.rules import Rules
from game.seatview import SeatView, SeatViewCache
from game.tiles import NUM_PLAYING_KINDS, PLAYING, WINDS, Tile
from game.view import view

__all__ = [
    "ACTIONS",
    "LAYOUT",
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "action_index",
    "encode",
    "env",
    "raw_env",
]

_K = NUM_PLAYING_KINDS


def _chow_pairs() -> list[tuple[Tile, Tile]]:
    """The two tiles from the hand of every chow: neighbours (4b 5b) or one apart (4b 6b), per suit."""
    pairs = []
    for suit in range(3):
        for rank in range(9):
            for gap in (1, 2):
                if rank + gap < 9:
                    pairs.append((PLAYING[suit * 9 + rank], PLAYING[suit * 9 + rank + gap]))
    return pairs


ACTIONS: tuple[Action, ...] = (
    *(Action(ActionType.DISCARD, tile=t) for t in PLAYING),  # 0–33: discard by tile kind
    *(Action(ActionType.KONG, tile=t) for t in PLAYING),  # 34–67: concealed or added kong in one's turn
    *(Action(ActionType.CHOW, tiles=pair) for pair in _chow_pairs()),  # 68–112: chow, by the two tiles held
    Action(ActionType.PUNG),  # 113: pung the discard
    Action(ActionType.KONG),  # 114: kong the discard
    Action(ActionType.WIN),  # 115
    Action(ActionType.PASS),  # 116
    Action(ActionType.READY),  # 117: between deals; the env answers it itself, so it is never in a mask
)
"""Every action the engine can offer, in a fixed order: index ``i`` of the action space is ``ACTIONS[i]``."""

NUM_ACTIONS = len(ACTIONS)
_INDEX: dict[Action, int] = {a: i for i, a in enumerate(ACTIONS)}
_READY = _INDEX[Action(ActionType.READY)]


def action_index(action: Action) -> int:
    """The index of ``action`` in the action space (the inverse of ``ACTIONS[i]``).

    >>> action_index(Action.parse("chow 4b 6b")), ACTIONS[115]
    (75, Action.parse('win'))

    :raises KeyError: if the engine could never offer ``action`` (e.g. a kong claim naming its tile).
    """
    return _INDEX[action]


LAYOUT: tuple[tuple[str, int, int], ...] = (
    # (name, length, largest value). Per-seat parts hold four blocks in the order: this seat, the
    # next seat (on its right, who plays after it), the seat opposite, the seat on its left.
    ("hand", _K, 4),  # this seat's concealed tiles, as counts per kind
    ("drawn", _K, 1),  # the tile this seat just drew (its turn only)
    ("melds", 4 * _K, 4),  # per seat: the tiles of its declared sets
    ("discards", 4 * _K, 4),  # per seat: every tile it has discarded, claimed or not
    ("unseen", _K, 4),  # copies of each kind this seat has not seen
    ("bonus", 4 * 8, 1),  # per seat: which flowers (1f–4f) and seasons (1s–4s) it has laid out
    ("concealed_counts", 4, 14),  # per seat: how many concealed tiles it holds
    ("seat_wind", 4, 1),  # this seat's wind: E S W N
    ("round_wind", 4, 1),  # the prevailing wind: E S W N
    ("dealer", 4, 1),  # which seat is East this deal
    ("wall", 2, 144),  # tiles left in the live wall, then in the dead wall
    ("phase", 3, 1),  # its own turn / a claim window on a discard / a window on an added kong
    ("offered", _K, 1),  # the tile a window is about
    ("offered_by", 4, 1),  # the seat that discarded it (or is adding it to a kong)
)
"""The observation vector's parts in order: ``(name, length, largest value)``; the smallest value is 0."""

_STARTS = np.cumsum([0] + [length for _, length, _ in LAYOUT]).tolist()
_OFFSETS: dict[str, int] = {name: int(start) for (name, _, _), start in zip(LAYOUT, _STARTS, strict=False)}
OBSERVATION_SIZE = int(_STARTS[-1])
_HIGH = np.concatenate([np.full(length, high, dtype=np.float32) for _, length, high in LAYOUT])
_PHASES = {"turn": 0, "claim": 1, "rob": 2}

# Every value of the observation fits a byte (the largest is the live wall's 144 at most), so it is
# written into a bytearray, which Python indexes quickly, and handed to numpy once.
assert max(high for _, _, high in LAYOUT) <= 255
_HAND = _OFFSETS["hand"]
_DRAWN = _OFFSETS["drawn"]
_MELDS = _OFFSETS["melds"]
_DISCARDS = _OFFSETS["discards"]
_UNSEEN = _OFFSETS["unseen"]
_BONUS = _OFFSETS["bonus"]
_COUNTS = _OFFSETS["concealed_counts"]
_SEAT_WIND = _OFFSETS["seat_wind"]
_ROUND_WIND = _OFFSETS["round_wind"]
_DEALER = _OFFSETS["dealer"]
_WALL = _OFFSETS["wall"]
_PHASE = _OFFSETS["phase"]
_OFFERED = _OFFSETS["offered"]
_OFFERED_BY = _OFFSETS["offered_by"]
_AROUND = tuple(tuple((seat - me) % 4 for seat in range(4)) for me in range(4))  # [me][seat] → its block
_WIND = {wind: i for i, wind in enumerate(WINDS)}
_UNSEEN_OF_VISIBLE = bytes(max(0, 4 - v) for v in range(256))  # copies seen → copies not seen


def encode(seen: SeatView) -> NDArray[np.float32]:
    """The observation vector (:data:`LAYOUT`) of one seat's view: nothing but what ``seen`` holds."""
    me = seen.seat
    around = _AROUND[me]
    out = bytearray(OBSERVATION_SIZE)
    out[_HAND : _HAND + _K] = seen.hand
    if seen.drawn is not None:
        out[_DRAWN + seen.drawn] = 1
    for seat, melds in enumerate(seen.melds):
        if melds:
            base = _MELDS + around[seat] * _K
            for meld in melds:
                for t in meld.tiles:
                    out[base + t] += 1
    if seen.discards:
        bases = [_DISCARDS + block * _K for block in around]
        for d in seen.discards:
            out[bases[d.seat] + d.tile] += 1
    out[_UNSEEN : _UNSEEN + _K] = bytes(seen.visible).translate(_UNSEEN_OF_VISIBLE)
    for seat, bonus in enumerate(seen.bonus):
        if bonus:
            base = _BONUS + around[seat] * 8 - _K  # flowers and seasons are kinds 34–41
            for t in bonus:
                out[base + t] = 1
    for seat, count in enumerate(seen.tile_counts):
        out[_COUNTS + around[seat]] = count
    out[_SEAT_WIND + _WIND[seen.winds[me]]] = 1
    out[_ROUND_WIND + _WIND[seen.round_wind]] = 1
    out[_DEALER + around[seen.dealer]] = 1
    out[_WALL] = seen.wall_live
    out[_WALL + 1] = seen.wall_dead
    if seen.turn is not None:
        out[_PHASE + _PHASES[seen.turn]] = 1
    if seen.offered is not None:
        out[_OFFERED + seen.offered] = 1
    if seen.offered_by is not None:
        out[_OFFERED_BY + around[seen.offered_by]] = 1
    return np.frombuffer(out, dtype=np.uint8).astype(np.float32)


_DISCARD, _KONG, _CHOW = ActionType.DISCARD, ActionType.KONG, ActionType.CHOW
_CHOW_INDEX = {a.tiles: i for i, a in enumerate(ACTIONS) if a.type is ActionType.CHOW}
_KONG_FIRST = _INDEX[Action(ActionType.KONG, tile=PLAYING[0])]


def _mask(legal: tuple[Action, ...]) -> NDArray[np.int8]:
    """The action mask of these legal actions (:data:`ACTIONS` order), ``ready`` left out."""
    mask = bytearray(NUM_ACTIONS)
    for action in legal:  # the index from the action's fields: quicker than hashing the action
        kind = action.type
        if kind is _DISCARD:
            assert action.tile is not None
            mask[action.tile] = 1
        elif kind is _KONG and action.tile is not None:
            mask[_KONG_FIRST + action.tile] = 1
        elif kind is _CHOW:
            assert action.tiles is not None
            mask[_CHOW_INDEX[action.tiles]] = 1
        else:
            mask[_INDEX[action]] = 1
    mask[_READY] = 0
    return np.frombuffer(mask, dtype=np.int8)


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's name for the unwrapped environment
    """Four seats playing deals of Chinese Classical Mahjong, one action at a time (PettingZoo AEC).

    ``rules``: the table's house rules (default :class:`Rules`). ``hands``: deals per episode (the
    episode also ends when the game does). ``shaped``: add ``shaping`` points to a seat's reward
    for every step its hand comes nearer to complete (by shanten), and take them away for every
    step it goes back. ``render_mode``: ``"ansi"`` (``render()`` returns the table as text) or
    ``"human"`` (printed after every step).

    :raises ValueError: on a ``hands`` below 1, a negative ``shaping`` or an unknown render mode.
    """

    metadata: ClassVar[dict[str, object]] = {
        "name": "sparrow_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | None = None,
        hands: int = 1,
        shaped: bool = False,
        shaping: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
            raise ValueError(f"hands is a whole number of deals, at least 1, not {hands!r}")
        if not shaping >= 0:
            raise ValueError(f"shaping is points per step of shanten, at least 0, not {shaping!r}")
        if render_mode is not None and render_mode not in ("ansi", "human"):
            raise ValueError(f"render_mode is 'ansi', 'human' or None, not {render_mode!r}")
        self.rules = rules or Rules()
        self.hands = hands
        self.shaped = shaped
        self.shaping = float(shaping)
        self.render_mode = render_mode
        self.possible_agents: list[str] = [f"seat_{i}" for i in range(4)]
        self.agent_name_mapping: dict[str, int] = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces: dict[str, spaces.Dict] = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, _HIGH, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Discrete] = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._seeds = np.random.default_rng(0)  # game seeds for resets without one, as if seed 0 had been given
        self.game = Game(self.rules, 0)
        self._views = SeatViewCache()
        self.hands_played = 0
        self._shanten = [0, 0, 0, 0]

    def observation_space(self, agent: str) -> spaces.Dict:
        """The agent's observation space: ``observation`` (see :data:`LAYOUT`) and ``action_mask``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The agent's action space: an index into :data:`ACTIONS`."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: Mapping[str, object] | None = None) -> None:
        """Start an episode. ``reset(seed=s)`` plays the deals of ``Game(rules, seed=s)``; a reset
        without a seed takes the next seed from a sequence that the last given seed started.
        """
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._seeds.integers(2**62))
        self.game = Game(self.rules, game_seed)
        self._views = SeatViewCache()  # one per game
        self.hands_played = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, object]] = {a: {} for a in self.agents}
        self._shanten = self._shantens()
        assert self.game.phase is GamePhase.DEAL  # eight bonus tiles cannot empty a dead wall of 14
        self.agent_selection = self.possible_agents[self.game.to_act()[0]]

    def observe(self, agent: str) -> dict[str, NDArray[np.float32] | NDArray[np.int8]]:
        """``agent``'s observation: its view encoded, and a mask of the actions it may take now."""
        seen = SeatView.of(self.game, self.agent_name_mapping[agent], self._views)
        if self.terminations.get(agent) or self.truncations.get(agent):
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        else:
            mask = _mask(seen.legal)
        return {"observation": encode(seen), "action_mask": mask}

    def step(self, action: int | np.integer | None) -> None:
        """Apply the selected agent's action (an index into :data:`ACTIONS`).

        :raises game.errors.IllegalActionError: if the action is not in the agent's mask; nothing changes.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is still playing: give it an action index, not None")
        seat = self.agent_name_mapping[agent]
        self.game.apply(seat, ACTIONS[int(action)])
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.shaped:
            now = self._shantens()
            for s, a in enumerate(self.possible_agents):
                self.rewards[a] += self.shaping * (self._shanten[s] - now[s])
            self._shanten = now
        self._after_deals()
        if not self.terminations[agent]:
            self.agent_selection = self.possible_agents[self.game.to_act()[0]]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def _after_deals(self) -> None:
        """Pay out every deal that has just ended; then end the episode or start the next deal."""
        while self.game.phase is not GamePhase.DEAL:
            assert self.game.reckoning is not None
            self.hands_played += 1
            for s, change in enumerate(self.game.reckoning.settlement.changes):
                self.rewards[self.possible_agents[s]] += change
            if self.game.phase is GamePhase.OVER or self.hands_played >= self.hands:
                self.terminations = {a: True for a in self.agents}
                return
            for s in range(4):
                self.game.apply(s, ACTIONS[_READY])
            self._shanten = self._shantens()

    def _shantens(self) -> list[int]:
        hands = self.game.deal.hands
        return [shanten(hands[s][:_K]) for s in range(4)] if self.shaped else [0, 0, 0, 0]

    def render(self) -> str | None:
        """The table as everyone sees it (no concealed tiles, no wall), as text; None without a render mode."""
        if self.render_mode is None:
            return None
        doc = view(self.game, None)
        wall = doc["wall"]
        assert isinstance(wall, dict)
        lines = [f"deal {doc['deal']}, wall {wall['live']} live + {wall['dead']} dead, turn {doc.get('turn')}"]
        seats = doc["seats"]
        assert isinstance(seats, list)
        for s in seats:
            melds = " ".join(str(m["tiles"]) for m in s["melds"])
            lines.append(f"seat_{s['seat']} {s['wind']}: {s['tiles']} concealed, sets [{melds}], bonus {s['bonus']}")
        discards = doc["discards"]
        assert isinstance(discards, list)
        lines.append("discards " + " ".join(str(d["tile"]) for d in discards))
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""


def env(
    rules: Rules | None = None,
    hands: int = 1,
    shaped: bool = False,
    shaping: float = 1.0,
    render_mode: str | None = None,
) -> AECEnv:
    """:class:`raw_env` with PettingZoo's usual checks: every action inside the action space, and
    ``reset`` before anything else.
    """
    raw = raw_env(rules=rules, hands=hands, shaped=shaped, shaping=shaping, render_mode=render_mode)
    return _OrderEnforcing(wrappers.AssertOutOfBoundsWrapper(raw))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order checks, with :meth:`last` asked of the environment itself once it has been reset:
    the same answer, without each wrapper forwarding the five attributes it reads (a tenth of a step)."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def last(self, observe: bool = True) -> tuple[object, float, bool, bool, dict[str, object]]:
        if not self._has_reset:
            return super().last(observe)  # type: ignore[no-any-return]  # refuses, as PettingZoo's wrapper does
        return self._raw.last(observe)  # type: ignore[no-any-return]
