"""Errors a caller can cause: every refusal carries a stable reason code and a message saying why."""

from __future__ import annotations

from enum import Enum

__all__ = ["Reason", "RulesError", "InvalidActionError", "IllegalActionError"]


class Reason(Enum):
    """Why an action was refused; the value is a stable code for clients and logs."""

    MALFORMED = "action/malformed"
    UNKNOWN_TYPE = "action/unknown_type"
    BAD_TILE = "action/bad_tile"
    BAD_SEAT = "action/bad_seat"
    GAME_OVER = "action/game_over"
    NOT_YOUR_TURN = "action/not_your_turn"
    WINDOW_CLOSED = "action/window_closed"
    NOT_OFFERED = "action/not_offered"
    TILE_NOT_HELD = "action/tile_not_held"
    NOT_A_WIN = "action/not_a_win"
    SACRED_DISCARD = "action/sacred_discard"
    CHOW_NOT_NEXT = "action/chow_not_next"
    BAD_CHOW = "action/bad_chow"
    PUNG_NEEDS_TWO = "action/pung_needs_two"
    KONG_NEEDS_THREE = "action/kong_needs_three"
    KONG_FROM_EXPOSED_PUNG = "action/kong_from_exposed_pung"
    NOT_JUST_DRAWN = "action/added_kong_not_just_drawn"
    DEAD_WALL_EMPTY = "action/dead_wall_empty"
    LAST_DISCARD_WIN_ONLY = "action/last_discard_win_only"
    MUST_DISCARD = "action/must_discard"
    ALREADY_READY = "action/already_ready"
    NOT_ALLOWED = "action/not_allowed_now"


class RulesError(ValueError):
    """An action or input the rules do not accept. ``reason`` is machine-readable."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason

    @property
    def code(self) -> str:
        """The stable reason code, e.g. ``"action/not_your_turn"``."""
        return self.reason.value


class InvalidActionError(RulesError):
    """The action is malformed: not an action at all, or naming no real tile."""


class IllegalActionError(RulesError):
    """The action is well formed but not allowed now (wrong seat, tile not held, window closed …)."""
