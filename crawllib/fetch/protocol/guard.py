"""Connecting under the address policy: the address checked is the address used.

:func:`connect` resolves a host once, checks each address the resolver gave
against the :class:`~crawllib.urls.addresses.AddressPolicy` for the
URL's zone, and connects to the first address allowed, so no second lookup
(which a DNS answer with a short TTL could change: DNS rebinding) stands
between the check and the connection. A host whose addresses are all
refused raises :class:`AddressRefused`, which the protocol turns into an
``ADDRESS_DENIED`` result. :class:`AddressGuard` holds what one kind of
connection needs (a zone, the policy, the resolver); the HTTP protocol's
connections of a zone carry one (:mod:`crawllib.fetch.protocol.connection`).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from crawllib.urls.addresses import AddressPolicy
from crawllib.urls.iphost import IPAddress, ip_of_host
from crawllib.urls.zone import Zone

AddrInfo = tuple[int, int, int, str, tuple[Any, ...]]
Resolver = Callable[[str, int], Sequence[AddrInfo]]
"""``(host, port) -> getaddrinfo``-style entries; tests pass their own."""


class AddressRefused(Exception):
    """The address policy refuses every address of a host for this URL's zone."""

    def __init__(self, host: str, reason: str) -> None:
        named = not reason.startswith(host.strip("[]"))
        super().__init__(f"{host}: {reason}" if named else reason)
        self.host = host
        self.reason = reason


def system_resolve(host: str, port: int) -> Sequence[AddrInfo]:
    """The system resolver (``getaddrinfo``), TCP addresses only."""
    return socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)


def connect(
    host: str,
    port: int,
    *,
    zone: Zone,
    policy: AddressPolicy,
    timeout: float | None,
    resolve: Resolver = system_resolve,
    source_address: tuple[str, int] | None = None,
    socket_options: Sequence[tuple[int, int, int | bytes]] | None = None,
) -> socket.socket:
    """A socket connected to an address of ``host`` that ``zone`` may reach.

    Raises:
        AddressRefused: the policy refuses the host or all of its addresses.
        OSError: resolving or connecting failed (the last connect's error).
    """
    reason = policy.refuses_host(host)
    if reason is not None:
        raise AddressRefused(host, reason)
    refusals: list[str] = []
    error: OSError | None = None
    for family, kind, proto, _name, sockaddr in resolve(host, port):
        address = _address(sockaddr)
        reason = policy.refusal(address, zone)
        if reason is not None:
            refusals.append(reason)
            continue
        try:
            return _open(
                family, kind, proto, sockaddr, timeout, source_address, socket_options
            )
        except OSError as exc:
            error = exc
    if error is not None:
        raise error
    if refusals:
        raise AddressRefused(host, refusals[0])
    raise OSError(f"no address found for {host}")


def _open(
    family: int,
    kind: int,
    proto: int,
    sockaddr: tuple[Any, ...],
    timeout: float | None,
    source_address: tuple[str, int] | None,
    socket_options: Sequence[tuple[int, int, int | bytes]] | None,
) -> socket.socket:
    sock = socket.socket(family, kind, proto)
    try:
        for level, name, value in socket_options or ():
            sock.setsockopt(level, name, value)
        sock.settimeout(timeout)
        if source_address is not None:
            sock.bind(source_address)
        sock.connect(sockaddr)
    except OSError:
        sock.close()
        raise
    return sock


@dataclass(frozen=True, slots=True)
class AddressGuard:
    """Connections for URLs of one zone under a policy; see the module docstring.

    Attributes:
        zone: the zone of the URLs whose connections these are.
        policy: which addresses each zone may reach.
        resolve: the resolver (the system's; tests pass their own).
    """

    zone: Zone
    policy: AddressPolicy
    resolve: Resolver = system_resolve

    def connect(
        self,
        host: str,
        port: int,
        timeout: float | None,
        source_address: tuple[str, int] | None = None,
        socket_options: Sequence[tuple[int, int, int | bytes]] | None = None,
    ) -> socket.socket:
        """:func:`connect` with this guard's zone, policy and resolver."""
        return connect(
            host,
            port,
            zone=self.zone,
            policy=self.policy,
            timeout=timeout,
            resolve=self.resolve,
            source_address=source_address,
            socket_options=socket_options,
        )

    def check_proxied(self, host: str) -> Zone:
        """Check a host a proxy will connect to, as far as beamcrawl can.

        The proxy resolves names itself (often beamcrawl cannot): so only
        what the URL spells is checked, an address in any spelling and the
        refused host names. Returns the zone the response gives its links:
        the address's class, or public for a name (unknown, so the outermost).

        Raises:
            AddressRefused: the host is refused for this zone.
        """
        reason = self.policy.refuses_host(host)
        if reason is not None:
            raise AddressRefused(host, reason)
        try:
            address = ip_of_host(host)
        except ValueError:
            address = None  # not an address: the proxy will say
        if address is None:
            return Zone.PUBLIC
        reason = self.policy.refusal(address, self.zone)
        if reason is not None:
            raise AddressRefused(host, reason)
        return self.policy.links_zone(address)


def _address(sockaddr: tuple[Any, ...]) -> IPAddress:
    return ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
