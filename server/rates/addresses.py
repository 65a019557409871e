"""`address_key`: the visitor address key, whom every per-address limit and failure count counts
against (docs/deploy.md, "Limits per visitor").

An IPv4 address is one visitor. An IPv6 address is not: a home connection is given a whole /64 (and
often a /56), and its devices pick new addresses in it at will, so each IPv6 address is counted as
its network, the first ``ipv6_prefix`` bits (64 unless ``--limit ipv6-prefix=N`` says otherwise). An
IPv4 address carried in IPv6 (``::ffff:203.0.113.7``, as a dual-stack socket reports it) is that
IPv4 address.

>>> address_key("203.0.113.7")
'address:203.0.113.7'
>>> address_key("::ffff:203.0.113.7")
'address:203.0.113.7'
>>> address_key("2001:DB8:1:2:a::9") == address_key("2001:db8:1:2::1") == "address:2001:db8:1:2::/64"
True
>>> address_key("2001:db8:1:2::1", 56)
'address:2001:db8:1::/56'
"""

from __future__ import annotations

import ipaddress

__all__ = ["IPV6_PREFIX", "address_key"]

IPV6_PREFIX = 64  # bits of an IPv6 address that make one visitor: a home connection's whole network


def address_key(host: str | None, ipv6_prefix: int = IPV6_PREFIX) -> str:
    """Whom per-address limits count ``host`` (the address a request came from, or that a trusted
    proxy forwarded) as: an IPv4 address itself, an IPv6 address its ``ipv6_prefix``-bit network.
    A host that is no IP address (a proxy may forward anything) counts as itself, "?" when unknown."""
    if not host:
        return "address:?"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return f"address:{host[:64]}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"address:{ip.ipv4_mapped}"
        network = ipaddress.IPv6Network((ip.packed, ipv6_prefix), strict=False)  # (packed: without a %zone)
        return f"address:{network.compressed}"
    return f"address:{ip}"
