"""Hosts and registrable domains of URLs, like Nutch 1.x ``URLUtil``.

URLs are split the way ``java.net.URL`` splits them (:func:`split_url`), so
that keys built from the parts (partitions, row keys, filter blocks) agree
with Nutch's. The domain of a host is its registrable domain under the ICANN
section of the Public Suffix List, as Nutch 1.x ``URLUtil.getDomainName``
gets it from crawler-commons ``EffectiveTldFinder.getAssignedDomain(host,
false, true)``.

Where this parser and ``java.net.URL`` part ways, on purpose:

- Any syntactically valid scheme is accepted; Java refuses schemes it has no
  handler for (``foo://bar/``) with ``MalformedURLException``.
- Leading and trailing whitespace is not trimmed; Java trims it. Nutch's
  normalizers have trimmed it before these functions run.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from publicsuffixlist import PublicSuffixList

# scheme ":" ["//" authority] rest; the authority ends at "/", "?" or "#".
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):(?://([^/?#]*))?([^#]*)", re.ASCII)
# URLUtil's IP_PATTERN, matched against the whole host.
_IPV4 = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}", re.ASCII)
_MAX_PORT = 2**31 - 1  # java.net.URL accepts any port that fits an int


@dataclass(frozen=True, slots=True)
class UrlParts:
    """The parts of a URL that ``java.net.URL`` would report.

    Attributes:
        scheme: ``getProtocol()``, lowercased.
        host: ``getHost()``: case kept, an IPv6 literal in brackets, ``""``
            when the URL has no authority (``file:/x``, ``mailto:a@b``).
        port: ``getPort()``: the explicit port, or -1.
        file: ``getFile()``: the path plus ``?query``; never the fragment.
    """

    scheme: str
    host: str
    port: int
    file: str


def split_url(url: str) -> UrlParts | None:
    """Split ``url`` like ``new java.net.URL(url)``; None where Java would throw.

    A URL does not parse when it has no scheme or its port is not a number.
    User-info is dropped; an authority with more than one ``@`` has an empty
    host, as in Java.
    """
    match = _URL.match(url)
    if match is None:
        return None
    scheme, authority, rest = match.groups()
    if authority is None:
        return UrlParts(scheme.lower(), "", -1, rest)
    host_port = _split_authority(authority)
    if host_port is None:
        return None
    return UrlParts(scheme.lower(), host_port[0], host_port[1], rest)


def java_host(url: str) -> str | None:
    """The host as ``java.net.URL.getHost()`` gives it, or None if unparsable.

    Case is kept and an IPv6 literal keeps its brackets; a URL without an
    authority has the host ``""``. This is what Nutch's URLPartitioner hashes
    in ``byHost`` mode. Faster than :func:`split_url` when only the host is
    needed.
    """
    match = _URL.match(url)
    if match is None:
        return None
    authority = match.group(2)
    if not authority:
        return ""
    if "@" not in authority and ":" not in authority:
        return authority
    host_port = _split_authority(authority)
    return None if host_port is None else host_port[0]


def host_of(url: str) -> str:
    """The URL's host, lowercased; ``""`` if it has none or does not parse.

    Like Nutch's ``URLUtil.getHost`` (which gives null for a malformed URL),
    without port or user-info. An IPv6 literal comes without its brackets
    (``http://[::1]/`` gives ``::1``).
    """
    host = java_host(url)
    if not host:
        return ""
    if host[0] == "[":
        host = host[1:-1]
    return host.lower()


def domain_of(url: str) -> str:
    """The registrable domain of the URL's host, like ``URLUtil.getDomainName``.

    ``http://lucene.apache.org/`` gives ``apache.org``; a URL without a host
    (``file:/path``) or that does not parse gives ``""``. See
    :func:`domain_of_host`.
    """
    return domain_of_host(host_of(url))


@functools.lru_cache(maxsize=1 << 16)
def domain_of_host(host: str) -> str:
    """The registrable domain of ``host``, like Nutch 1.x ``getDomainName``.

    One trailing dot is stripped and the host lowercased. An IP address
    (dotted IPv4, or anything with a ``:``, i.e. IPv6) comes back as is.
    Otherwise the result is one label plus the host's public suffix, taken
    from the ICANN section of the Public Suffix List (private suffixes such
    as ``github.io`` or ``uk.com`` are ignored, as with crawler-commons'
    ``excludePrivate``). When there is no such domain, the host itself is
    returned: the host is a public suffix (``com``, ``co.uk``), its TLD is
    not in the list (``example.com.nn``), or it has an empty label
    (``a..example.com``).

    Results are cached per host, since hosts repeat across millions of URLs.
    """
    host = host.lower()
    if host.endswith("."):
        host = host[:-1]
    if not host or ":" in host or _IPV4.fullmatch(host):
        return host
    if "" in host.split("."):
        return host
    return _public_suffix_list().privatesuffix(host) or host


@functools.cache
def _public_suffix_list() -> PublicSuffixList:
    """The ICANN-only Public Suffix List, parsed once per process on first use."""
    return PublicSuffixList(only_icann=True, accept_unknown=False)


def _split_authority(authority: str) -> tuple[str, int] | None:
    """Host and port (-1 if none) of an authority; None for a bad port."""
    at = authority.find("@")
    if at >= 0:
        if authority.find("@", at + 1) >= 0:
            return "", -1  # java.net.URL: several '@', no host
        authority = authority[at + 1 :]
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            return None
        host, port_text = authority[: end + 1], authority[end + 1 :]
        if port_text and port_text[0] != ":":
            return None
        port_text = port_text[1:]
    else:
        host, _, port_text = authority.partition(":")
    if not port_text:
        return host, -1
    if not (port_text.isascii() and port_text.isdigit()):
        return None
    port = int(port_text)
    return (host, port) if port <= _MAX_PORT else None
