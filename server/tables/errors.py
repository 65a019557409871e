"""Refusals a table gives a user: a stable reason code and a human-readable message."""

from __future__ import annotations

__all__ = ["TableError"]


class TableError(Exception):
    """A request the table refuses; nothing changed. ``reason`` is a stable code like ``"seat/taken"``."""

    def __init__(self, reason: str, message: str, *, status: int = 400, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.status = status  # the HTTP status when the refusal answers an HTTP request
        self.retry_after = retry_after  # seconds until trying again may succeed (HTTP's Retry-After)

    def to_json(self) -> dict[str, object]:
        """The refusal as sent to a client."""
        return {"reason": self.reason, "message": self.message}
