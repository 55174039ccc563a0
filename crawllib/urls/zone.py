"""Network zones: how far inside a URL may lead the crawler (beamcrawl, not Nutch).

A crawler fetches whatever strangers' pages point it at, and on a cloud
worker the instance metadata service and internal admin ports are one
redirect away. So every URL carries a zone, the most inward kind of
address it may be fetched from, and the zone travels with the links, as
browsers' Private Network Access decides which pages may reach which
addresses:

* ``public`` < ``private`` < ``loopback`` < ``local``: a URL in zone ``z``
  may be fetched from an address of any class up to ``z`` (``local`` adds
  the machine's own files: ``file:`` URLs).
* The operator's URLs (seeds, listed sitemaps, ``parsechecker``'s and
  ``FetchUrls``' URLs) are ``local``: an intranet or test crawl works with
  no setting.
* A link, redirect or meta refresh found on a page gets the class of the
  address that page came from: a page served from a public address can
  lead only to public addresses, one from the intranet to the intranet, a
  ``file:`` page to files.
* A URL linked from pages of several zones keeps the most inward one.

The zone lives in the record's metadata (:data:`ZONE_KEY`), so it goes
through generate, fetch lists and the crawldb with the record. A record
without one (written before zones existed) counts as ``public``: safe, and
an operator gets an old intranet seed back by injecting it again.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from crawllib.webpage import WebPage

ZONE_KEY = "_zone_"
"""metadata: the URL's zone name (``public`` ... ``local``); crawldb and segments."""

FOUND_ZONE_KEY = "_foundzone_"
"""metadata of a segment record: the class of the address its content came
from, given to the links found on it; never kept in the crawldb."""


class Zone(enum.IntEnum):
    """Address classes, outward to inward; a URL may reach its zone and outward."""

    PUBLIC = 0
    PRIVATE = 1
    LOOPBACK = 2
    LOCAL = 3

    @property
    def label(self) -> str:
        """The name stored in metadata and printed: ``public`` ... ``local``."""
        return self.name.lower()

    @classmethod
    def from_label(cls, label: bytes | str | None) -> Zone:
        """The zone a stored name gives; anything unknown or missing is PUBLIC."""
        if isinstance(label, bytes):
            label = label.decode("ascii", "replace")
        try:
            return cls[(label or "").upper()]
        except KeyError:
            return cls.PUBLIC


OPERATOR = Zone.LOCAL
"""The zone of URLs the operator gives: seeds, sitemap lists, checkers."""


def zone_of(page: WebPage) -> Zone:
    """The zone of a crawldb or fetch-list record (PUBLIC without one)."""
    return Zone.from_label(page["metadata"].get(ZONE_KEY))


def found_zone(record: WebPage) -> Zone:
    """The zone of the links found on a segment record (PUBLIC if unknown)."""
    return Zone.from_label(record["metadata"].get(FOUND_ZONE_KEY))


def with_zone(page: WebPage, zone: Zone) -> WebPage:
    """A copy of ``page`` in ``zone``."""
    return {**page, "metadata": {**page["metadata"], ZONE_KEY: zone.label.encode()}}


def innermost(zones: Iterable[Zone]) -> Zone:
    """The most inward of ``zones``; PUBLIC for none."""
    return max(zones, default=Zone.PUBLIC)
