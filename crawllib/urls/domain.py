"""Hosts and registrable domains of URLs, like Nutch 1.x ``URLUtil``.

Hosts are read the way ``java.net.URL`` reads them
(:func:`~crawllib.urls.javaurl.java_host`), so that keys built from them
(partitions, filter blocks) agree with Nutch's. The domain of a host is its
registrable domain under the ICANN section of the Public Suffix List, as
Nutch 1.x ``URLUtil.getDomainName`` gets it from crawler-commons
``EffectiveTldFinder.getAssignedDomain(host, false, true)``.
"""

from __future__ import annotations

import functools
import re

from publicsuffixlist import PublicSuffixList

from crawllib.urls.javaurl import java_host

# URLUtil's IP_PATTERN, matched against the whole host.
_IPV4 = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}", re.ASCII)


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
    return public_suffix_list().privatesuffix(host) or host


@functools.cache
def public_suffix_list() -> PublicSuffixList:
    """The ICANN-only Public Suffix List, parsed once per process on first use.

    Unknown TLDs have no public suffix (``accept_unknown=False``).
    """
    return PublicSuffixList(only_icann=True, accept_unknown=False)
