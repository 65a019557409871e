"""`Limits`: how much one visitor may do, as `sparrow serve --limit NAME=VALUE` sets it."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import limits

from server.rates.addresses import IPV6_PREFIX

__all__ = ["LOAD_FLAGS", "NONE", "Limits", "LimitError"]

NONE = "none"  # a limit set to this is not counted at all

# `sparrow serve` flags for a load test or a benchmark, which plays a whole club from one address.
LOAD_FLAGS = [
    *("--limit", "sockets=none", "--limit", "handshakes=none", "--limit", "requests=none"),
    *("--limit", "replays=none", "--limit", "tables=none", "--limit", "heads=none"),
]


class LimitError(ValueError):
    """A ``--limit`` that cannot be used (its message says why)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What one visitor (a logged-in member, else an address: an IPv6 one by its network of
    ``ipv6_prefix`` bits) may do. Rates are in the `limits` library's notation ("600/minute", "5 per
    15 minutes"); counts are whole numbers; the head and body deadlines are in seconds. A rate or count
    set to "none" (`NONE`; None for ``sockets`` and ``heads``) is not counted."""

    sockets: int | None = 20  # live sockets per visitor, across every table
    handshakes: str = "60/minute"  # socket handshakes per address
    requests: str = "600/minute"  # HTTP requests per visitor (static files and /healthz aside)
    replays: str = "60/minute"  # a hand's replay (page or JSON) and a game's log, per visitor
    tables: str = "20/minute"  # new tables and rematches, per visitor
    logins: str = "60/minute"  # login attempts per address, right or wrong
    signups: str = "10/hour"  # wrong sign-up codes per address
    passwords: str = "5 per 15 minutes"  # wrong old passwords per member (changing a password)
    login_failures: str = "5 per 15 minutes"  # wrong logins per (name, address): that pair is locked
    name_failures: str = "50/hour"  # wrong logins per name from anywhere: the name is locked
    address_failures: str = "30 per 15 minutes"  # wrong logins per address for any name
    body_timeout: float = 10.0  # seconds for a request's body to arrive
    head_timeout: float = 5.0  # seconds for a request's head to arrive (server/heads.py)
    heads: int | None = 50  # connections per address that have not yet sent a whole request head
    ipv6_prefix: int = IPV6_PREFIX  # an IPv6 address counts as its network of this many bits (`address_key`)

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.type == "str" and value != NONE:
                try:
                    limits.parse(value)
                except ValueError:
                    raise LimitError(f"{_flag(field.name)}={value!r} is not a rate such as 60/minute") from None
        for name in ("sockets", "heads"):
            count = getattr(self, name)
            if count is not None and not 1 <= count <= 100_000:
                raise LimitError(f"{name}={count!r} must be a whole number from 1 to 100000, or none")
        for name in ("body_timeout", "head_timeout"):
            seconds = getattr(self, name)
            if not (math.isfinite(seconds) and 0 < seconds <= 3600):
                raise LimitError(f"{_flag(name)}={seconds!r} must be a number of seconds from 0 to 3600")
        if isinstance(self.ipv6_prefix, bool) or not 32 <= self.ipv6_prefix <= 128:
            raise LimitError(f"ipv6-prefix={self.ipv6_prefix!r} must be a whole number of bits from 32 to 128")

    def item(self, name: str) -> limits.RateLimitItem | None:
        """The rate ``name`` (a field holding a rate) as the `limits` library's item (None: "none")."""
        rate: str = getattr(self, name)
        return None if rate == NONE else limits.parse(rate)

    def with_flags(self, flags: list[str]) -> Limits:
        """These limits with ``NAME=VALUE`` flags applied (``--limit sockets=40``).

        :raises LimitError: for an unknown name or a value that is not one.
        """
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, object] = {}
        for flag in flags:
            name, _, value = flag.partition("=")
            key = name.strip().replace("-", "_")
            if key not in fields or not value.strip():
                known = ", ".join(_flag(f) for f in fields)
                raise LimitError(f"--limit {flag!r}: say NAME=VALUE, with NAME one of {known}")
            kind = fields[key].type
            try:
                if value.strip() == NONE and kind in ("int | None", "str"):
                    changes[key] = None if kind == "int | None" else NONE
                    continue
                number = int if kind in ("int | None", "int") else float if kind == "float" else None
                changes[key] = value.strip() if number is None else number(value)
            except ValueError:
                raise LimitError(f"--limit {flag!r}: {value!r} is not a number") from None
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def with_values(self, values: dict[str, object]) -> Limits:
        """These limits with ``values`` (by name as the flag spells it, as `to_json` gives them; None
        or "none": not counted) in their place.

        :raises LimitError: for an unknown name or a value that is not one.
        """
        if not isinstance(values, dict) or not all(isinstance(v, str | int | float | None) for v in values.values()):
            raise LimitError('limits are {"name": value}, such as {"sockets": 40, "requests": "1200/minute"}')
        flags = [f"{name}={NONE if value is None else value}" for name, value in values.items()]
        if any(isinstance(value, bool) for value in values.values()):
            raise LimitError("a limit is a number or a rate, not true or false")
        return self.with_flags(flags)

    def to_json(self) -> dict[str, object]:
        """The limits as the admin's page shows them (names as the flag spells them)."""
        return {_flag(f.name): getattr(self, f.name) for f in dataclasses.fields(self)}


def _flag(name: str) -> str:
    return name.replace("_", "-")
