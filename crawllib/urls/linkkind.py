"""Classes of outlinks: internal, external or other, relative to their page.

The seed's spider tells its controller of internal, external and "other"
links; :class:`LinkClassifier` sorts a page's outlinks so, cheaply (the
parse step classifies every outlink of every page), and with the host read
as ``java.net.URL`` reads it (:func:`~crawllib.urls.domain.host_of`), as
Nutch's ``db.ignore.*`` checks do. Link policies (:mod:`crawllib.urls.linkpolicy`)
decide on the classified links.
"""

from __future__ import annotations

import enum
import re

from crawllib.urls.domain import host_of

WEB_SCHEMES = frozenset({"http", "https"})
"""Schemes whose links are internal or external; any other makes a link OTHER."""


class LinkKind(str, enum.Enum):
    """An outlink's class relative to its page, as the seed's spider has them."""

    INTERNAL = "internal"
    """http(s) on the page's host (the host compared case-insensitively, no port)."""
    EXTERNAL = "external"
    """http(s) on another host."""
    OTHER = "other"
    """Not http(s): ``mailto:``, ``ftp:``, ``tel:``, ``file:`` ..."""


KINDS = (LinkKind.INTERNAL, LinkKind.EXTERNAL, LinkKind.OTHER)
"""The classes in a fixed order (:meth:`LinkClassifier.kind_index`)."""
_INTERNAL, _EXTERNAL, _OTHER = range(len(KINDS))


_PLAIN_WEB_URL = re.compile(
    r"(?i:https?)://([A-Za-z0-9._~%-]+)(?::[0-9]{1,5})?(?![^/?#])"
)
"""An http(s) URL's ``scheme://host[:port]`` when it is plain (no user-info,
IPv6 literal or odd character): then its host is ``java.net.URL``'s for sure
(:func:`~crawllib.urls.javaurl.java_host` reads it the same way)."""


class LinkClassifier:
    """Classifies the outlinks of one page (build one per page).

    A target that starts with the page's own ``scheme://host[:port]/`` is
    internal at once (:attr:`internal_prefix`); a plain http(s) target has
    its host read by one regex match; any other is parsed like
    ``java.net.URL`` (:func:`~crawllib.urls.domain.host_of`).

    Args:
        page_url: the page whose links these are.
        hosts: a cache of targets' hosts (``None`` for a target that is not
            http(s)) to share between pages, since pages link to the same
            targets over and over; the caller bounds it.
    """

    __slots__ = ("_host", "_hosts", "internal_prefix")

    def __init__(self, page_url: str, hosts: dict[str, str | None] | None = None):
        plain = _PLAIN_WEB_URL.match(page_url)
        self._host = host_of(page_url) if plain is None else plain[1].lower()
        self._hosts = hosts
        self.internal_prefix = "" if plain is None else plain[0] + "/"
        """The page's ``scheme://host[:port]/`` when plain, else ``""``: a
        target starting with it is internal."""

    def kind(self, url: str) -> LinkKind:
        """The class of ``url`` as an outlink of the page."""
        return KINDS[self.kind_index(url)]

    def kind_index(self, url: str) -> int:
        """The class of ``url`` as its index in :data:`KINDS` (cheaper to count)."""
        prefix = self.internal_prefix
        if prefix and url.startswith(prefix):
            return _INTERNAL
        hosts = self._hosts
        if hosts is None:
            host = web_host(url)
        else:
            host = hosts.get(url, "\0")
            if host == "\0":
                host = hosts[url] = web_host(url)
        if host is None:
            return _OTHER
        return _INTERNAL if host and host == self._host else _EXTERNAL


def web_host(url: str) -> str | None:
    """The host of an http(s) URL as :func:`~crawllib.urls.domain.host_of` has it.

    None when the scheme is not http(s).
    """
    plain = _PLAIN_WEB_URL.match(url)
    if plain is not None:
        return plain[1].lower()
    colon = url.find(":")
    if colon < 0 or url[:colon].lower() not in WEB_SCHEMES:
        return None
    return host_of(url)


def link_kind(url: str, page_url: str) -> LinkKind:
    """The class of ``url`` as an outlink of ``page_url``."""
    return LinkClassifier(page_url).kind(url)
