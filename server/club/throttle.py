"""Login throttling: after too many failed logins for one name, or from one address, within a
window, further tries are refused for a while (a temporary lockout, which the club logs).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

__all__ = ["Throttle"]


@dataclass
class _Count:
    failures: list[float] = field(default_factory=list)
    locked_until: float = 0.0


class Throttle:
    """Failed attempts per key (a name or an address). ``limit`` failures within ``window`` seconds
    lock the key for ``lockout`` seconds. At most ``keys`` keys are remembered (oldest forgotten)."""

    def __init__(self, limit: int, window: float, lockout: float, keys: int = 10_000) -> None:
        self.limit, self.window, self.lockout, self.keys = limit, window, lockout, keys
        self._counts: OrderedDict[str, _Count] = OrderedDict()

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        count = self._counts.get(key)
        return 0.0 if count is None else max(0.0, count.locked_until - now)

    def failed(self, key: str, now: float) -> bool:
        """Count a failure for ``key``; True if it has just been locked out."""
        count = self._counts.pop(key, None) or _Count()
        self._counts[key] = count  # most recent last
        count.failures = [t for t in count.failures if now - t < self.window] + [now]
        while len(self._counts) > self.keys:
            self._counts.popitem(last=False)
        if len(count.failures) >= self.limit:
            count.failures.clear()
            count.locked_until = now + self.lockout
            return True
        return False

    def succeeded(self, key: str) -> None:
        """Forget ``key``'s failures."""
        self._counts.pop(key, None)
