"""Domain lists: Nutch's ``urlfilter-domain`` and ``urlfilter-domaindenylist``.

Both read a list of entries, one per line (``domain-urlfilter.txt``,
``domaindenylist-urlfilter.txt``), and look up three names of each URL's
host: its domain suffix (``com``, ``co.uk``), its registrable domain
(``apache.org``) and the host itself (``www.apache.org``). An entry
``apache.org`` thus covers ``apache.org`` and every host under it, ``com``
every ``.com`` host, and ``www.apache.org`` that one host.
:class:`DomainUrlFilter` keeps only URLs whose host is listed;
:class:`DomainDenylistUrlFilter` drops them.
"""

from __future__ import annotations

import functools
import re

from crawllib.java import java_trim
from crawllib.urls.domain import domain_of_host, public_suffix_list
from crawllib.urls.javaurl import java_host

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # java.io.BufferedReader.readLine
_IPV4 = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}", re.ASCII)  # URLUtil.IP_PATTERN


def read_domain_list(text: str) -> frozenset[str]:
    """The entries of a domain list, trimmed and lowercased.

    Like ``DomainURLFilter.readConfiguration``: blank lines and lines
    starting with ``#`` are skipped; any other line is one entry.
    """
    entries = set()
    for line in _LINE_BREAK.split(text):
        entry = java_trim(line)
        if entry and not line.startswith("#"):
            entries.add(entry.lower())
    return frozenset(entries)


class DomainUrlFilter:
    """Keep URLs of listed hosts, domains and suffixes, like Nutch's DomainURLFilter.

    An empty list keeps every URL (NUTCH-2189: the filter deactivates
    itself, so the bundled comment-only ``domain-urlfilter.txt`` changes
    nothing). Otherwise a URL is kept when its lowercased host, its domain
    (:func:`~crawllib.urls.domain.domain_of_host`) or its domain suffix is an
    entry; a URL that ``java.net.URL`` cannot parse is dropped.

    Nutch takes the domain suffix from its own ``domain-suffixes.xml``;
    beamcrawl takes the longest public suffix of the ICANN section of the
    Public Suffix List (the list Nutch's domain names come from), and also
    for an upper-case host (Nutch finds no suffix for one).

    Attributes:
        entries: the lowercased entries.
    """

    def __init__(self, rules_text: str) -> None:
        self.entries = read_domain_list(rules_text)

    def accepts(self, url: str) -> bool:
        """Whether ``url`` is kept: the list is empty or names its host."""
        return not self.entries or listed(url, self.entries) is True


class DomainDenylistUrlFilter:
    """Drop URLs of listed hosts, domains, suffixes: Nutch's DomainDenylistURLFilter.

    The reverse of :class:`DomainUrlFilter`, except that an empty list is not
    special: a URL is dropped when it is listed or ``java.net.URL`` cannot
    parse it (Nutch's filter catches the exception and returns null).

    Attributes:
        entries: the lowercased entries.
    """

    def __init__(self, rules_text: str) -> None:
        self.entries = read_domain_list(rules_text)

    def accepts(self, url: str) -> bool:
        """Whether ``url`` is kept: it parses and its host is not listed."""
        return listed(url, self.entries) is False


def listed(url: str, entries: frozenset[str]) -> bool | None:
    """Whether ``entries`` names the URL's host, domain or suffix; None if malformed."""
    host = java_host(url)
    if host is None:
        return None
    host = host.lower()
    return (
        host in entries
        or domain_of_host(host) in entries
        or domain_suffix(host) in entries
    )


@functools.lru_cache(maxsize=1 << 16)
def domain_suffix(host: str) -> str | None:
    """The domain suffix of ``host``, like Nutch's ``URLUtil.getDomainSuffix``.

    The longest public suffix among those that follow a dot of the host (so
    not the host itself, unless it has no dot); None for an IPv4 address, a
    host with an empty label, or one whose TLD is not in the list.
    """
    if not host or _IPV4.fullmatch(host) or "" in host.split("."):
        return None
    rest = host.partition(".")[2] or host
    suffix: str | None = public_suffix_list().publicsuffix(rest)
    return suffix
