"""The egress guard: which addresses a tool request may connect to.

A host is resolved once (``getaddrinfo``) and every address it resolves to is checked; if any one is
refused the whole host is refused (a name that mixes public and internal records is a rebinding trick,
not a configuration to honour). The caller then connects to one of exactly these vetted addresses,
never resolving again, so DNS cannot swap the address between the check and the connection.

Refused unless ``TOOL_EGRESS_ALLOW_PRIVATE`` is set: loopback, private (RFC 1918, ULA fc00::/7),
link-local, CGNAT (100.64.0.0/10), multicast, unspecified, and every other non-global range (documentation,
benchmarking, reserved). IPv4 addresses embedded in IPv6 (``::ffff:a.b.c.d``, 6to4, NAT64, Teredo) are
checked as the IPv4 address they carry. Cloud metadata endpoints (169.254.169.254, fd00:ec2::254,
100.100.100.200, ``metadata.google.internal``) are refused even when private egress is allowed: no tool
ever needs them and a development machine in a cloud VM has them too.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]

METADATA_HOSTNAMES = frozenset({"metadata.google.internal", "metadata.goog"})
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class EgressRefused(Exception):
    """The host of a tool request resolves to an address tools may not reach; nothing was sent."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"egress to {host} refused: {reason}")
        self.host = host
        self.reason = reason


def refusal_reason(address: IPAddress, *, allow_private: bool) -> str | None:
    """Why a tool may not connect to ``address``, or None when it may."""
    if address in METADATA_ADDRESSES:
        return f"{address} is a cloud metadata address"
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        reason = refusal_reason(embedded, allow_private=allow_private)
        if reason is not None:
            return f"{address} embeds {reason}"
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            return None
    if allow_private:
        return None
    for label, hit in (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("CGNAT", address.version == 4 and address in _CGNAT),
        ("private", address.is_private),
        ("not globally routable", not address.is_global),
    ):
        if hit:
            return f"{address} is {label}"
    return None


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


async def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's answer for ``host`` (A and AAAA), in its order, without duplicates."""
    infos = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class EgressGuard:
    """Resolves a host and returns only addresses a tool may connect to, or raises EgressRefused."""

    allow_private: bool
    resolver: Resolver = system_resolver

    async def vet(self, host: str, port: int) -> list[str]:
        """The vetted addresses of ``host`` to connect to, in resolver order (OSError if unresolvable)."""
        name = host.strip("[]").rstrip(".").lower()
        if name in METADATA_HOSTNAMES:
            raise EgressRefused(host, f"{name} is a cloud metadata host")
        # A name that does not resolve is a transport failure (OSError), not a refusal.
        addresses = await self.resolver(name, port)
        if not addresses:
            raise OSError(f"{host} resolved to no address")
        vetted = []
        for text in addresses:
            address = ipaddress.ip_address(text.split("%", 1)[0])
            reason = refusal_reason(address, allow_private=self.allow_private)
            if reason is not None:
                raise EgressRefused(host, reason)
            vetted.append(text)
        return vetted
