"""URL partitioning by host, domain or IP, like Nutch 1.x ``URLPartitioner``.

A partition is ``((javaHash(key) ^ seed) & 0x7FFFFFFF) % n``, where the key
is the URL's host, domain or IP address (``partition.url.mode``), and
``javaHash`` is Java's ``String.hashCode()``, so a URL lands in the partition
Nutch would give it.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import sys
from array import array
from collections.abc import Callable

from crawllib.config import PartitionConfig
from crawllib.errors import ConfigError
from crawllib.urls.domain import domain_of_host
from crawllib.urls.javaurl import java_host

_UTF16 = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"
_LOOPBACK = "127.0.0.1"  # what Java's InetAddress.getByName("") gives


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode()``: ``h = 31*h + c`` over UTF-16 code units.

    The result is a signed 32-bit int, as in Java. A character outside the
    Basic Multilingual Plane counts as its two surrogates; a lone surrogate
    in ``text`` counts as itself.
    """
    units: bytes | array[int]
    if text.isascii():
        units = text.encode("ascii")
    else:
        units = array("H", text.encode(_UTF16, "surrogatepass"))
    h = 0
    for unit in units:
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - 0x100000000 if h & 0x80000000 else h


_cached_hash = functools.lru_cache(maxsize=1 << 16)(java_string_hash)


def resolve_ipv4(host: str) -> str | None:
    """The host's IPv4 address in dotted form, or None if the lookup fails.

    The default resolver of :class:`UrlPartitioner`: ``socket.gethostbyname``
    with its failures (unknown host, an IDNA label too long ...) as None.
    """
    try:
        return socket.gethostbyname(host)
    except (OSError, UnicodeError):
        return None


class UrlPartitioner:
    """Assign URLs to partitions, like Nutch 1.x ``URLPartitioner``.

    ``partition.url.mode`` picks the key that is hashed:

    - ``byHost``: the host as ``java.net.URL.getHost()`` gives it, so with
      its case kept (Nutch's normalizers lowercase it beforehand) and an
      IPv6 literal in brackets.
    - ``byDomain``: the host's registrable domain
      (:func:`~crawllib.urls.domain.domain_of_host`, Nutch's
      ``URLUtil.getDomainName``).
    - ``byIP``: the host's IP address in dotted text (Java's
      ``InetAddress.getHostAddress()``). Each host is resolved once per
      partitioner, failures included; the cache is not bounded, so keep one
      partitioner per worker and batch. An IP-literal host is not looked up;
      an IPv6 literal is written the Java way (``0:0:0:0:0:0:0:1``). An empty
      host (``file:`` URLs) gives ``127.0.0.1``, as Java resolves ``""`` to
      the loopback address. When the lookup fails, the key is ``""``, whose
      hash is 0: Nutch 1.x keeps ``h = 0`` then (2.x would hash the URL).

    A URL that does not parse is hashed whole, in every mode. The key's hash
    is XORed with ``partition.url.seed``.

    The URL is not normalized here: Nutch runs the ``partition``-scope
    normalizers first, and so must the caller.

    Args:
        config: the mode and seed.
        resolve: host to IPv4 text or None on failure, for ``byIP``;
            defaults to :func:`resolve_ipv4` (DNS).

    Raises:
        ConfigError: ``config.mode`` is not byHost, byDomain or byIP.
    """

    def __init__(
        self,
        config: PartitionConfig,
        resolve: Callable[[str], str | None] | None = None,
    ) -> None:
        keys: dict[str, Callable[[str], str]] = {
            "byHost": _same,
            "byDomain": domain_of_host,
            "byIP": self._ip_of,
        }
        if config.mode not in keys:
            raise ConfigError(
                f"partition.url.mode={config.mode!r} is invalid: "
                "expected one of byHost, byDomain, byIP"
            )
        self._host_key = keys[config.mode]
        self._seed = config.seed
        self._resolve = resolve_ipv4 if resolve is None else resolve
        self._ips: dict[str, str] = {}

    def partition_key(self, url: str) -> str:
        """The string whose hash picks the URL's partition: host, domain or IP.

        The whole URL when it does not parse; ``""`` when ``byIP`` cannot
        resolve the host.
        """
        host = java_host(url)
        if host is None:
            return url
        return self._host_key(host)

    def partition(self, url: str, num_partitions: int) -> int:
        """The URL's partition, in ``range(num_partitions)``.

        Raises:
            ValueError: ``num_partitions`` is less than 1.
        """
        if num_partitions < 1:
            raise ValueError(f"num_partitions must be at least 1: {num_partitions}")
        h = _cached_hash(self.partition_key(url)) ^ self._seed
        return (h & 0x7FFFFFFF) % num_partitions

    def _ip_of(self, host: str) -> str:
        key = host.lower()
        ip = self._ips.get(key)
        if ip is None:
            ip = self._ips[key] = self._lookup(key)
        return ip

    def _lookup(self, host: str) -> str:
        if not host:
            return _LOOPBACK
        if host.startswith("["):
            return _java_ipv6_text(host[1:-1])
        return self._resolve(host) or ""


def _same(host: str) -> str:
    return host


def _java_ipv6_text(literal: str) -> str:
    """An IPv6 literal as Java's ``getHostAddress()`` writes it; "" if invalid.

    Java writes all eight groups in lowercase hex without leading zeros and
    without ``::``, then the ``%scope`` if any; an IPv4-mapped address
    becomes the IPv4 address.
    """
    try:
        address = ipaddress.IPv6Address(literal)
    except ValueError:
        return ""
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    number = int(address)
    text = ":".join(f"{number >> shift & 0xFFFF:x}" for shift in range(112, -1, -16))
    return text if address.scope_id is None else f"{text}%{address.scope_id}"
