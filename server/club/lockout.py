"""`Lockout`: failed logins, counted in every process of the club (`server.rates`), lock out

- a name from one address after `Limits.login_failures` failures (the person who mistyped, or a
  stranger guessing): others logging in under that name, from elsewhere, are not locked out;
- a name from everywhere after `Limits.name_failures`, a slower rate, which takes many addresses;
- an address after `Limits.address_failures` failures for any names.

An admin unlocks a member's name (`unlock`): it forgets every failure for the name, from every
address, by moving the name to a new count (its unlock number is part of the keys).
"""

from __future__ import annotations

from limits.errors import StorageError

from server.rates.counter import Rates
from server.tables.errors import TableError

__all__ = ["Lockout"]

UNLOCKS_TTL = 30 * 24 * 3600  # an unlock number outlives every count it started


class Lockout:
    """Failed logins in ``rates`` (a `Rates`)."""

    def __init__(self, rates: Rates) -> None:
        self.rates = rates

    async def _keys(self, name: str, address: str) -> dict[str, tuple[str, ...]]:
        """The counts a login under ``name`` (case-folded) from ``address`` touches, by rate."""
        try:
            unlocks = await self.rates.storage.get(f"unlocks/{name}")
        except StorageError:
            unlocks = 0  # (`Rates` counts nothing meanwhile either)
        named = f"{name}#{unlocks}"
        return {"login_failures": (named, address), "name_failures": (named,), "address_failures": (address,)}

    async def wait(self, name: str, address: str) -> float:
        """Seconds until ``name`` may try to log in from ``address`` (0: now)."""
        keys = await self._keys(name, address)
        return max([await self.rates.wait(rate, *who) for rate, who in keys.items()])

    async def failed(self, name: str, address: str) -> list[str]:
        """Count a failed login; what it has just locked out ("name from address", "name", "address")."""
        shown = {"login_failures": "name from address", "name_failures": "name", "address_failures": "address"}
        locked = []
        for rate, who in (await self._keys(name, address)).items():
            await self.rates.hit(rate, *who)
            if await self.rates.spent(rate, *who):
                locked.append(shown[rate])
        return locked

    async def succeeded(self, name: str, address: str) -> None:
        """Forget the failures of ``name`` from ``address`` (the person got it right)."""
        keys = await self._keys(name, address)
        await self.rates.clear("login_failures", *keys["login_failures"])

    async def unlock(self, name: str) -> None:
        """Forget every failure of ``name`` (case-folded), from every address."""
        try:
            await self.rates.storage.incr(f"unlocks/{name}", UNLOCKS_TTL)
        except StorageError:
            raise TableError(
                "server/storage", "the server cannot reach its limits' storage just now", status=503
            ) from None
