"""Sitemap entries to crawldb records, and the merge: Nutch 1.x ``SitemapProcessor``.

The mapper's record for a listed URL: status injected (written as
UNFETCHED), score = ``priority`` (0.5 when absent), fetch interval from
``changefreq`` (``ChangeFreq``: always 1 s ... never ``Integer.MAX_VALUE``),
modified time = ``lastmod``. The reducer: a URL already in the crawldb keeps
its record (``existing_sitemap_entries``), which with
``sitemap.url.overwrite.existing`` takes the sitemap's score, interval and
modified time; a new URL is added (``new_sitemap_entries``).

Where beamcrawl departs: an entry without ``changefreq`` gets
``db.fetch.interval.default`` (Nutch leaves a new CrawlDatum's 0, which makes
the page due again at once after every fetch); a new record is a seed as
inject makes one (distance 0, OPIC cash = its score, ``stmPriority`` = the
priority); and of several entries for one URL the one with the latest
lastmod, then highest priority, then shortest interval wins (Nutch keeps
whichever its reducer meets last). Each record is in the zone of the
address its sitemap came from (:mod:`crawllib.urls.zone`); a URL listed in
several, or already in the crawldb, keeps the innermost zone.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from crawllib.db.scoring import injected_score
from crawllib.javanum import f32
from crawllib.sitemaps.formats import SitemapEntry
from crawllib.status import DISTANCE_MARKER, CrawlStatus
from crawllib.urls.zone import Zone, innermost, with_zone, zone_of
from crawllib.webpage import WebPage, new_page


class Merge(enum.Enum):
    """What the merge did with a URL; values are Nutch's counter names."""

    NEW = "new_sitemap_entries"
    EXISTING = "existing_sitemap_entries"
    UNLISTED = ""
    """In the crawldb only: written as it was, not counted."""


def fetch_interval_s(entry: SitemapEntry, default_s: int) -> int:
    """The fetch interval Nutch maps ``changefreq`` to; ``default_s`` without one."""
    return default_s if entry.changefreq is None else int(entry.changefreq)


def sitemap_page(
    entry: SitemapEntry, url: str, default_interval_s: int, now_ms: int, zone: Zone
) -> WebPage:
    """The record of a URL listed in a sitemap, as the mapper writes it.

    ``url`` is the normalized URL (``entry.url`` as listed may differ);
    ``zone`` the class of the address the sitemap came from.
    """
    score = f32(entry.priority)
    page = new_page(
        url,
        status=int(CrawlStatus.UNFETCHED),
        fetchTime=now_ms,
        fetchInterval=fetch_interval_s(entry, default_interval_s),
        modifiedTime=entry.lastmod_ms or 0,
        score=score,
        stmPriority=score,
        markers={DISTANCE_MARKER: "0"},
    )
    return injected_score(with_zone(page, zone))


def preferred(pages: Iterable[WebPage]) -> WebPage | None:
    """Of several sitemap records of one URL, the one kept (see the module)."""
    group = list(pages)
    chosen = max(
        group,
        key=lambda page: (page["modifiedTime"], page["score"], -page["fetchInterval"]),
        default=None,
    )
    if chosen is None:
        return None
    zone = innermost(zone_of(page) for page in group)
    return chosen if zone == zone_of(chosen) else with_zone(chosen, zone)


def merge(
    listed: WebPage | None, existing: WebPage | None, overwrite: bool
) -> tuple[WebPage | None, Merge]:
    """Nutch's ``SitemapReducer`` for one URL: the record to write, and what it was."""
    if existing is None:
        return listed, (Merge.NEW if listed is not None else Merge.UNLISTED)
    if listed is None:
        return existing, Merge.UNLISTED
    if overwrite:
        existing = {
            **existing,
            "score": listed["score"],
            "fetchInterval": listed["fetchInterval"],
            "modifiedTime": listed["modifiedTime"],
        }
    if zone_of(listed) > zone_of(existing):
        existing = with_zone(existing, zone_of(listed))
    return existing, Merge.EXISTING
