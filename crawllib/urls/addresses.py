"""The address policy: which IP addresses a URL of a given zone may reach.

Decided on the address a connection really goes to (see
:mod:`crawllib.fetch.protocol.connection`), never on how a URL spells its host.
By default:

* never: link-local (169.254.0.0/16, fe80::/10, where the cloud metadata
  services answer), the other metadata addresses (fd00:ec2::254,
  100.100.100.200), "this network" (0.0.0.0/8, ::), multicast, the
  reserved 240.0.0.0/4 with broadcast, and the host
  ``metadata.google.internal``;
* loopback (127.0.0.0/8, ::1) from URLs of zone ``loopback`` or ``local``;
* private (RFC 1918, 100.64.0.0/10 shared space, fc00::/7, fec0::/10) from
  zone ``private`` and inward;
* everything else (public) from any URL.

IPv4 addresses inside IPv6 ones (IPv4-mapped ``::ffff:a.b.c.d``, the old
IPv4-compatible form, NAT64's 64:ff9b::/96 and 6to4's 2002::/16) are
judged as the IPv4 address they carry.

Three properties change it (beamcrawl's own; Nutch has none), each a list
of addresses or CIDR ranges: ``http.address.deny`` (never, whatever the
zone), ``http.address.allow`` (from any zone, even the ranges refused by
default) and ``http.address.public`` (counted as public: reachable from
anywhere, and the links found there are public too; tests on loopback use
it to play a public site).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from crawllib.errors import ConfigError
from crawllib.urls.iphost import IPAddress
from crawllib.urls.zone import Zone

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_NEVER = (
    "0.0.0.0/8",
    "169.254.0.0/16",
    "224.0.0.0/4",
    "240.0.0.0/4",
    "100.100.100.200/32",
    "::/128",
    "fe80::/10",
    "ff00::/8",
    "fd00:ec2::254/128",
)
_LOOPBACK = ("127.0.0.0/8", "::1/128")
_PRIVATE = (
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",
    "fc00::/7",
    "fec0::/10",
)
DENIED_HOSTS = frozenset({"metadata.google.internal", "metadata.google.internal."})
"""Host names refused before any lookup (a proxy would resolve them itself)."""

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_COMPATIBLE = ipaddress.IPv6Network("::/96")


def _networks(texts: Iterable[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(text) for text in texts)


_DEFAULT_CLASSES: tuple[tuple[tuple[Network, ...], Zone | None], ...] = (
    (_networks(_NEVER), None),
    (_networks(_LOOPBACK), Zone.LOOPBACK),
    (_networks(_PRIVATE), Zone.PRIVATE),
)


def embedded_ipv4(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4)."""
    if address.version == 4:
        return address
    assert isinstance(address, ipaddress.IPv6Address)
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64 or (address in _COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def default_class(address: IPAddress) -> Zone | None:
    """The class of an address by default: None for never, else its zone."""
    address = embedded_ipv4(address)
    for networks, zone in _DEFAULT_CLASSES:
        if any(address in network for network in networks):
            return zone
    return Zone.PUBLIC


@dataclass(frozen=True, slots=True)
class AddressPolicy:
    """Which addresses URLs of each zone may reach; see the module docstring.

    Attributes:
        deny: ``http.address.deny``: never reached.
        allow: ``http.address.allow``: reached from any zone.
        public: ``http.address.public``: counted as public addresses.
    """

    deny: tuple[Network, ...] = ()
    allow: tuple[Network, ...] = ()
    public: tuple[Network, ...] = ()

    @classmethod
    def from_lists(
        cls, deny: Iterable[str], allow: Iterable[str], public: Iterable[str]
    ) -> AddressPolicy:
        """Build from the three properties' items.

        Raises:
            ConfigError: an item is no address or CIDR range.
        """
        return cls(
            _parse("http.address.deny", deny),
            _parse("http.address.allow", allow),
            _parse("http.address.public", public),
        )

    def address_class(self, address: IPAddress) -> Zone | None:
        """The class of ``address`` under this policy; None: never reached."""
        if _within(address, self.deny):
            return None
        if _within(address, self.public):
            return Zone.PUBLIC
        found = default_class(address)
        if found is None and _within(address, self.allow):
            return Zone.PRIVATE  # allowed on purpose: its links stay inside
        return found

    def links_zone(self, address: IPAddress) -> Zone:
        """The zone a response from ``address`` gives the links found in it.

        Its class; an address reached only by ``http.address.allow`` counts
        as private.
        """
        found = self.address_class(address)
        return Zone.PRIVATE if found is None else found

    def refusal(self, address: IPAddress, zone: Zone) -> str | None:
        """Why a URL of ``zone`` may not reach ``address``; None if it may."""
        shown = _shown(address)
        if _within(address, self.deny):
            return f"{shown} is in http.address.deny"
        if _within(address, self.allow):
            return None
        found = self.address_class(address)
        if found is None:
            return f"{shown} is never fetched ({_never_reason(address)})"
        if found > zone:
            return (
                f"{shown} is a {found.label} address and the URL was found "
                f"on a {zone.label} one"
            )
        return None

    def refuses_host(self, host: str) -> str | None:
        """Why a host name is refused before any lookup; None if it is not."""
        if host.lower() in DENIED_HOSTS:
            return f"{host} is a cloud metadata service"
        return None


NO_SETTINGS = AddressPolicy()
"""The default policy: none of the three properties set."""


def _shown(address: IPAddress) -> str:
    """The address, and the IPv4 address it carries if it carries one."""
    carried = embedded_ipv4(address)
    return str(address) if carried == address else f"{address} ({carried})"


def _never_reason(address: IPAddress) -> str:
    carried = embedded_ipv4(address)
    if carried.is_link_local:
        return "link-local, where cloud metadata services answer"
    if carried.is_multicast:
        return "multicast"
    if carried.is_unspecified or carried in ipaddress.IPv4Network("0.0.0.0/8"):
        return "this network"
    if carried.version == 4 and carried in ipaddress.IPv4Network("240.0.0.0/4"):
        return "reserved or broadcast"
    return "a cloud metadata service"


def _within(address: IPAddress, networks: tuple[Network, ...]) -> bool:
    if not networks:
        return False
    carried = embedded_ipv4(address)
    return any(address in network or carried in network for network in networks)


def _parse(name: str, items: Iterable[str]) -> tuple[Network, ...]:
    networks = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item.strip("[]"), strict=False))
        except ValueError:
            raise ConfigError(
                f"property {name}: {item!r} is no IP address or CIDR range"
            ) from None
    return tuple(networks)
