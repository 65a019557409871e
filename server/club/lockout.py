"""`Lockout`: failed logins, counted in every process of the club (`server.rates`), lock out

- a name from one address after `Limits.login_failures` failures (the person who mistyped, or a
  stranger guessing): others logging in under that name, from elsewhere, are not locked out;
- a name after `Limits.name_failures`, a slower rate, which takes many addresses: from then on
  (while the name's count is full) every address that has itself failed for the name within that
  window is locked out for it. An address that has not is never locked out by strangers: the member
  logging in from their usual place gets in with the right password; a wrong one from there counts
  as a failure, and locks that address out for the name too;
- an address after `Limits.address_failures` failures for any names.

An address is the visitor address key (`server.rates.addresses.address_key`): an IPv6 address counts
as its /64, so that one home connection cannot pose as many addresses.

An admin unlocks a member's name (`unlock`): it forgets every failure for the name, from every
address, by moving the name to a new count (its unlock number is part of the keys).
"""

from __future__ import annotations

from limits.errors import StorageError

from server.rates.counter import Rates
from server.tables.errors import TableError

__all__ = ["Lockout"]

UNLOCKS_TTL = 30 * 24 * 3600  # an unlock number outlives every count it started
_FAILED_HERE = "failed-from"  # (the mark of the count of one address's failures for a name, in the name's window)


class Lockout:
    """Failed logins in ``rates`` (a `Rates`)."""

    def __init__(self, rates: Rates) -> None:
        self.rates = rates

    async def _keys(self, name: str, address: str) -> dict[str, tuple[str, ...]]:
        """The counts a login under ``name`` (its key, `Club.login`) from ``address`` (as the request
        came from) touches, by rate; "here" is the address's failures for the name, counted in the
        name's window."""
        try:
            unlocks = await self.rates.storage.get(f"unlocks/{name}")
        except StorageError:
            unlocks = 0  # (`Rates` counts nothing meanwhile either)
        named, where = f"{name}#{unlocks}", self.rates.address(address)
        return {
            "login_failures": (named, where),
            "name_failures": (named,),
            "address_failures": (where,),
            "here": (_FAILED_HERE, named, where),
        }

    async def wait(self, name: str, address: str) -> float:
        """Seconds until ``name`` may try to log in from ``address`` (0: now)."""
        keys = await self._keys(name, address)
        waits = [await self.rates.wait(rate, *keys[rate]) for rate in ("login_failures", "address_failures")]
        named = await self.rates.wait("name_failures", *keys["name_failures"])
        if named and await self.rates.counted("name_failures", *keys["here"]):
            waits.append(named)  # the name is locked, and this address has failed for it
        return max(waits)

    async def failed(self, name: str, address: str) -> list[str]:
        """Count a failed login; what it has just locked out ("name from address", "name from the
        addresses that failed for it", "address"). The name is said once, by the failure that fills
        its count."""
        keys = await self._keys(name, address)
        name_was_locked = await self.rates.spent("name_failures", *keys["name_failures"])
        await self.rates.hit("name_failures", *keys["here"])
        locked = []
        shown = {
            "login_failures": "name from address",
            "name_failures": "name from the addresses that failed for it",
            "address_failures": "address",
        }
        for rate, label in shown.items():
            await self.rates.hit(rate, *keys[rate])
            if await self.rates.spent(rate, *keys[rate]) and not (rate == "name_failures" and name_was_locked):
                locked.append(label)
        return locked

    async def name_locked(self, name: str) -> int:
        """The failures the window of ``name``'s count holds when it is full (the name is locked out
        for the addresses that failed for it), else 0."""
        keys = await self._keys(name, "")
        if not await self.rates.spent("name_failures", *keys["name_failures"]):
            return 0
        return await self.rates.counted("name_failures", *keys["name_failures"])

    async def succeeded(self, name: str, address: str) -> None:
        """Forget the failures of ``name`` from ``address`` (the person got it right)."""
        keys = await self._keys(name, address)
        await self.rates.clear("login_failures", *keys["login_failures"])
        await self.rates.clear("name_failures", *keys["here"])

    async def unlock(self, name: str) -> None:
        """Forget every failure of ``name`` (its key), from every address."""
        try:
            await self.rates.storage.incr(f"unlocks/{name}", UNLOCKS_TTL)
        except StorageError:
            raise TableError(
                "server/storage", "the server cannot reach its limits' storage just now", status=503
            ) from None
